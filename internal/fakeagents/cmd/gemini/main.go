// Command gemini is a fake Gemini CLI for tests: it keeps the Gemini CLI
// contracts Reprise relies on (AGENTS.md: --session-id and --resume, hooks
// in ~/.gemini/settings.json with millisecond timeouts, SessionStart at
// launch, BeforeAgent/AfterAgent around a turn, SessionEnd "exit" three
// times on /quit and on SIGHUP with exit status 0, GEMINI_SESSION_ID and
// secret-looking variables stripped in the hook's environment, a session
// without a model reply deleted at exit) without a model. Every prompt is
// answered "ack: <prompt>". See fake/gemini.go for what AGENTS.md leaves
// open and what the fake does there.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
)

// readyMarker is the start of the real CLI's input box placeholder ("Type
// your message or @path/to/file"), what the conformance suite waits for.
const readyMarker = "Type your message"

// sessionEndRuns is how many times Gemini delivers SessionEnd on /quit or
// SIGHUP (AGENTS.md: "SessionEnd `exit` delivered three times").
const sessionEndRuns = 3

func main() { os.Exit(run(os.Args[1:])) }

type options struct {
	sessionID string // --session-id
	resume    string // --resume / -r
	prompt    string // positional
	hasPrompt bool
}

// parseArgs accepts the flags Reprise uses (AGENTS.md's catalog row:
// --resume <id>, --session-id <id>, the prompt positional) and rejects
// the rest.
func parseArgs(args []string) (options, error) {
	var o options
	var err error
	o.prompt, o.hasPrompt, err = fake.ParseArgs(args, argErrors, func(name string, value func() (string, error)) (bool, error) {
		var err error
		switch name {
		case "--session-id":
			o.sessionID, err = value()
		case "--resume", "-r":
			o.resume, err = value()
		default:
			return false, nil
		}
		return true, err
	})
	return o, err
}

// argErrors are the real CLI's (yargs') words for bad arguments.
// They are printed as they are, capitals included.
var argErrors = fake.ArgErrors{
	TooMany: func(a string) error {
		//lint:ignore ST1005 the real CLI's own words
		return fmt.Errorf("Unknown argument: %s", a)
	},
	MissingValue: func(name string) error {
		//lint:ignore ST1005 the real CLI's own words
		return fmt.Errorf("Not enough arguments following: %s", strings.TrimLeft(name, "-"))
	},
	Unknown: func(_, name string) error {
		//lint:ignore ST1005 the real CLI's own words
		return fmt.Errorf("Unknown argument: %s", strings.TrimLeft(name, "-"))
	},
}

type gemini struct {
	cwd    string
	id     string
	chat   *fake.GeminiChat
	hooks  fake.HookConfig
	runner *fake.Runner
	screen *fake.Screen
	exit   *fake.Exiter
}

func run(args []string) int {
	if err := fake.LogStart(); err != nil {
		fmt.Fprintf(os.Stderr, "fake gemini: start log: %v\n", err)
	}
	opts, err := parseArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if opts.sessionID != "" && opts.resume != "" {
		// AGENTS.md does not say what the pair does; Reprise never sends
		// both, and the fake refuses rather than guess.
		fmt.Fprintln(os.Stderr, "fake gemini: --session-id and --resume together are not faked")
		return 1
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		return 1
	}
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		return 1
	}
	settings, err := fake.GeminiSettingsPath()
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		return 1
	}
	hooks, err := fake.LoadGeminiHooks(settings)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error in %v\n", err)
		return 1
	}
	g := &gemini{
		cwd:    cwd,
		hooks:  hooks,
		runner: &fake.Runner{Env: fake.GeminiHookEnv(os.Environ())},
		screen: fake.NewScreen(os.Stdout),
		exit:   fake.NewExiter(),
	}
	source := "startup"
	var history []fake.Message
	switch {
	case opts.resume != "":
		chat, msgs, ok, err := fake.FindGeminiChat(home, cwd, opts.resume)
		if err != nil {
			fmt.Fprintf(os.Stderr, "Error: %v\n", err)
			return 1
		}
		if !ok || !chat.HasReply() {
			// Seen with the real CLI for a session with no model reply
			// (conformance/gemini_test.go); AGENTS.md says only that such a
			// session is not resumable. An unknown id answers the same here.
			fmt.Fprintln(os.Stderr, "No previous sessions found for this project.")
			return 42
		}
		g.id, g.chat, history, source = opts.resume, chat, msgs, "resume"
	case opts.sessionID != "":
		if !fake.ValidGeminiID(opts.sessionID) {
			fmt.Fprintf(os.Stderr, "fake gemini: session id %q is not one the fake takes\n", opts.sessionID)
			return 1
		}
		g.id = opts.sessionID
	default:
		g.id = fake.NewUUIDv4()
	}
	if g.chat == nil {
		g.chat = &fake.GeminiChat{Path: fake.GeminiChatPath(home, cwd, time.Now(), g.id), SessionID: g.id, Cwd: cwd}
	}

	g.handleSignals()
	g.screen.Printf("Gemini CLI (fake)\n  cwd: %s\n  session: %s\n\n", cwd, g.id)
	g.screen.PrintHistory(history, ">", "✦")
	// SessionStart runs at launch (AGENTS.md: "SessionStart at launch").
	g.fire(fake.SessionStart, source, map[string]any{"source": source})
	if opts.hasPrompt {
		g.screen.Printf("> %s\n", opts.prompt)
		g.turn(opts.prompt)
	}
	repl := &fake.REPL{
		Exiter: g.exit,
		Ready:  func() { g.screen.Printf("\n> %s\n", readyMarker) },
		Line:   g.line,
		EOF:    func() { g.exit.Exit(0, g.goodbye) },
	}
	repl.Run(os.Stdin)
	return 0
}

// handleSignals: SessionEnd runs on SIGHUP, SIGTERM and SIGINT (AGENTS.md),
// and on SIGHUP the exit status is 0. AGENTS.md gives the status and the
// count only for SIGHUP; the fake does the same on the other two.
func (g *gemini) handleSignals() {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for range ch {
			go g.exit.Exit(0, g.goodbye)
		}
	}()
}

// fire runs the matching handlers of event with Gemini's payload. The
// fields beyond the event's own are the ones the conformance suite saw
// the real CLI send (conformance/RESULTS.md: cwd, session_id, timestamp,
// transcript_path, hook_event_name). The handler's environment has
// GEMINI_SESSION_ID and none of the secret-looking variables.
func (g *gemini) fire(event, target string, fields map[string]any) {
	payload := map[string]any{
		"session_id":      g.id,
		"transcript_path": g.chat.Path,
		"cwd":             g.cwd,
		"hook_event_name": event,
		"timestamp":       time.Now().UTC().Format(time.RFC3339Nano),
	}
	for k, v := range fields {
		payload[k] = v
	}
	g.runner.Run(context.Background(), g.hooks.Matching(event, target), payload, "GEMINI_SESSION_ID="+g.id)
}

// goodbye is the last words of every exit (the Exiter runs it once):
// SessionEnd "exit" three times, then a chat without a model reply is
// deleted (AGENTS.md: "a session with no model reply is deleted at exit").
func (g *gemini) goodbye() {
	for range sessionEndRuns {
		g.fire(fake.SessionEnd, "exit", map[string]any{"reason": "exit"})
	}
	if !g.chat.HasReply() {
		_ = os.Remove(g.chat.Path)
	}
}

func (g *gemini) line(line string) {
	if !strings.HasPrefix(line, "/") {
		g.turn(line)
		return
	}
	switch cmd := strings.Fields(line)[0]; cmd {
	case "/quit":
		g.exit.Exit(0, g.goodbye)
	default:
		// /clear (SessionStart "clear") is in AGENTS.md's sources, but not
		// what it does to the session id: not faked.
		g.screen.Printf("Unknown command: %s\n", cmd)
	}
}

// turn is one prompt: BeforeAgent with the prompt, the prompt on disk, the
// reply on screen and on disk, then AfterAgent with the prompt and the
// reply (prompt_response, stop_hook_active: seen with the real CLI,
// conformance/RESULTS.md).
func (g *gemini) turn(prompt string) {
	g.fire(fake.BeforeAgent, "", map[string]any{"prompt": prompt})
	if err := g.chat.Append(fake.Message{Role: "user", Text: prompt}); err != nil {
		fmt.Fprintf(os.Stderr, "fake gemini: chat: %v\n", err)
	}
	reply := "ack: " + prompt
	g.screen.Printf("✦ %s\n", reply)
	if err := g.chat.Append(fake.Message{Role: "assistant", Text: reply}); err != nil {
		fmt.Fprintf(os.Stderr, "fake gemini: chat: %v\n", err)
	}
	g.fire(fake.AfterAgent, "", map[string]any{"prompt": prompt, "prompt_response": reply, "stop_hook_active": false})
}
