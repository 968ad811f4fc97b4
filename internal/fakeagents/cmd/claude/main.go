// Command claude is a fake Claude Code for tests: it keeps Claude Code's
// contracts that Reprise relies on (flags, hook config and payloads, the
// transcript and registry files, /exit, /clear, the SIGHUP death gasp)
// without a model. Every prompt is answered "ack: <prompt>".
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
)

// sessionEndBudget is the time all SessionEnd handlers share.
const sessionEndBudget = 1500 * time.Millisecond

// readyMarker is what the real CLI shows under its input box when idle.
const readyMarker = "? for shortcuts"

func main() { os.Exit(run(os.Args[1:])) }

type options struct {
	sessionID string // --session-id
	resume    string // --resume / -r
	settings  string // --settings
	prompt    string // positional
	hasPrompt bool
}

// parseArgs accepts the flags Reprise uses and rejects the rest, as the
// real CLI's option parser does.
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
		case "--settings":
			o.settings, err = value()
		case "--dangerously-skip-permissions":
		default:
			return false, nil
		}
		return true, err
	})
	return o, err
}

// argErrors are the real CLI's (commander's) words for bad arguments.
var argErrors = fake.ArgErrors{
	TooMany:      func(a string) error { return fmt.Errorf("too many arguments: %q", a) },
	MissingValue: func(name string) error { return fmt.Errorf("option '%s <value>' argument missing", name) },
	Unknown:      func(a, _ string) error { return fmt.Errorf("unknown option '%s'", a) },
}

type claude struct {
	cwd       string
	configDir string
	hooks     fake.HookConfig
	runner    *fake.Runner
	screen    *fake.Screen
	exit      *fake.Exiter
	subagent  bool

	mu         sync.Mutex // guards the fields below
	id         string
	transcript *fake.ClaudeTranscript

	// pending, when set, takes the next line: a "hold " or "ask " turn
	// waiting for the user. Only the REPL goroutine touches it.
	pending func(line string)
}

func run(args []string) int {
	if err := fake.LogStart(); err != nil {
		fmt.Fprintf(os.Stderr, "fake claude: start log: %v\n", err)
	}
	opts, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		return 1
	}
	if opts.sessionID != "" && opts.resume != "" {
		fmt.Fprintln(os.Stderr, "Error: --session-id can only be used with --continue or --resume if --fork-session is also specified.")
		return 1
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		return 1
	}
	configDir, err := fake.ClaudeConfigDir()
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		return 1
	}
	hooks, warnings, err := fake.LoadClaudeHooks(configDir, cwd, opts.settings)
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, w)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		return 1
	}
	c := &claude{
		cwd:       cwd,
		configDir: configDir,
		hooks:     hooks,
		runner:    &fake.Runner{},
		screen:    fake.NewScreen(os.Stdout),
		exit:      fake.NewExiter(),
		subagent:  os.Getenv("FAKE_CLAUDE_SUBAGENT") == "1",
	}

	source := "startup"
	var history []fake.Message
	switch {
	case opts.resume != "":
		if !fake.ClaudeTranscriptExists(configDir, cwd, opts.resume) {
			// The real CLI fails after starting up under a throwaway id: its
			// exit runs SessionEnd for that id, and no SessionStart ever ran.
			c.setSession(fake.NewUUIDv4(), nil)
			fmt.Fprintf(os.Stderr, "No conversation found with session ID: %s\n", opts.resume)
			c.sessionEnd("other")
			return 1
		}
		msgs, t, err := fake.ReadClaudeTranscript(fake.ClaudeTranscriptPath(configDir, cwd, opts.resume))
		if err != nil {
			fmt.Fprintf(os.Stderr, "Error: %v\n", err)
			return 1
		}
		t.SessionID, t.Cwd = opts.resume, cwd
		c.setSession(opts.resume, t)
		history, source = msgs, "resume"
	case opts.sessionID != "":
		opts.sessionID = strings.ToLower(opts.sessionID)
		if !fake.IsUUID(opts.sessionID) {
			fmt.Fprintln(os.Stderr, "Error: Invalid session ID. Must be a valid UUID.")
			return 1
		}
		if fake.ClaudeTranscriptExists(configDir, cwd, opts.sessionID) {
			fmt.Fprintf(os.Stderr, "Error: Session ID %s is already in use.\n", opts.sessionID)
			return 1
		}
		c.setSession(opts.sessionID, nil)
	default:
		c.setSession(fake.NewUUIDv4(), nil)
	}

	c.register()
	fake.HandleSignals(c.hangup)
	c.screen.Printf("✻ Welcome to Claude Code (fake)\n  cwd: %s\n\n", cwd)
	c.screen.PrintHistory(history, ">", "●")
	c.fire(context.Background(), fake.SessionStart, source, map[string]any{"source": source})
	if opts.hasPrompt {
		c.screen.Printf("> %s\n", opts.prompt)
		c.turn(opts.prompt)
	}
	repl := &fake.REPL{
		Exiter: c.exit,
		Ready:  func() { c.screen.Printf("\n%s\n> ", readyMarker) },
		Line:   c.line,
		EOF:    func() { c.exit.Exit(0, func() { c.quit("prompt_input_exit") }) },
	}
	repl.Run(os.Stdin)
	return 0
}

// setSession switches to session id.
func (c *claude) setSession(id string, t *fake.ClaudeTranscript) {
	if t == nil {
		t = &fake.ClaudeTranscript{Path: fake.ClaudeTranscriptPath(c.configDir, c.cwd, id), SessionID: id, Cwd: c.cwd}
	}
	c.mu.Lock()
	c.id, c.transcript = id, t
	c.mu.Unlock()
}

// register writes the registry file that maps this process to its session.
func (c *claude) register() {
	id, _ := c.session()
	reg := fake.ClaudeRegistry{PID: os.Getpid(), SessionID: id, Cwd: c.cwd}
	if err := fake.WriteClaudeRegistry(c.configDir, reg); err != nil {
		fmt.Fprintf(os.Stderr, "fake claude: registry: %v\n", err)
	}
}

func (c *claude) session() (string, *fake.ClaudeTranscript) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.id, c.transcript
}

// fire runs the handlers of event that match target, with Claude's payload
// and environment. Their output is discarded: Claude would feed it to the
// model.
func (c *claude) fire(ctx context.Context, event, target string, fields map[string]any) {
	id, t := c.session()
	payload := map[string]any{
		"session_id":      id,
		"transcript_path": t.Path,
		"cwd":             c.cwd,
		"hook_event_name": event,
	}
	if c.subagent {
		payload["agent_id"] = "sub-1"
	}
	for k, v := range fields {
		payload[k] = v
	}
	c.runner.Run(ctx, c.hooks.Matching(event, target), payload,
		"CLAUDE_CODE_SESSION_ID="+id, "CLAUDE_PROJECT_DIR="+c.cwd)
}

func (c *claude) sessionEnd(reason string) {
	ctx, cancel := context.WithTimeout(context.Background(), sessionEndBudget)
	defer cancel()
	c.fire(ctx, fake.SessionEnd, reason, map[string]any{"reason": reason})
}

// quit is the last words of a clean exit.
func (c *claude) quit(reason string) {
	c.sessionEnd(reason)
	_ = os.Remove(fake.ClaudeRegistryPath(c.configDir, os.Getpid()))
}

// hangup is the death gasp: SessionEnd, then the resume hint, exit 129.
func (c *claude) hangup() {
	c.exit.Exit(129, func() {
		c.sessionEnd("other")
		id, _ := c.session()
		c.screen.Printf("\nResume this session with: claude --resume %s\n", id)
		_ = os.Remove(fake.ClaudeRegistryPath(c.configDir, os.Getpid()))
	})
}

func (c *claude) line(line string) {
	if p := c.pending; p != nil {
		c.pending = nil
		p(line)
		return
	}
	if !strings.HasPrefix(line, "/") {
		c.turn(line)
		return
	}
	switch cmd := strings.Fields(line)[0]; cmd {
	case "/exit", "/quit":
		c.exit.Exit(0, func() { c.quit("prompt_input_exit") })
	case "/clear":
		c.sessionEnd("clear")
		c.setSession(fake.NewUUIDv4(), nil)
		c.register()
		c.fire(context.Background(), fake.SessionStart, "clear", map[string]any{"source": "clear"})
		c.screen.Println("⎿  (no content)")
	default:
		c.screen.Printf("Unknown slash command: %s\n", strings.TrimPrefix(cmd, "/"))
	}
}

// turn is one prompt: on disk before UserPromptSubmit, then the reply,
// then Stop.
func (c *claude) turn(prompt string) {
	_, t := c.session()
	if err := t.Append(fake.Message{Role: "user", Text: prompt}); err != nil {
		fmt.Fprintf(os.Stderr, "fake claude: transcript: %v\n", err)
	}
	c.fire(context.Background(), fake.UserPromptSubmit, "", map[string]any{"prompt": prompt})
	switch {
	case strings.HasPrefix(prompt, "hold "):
		// The turn runs until the next line.
		c.screen.Println("● holding")
		c.pending = func(string) { c.reply(prompt) }
		return
	case strings.HasPrefix(prompt, "ask "):
		// A tool needs permission: Notification, then the answer runs the
		// tool (PostToolUse) and the turn goes on until the next line.
		c.fire(context.Background(), fake.Notification, "permission_prompt", map[string]any{
			"notification_type": "permission_prompt", "message": "Claude needs your permission to use Bash"})
		c.screen.Println("Do you want to proceed?")
		c.pending = func(string) {
			c.fire(context.Background(), fake.PostToolUse, "Bash", map[string]any{"tool_name": "Bash"})
			c.screen.Println("● ran Bash")
			c.pending = func(string) { c.reply(prompt) }
		}
		return
	case strings.HasPrefix(prompt, "fail "):
		// The API call fails: no reply, StopFailure instead of Stop.
		c.screen.Println("⎿  API Error: 529 Overloaded")
		c.fire(context.Background(), fake.StopFailure, "", map[string]any{"error": "overloaded_error"})
		return
	}
	c.reply(prompt)
}

// reply ends a turn: the answer, then Stop.
func (c *claude) reply(prompt string) {
	_, t := c.session()
	reply := "ack: " + prompt
	if err := t.Append(fake.Message{Role: "assistant", Text: reply}); err != nil {
		fmt.Fprintf(os.Stderr, "fake claude: transcript: %v\n", err)
	}
	c.screen.Printf("● %s\n", reply)
	c.fire(context.Background(), fake.Stop, "", map[string]any{"stop_hook_active": false})
}
