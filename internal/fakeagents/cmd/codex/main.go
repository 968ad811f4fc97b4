// Command codex is a fake Codex CLI for tests: it keeps the Codex contracts
// Reprise relies on (root flags before the resume subcommand, trusted
// hooks.json, lazy SessionStart, notify, rollouts written after the first
// turn, no hook on SIGHUP) without a model. Every prompt is answered
// "ack: <prompt>".
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
)

// readyMarker is the composer's placeholder, shown whenever codex waits.
const readyMarker = "› Ask Codex to do anything"

func main() { os.Exit(run(os.Args[1:])) }

type options struct {
	bypassTrust bool   // --dangerously-bypass-hook-trust
	resume      string // resume <id>
	prompt      string
	hasPrompt   bool
}

// parseArgs reads `codex [root flags…] [resume <id>] [--] [PROMPT]`. Root
// flags go before the subcommand; after `resume <id>` only the prompt may
// follow.
func parseArgs(args []string) (options, error) {
	var o options
	inResume := false
	positional := func(a string) error {
		if o.hasPrompt {
			return fmt.Errorf("unexpected argument '%s' found", a)
		}
		o.prompt, o.hasPrompt = a, true
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for _, p := range args[i+1:] {
				if err := positional(p); err != nil {
					return o, err
				}
			}
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			if inResume {
				return o, fmt.Errorf("unexpected argument '%s' found (root flags go before 'resume')", a)
			}
			name, inline, hasInline := strings.Cut(a, "=")
			value := func() (string, error) {
				if hasInline {
					return inline, nil
				}
				if i+1 >= len(args) {
					return "", fmt.Errorf("a value is required for '%s <VALUE>' but none was supplied", name)
				}
				i++
				return args[i], nil
			}
			switch name {
			case "--no-daemon":
			case "--dangerously-bypass-hook-trust":
				o.bypassTrust = true
			case "-c", "--config":
				v, err := value()
				if err != nil {
					return o, err
				}
				if !strings.Contains(v, "=") {
					return o, fmt.Errorf("invalid value '%s' for '--config <key=value>'", v)
				}
			case "--disable", "--enable", "--model", "-m":
				if _, err := value(); err != nil {
					return o, err
				}
			default:
				return o, fmt.Errorf("unexpected argument '%s' found", a)
			}
			continue
		}
		switch {
		case a == "resume" && !inResume && !o.hasPrompt:
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return o, errors.New("resume: a session id is required")
			}
			i++
			o.resume, inResume = args[i], true
		default:
			if err := positional(a); err != nil {
				return o, err
			}
		}
	}
	return o, nil
}

type codex struct {
	home         string
	cwd          string
	id           string
	hooks        fake.HookConfig // empty when not trusted
	notify       []string
	noSessionEnd bool
	runner       *fake.Runner
	screen       *fake.Screen
	exit         *fake.Exiter
	rollout      *fake.CodexRollout

	mu      sync.Mutex // guards started
	started bool       // SessionStart has fired: hooks know the id
	source  string     // the SessionStart source: startup or resume
}

func run(args []string) int {
	if err := fake.LogStart(); err != nil {
		fmt.Fprintf(os.Stderr, "fake codex: start log: %v\n", err)
	}
	opts, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n\nUsage: codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] resume <SESSION_ID> [PROMPT]\n", err)
		return 2
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		return 1
	}
	home, err := fake.CodexHome()
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		return 1
	}
	c := &codex{
		home:         home,
		cwd:          cwd,
		noSessionEnd: os.Getenv("FAKE_CODEX_NO_SESSIONEND") == "1",
		runner:       &fake.Runner{},
		screen:       fake.NewScreen(os.Stdout),
		exit:         fake.NewExiter(),
		source:       "startup",
		hooks:        fake.HookConfig{},
	}

	var history []fake.Message
	if opts.resume != "" {
		path, err := fake.FindCodexRollout(home, opts.resume)
		switch {
		case errors.Is(err, fake.ErrNoRollout) && fake.IsUUID(opts.resume) &&
			fileExists(fake.CodexThreadMarker(home, strings.ToLower(opts.resume))):
			fmt.Fprintf(os.Stderr, "Error: no rollout found for thread id %s\n", opts.resume)
			return 1
		case errors.Is(err, fake.ErrNoRollout):
			fmt.Fprintf(os.Stderr, "Error: No saved session found with ID %s\n", opts.resume)
			return 1
		case err != nil:
			fmt.Fprintf(os.Stderr, "Error: %v\n", err)
			return 1
		}
		r, msgs, err := fake.ReadCodexRollout(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "Error: %v\n", err)
			return 1
		}
		c.id, c.rollout, c.source, history = r.ThreadID, r, "resume", msgs
	} else {
		start := time.Now()
		c.id = fake.NewUUIDv7(start)
		c.rollout = &fake.CodexRollout{
			Path: fake.CodexRolloutPath(home, start, c.id), ThreadID: c.id, Cwd: cwd, Start: start,
		}
		marker := fake.CodexThreadMarker(home, c.id)
		if err := os.MkdirAll(filepath.Dir(marker), 0o755); err == nil {
			_ = os.WriteFile(marker, nil, 0o644)
		}
	}

	fake.HandleSignals(func() { c.exit.Exit(129, nil) }) // no hook on SIGHUP
	c.screen.Printf(">_ OpenAI Codex (fake)\n\nmodel:     fake\ndirectory: %s\nsession: %s\n\n", cwd, c.id)
	c.loadHooks(opts.bypassTrust)
	c.loadNotify()
	c.screen.PrintHistory(history, "›", "●")
	if opts.hasPrompt {
		c.screen.Printf("› %s\n", opts.prompt)
		c.turn(opts.prompt)
	}
	repl := &fake.REPL{
		Exiter: c.exit,
		Ready:  func() { c.screen.Printf("\n%s\n", readyMarker) },
		Line:   c.line,
		EOF:    func() { c.exit.Exit(0, c.quit) },
	}
	repl.Run(os.Stdin)
	return 0
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// loadHooks reads hooks.json and keeps it only if trusted.
func (c *codex) loadHooks(bypassTrust bool) {
	path := fake.CodexHooksPath(c.home)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		c.screen.Printf("⚠ failed to read hooks: %v\n", err)
		return
	}
	cfg, err := fake.ParseHookFile(data)
	if err != nil {
		c.screen.Printf("⚠ failed to parse %s: %v\n", path, err)
		return
	}
	if cfg.Len() == 0 {
		return
	}
	if !bypassTrust && !fake.CodexHooksTrusted(c.home, data) {
		c.screen.Println("⚠ hooks not trusted; skipping")
		return
	}
	c.hooks = cfg
}

// loadNotify reads the top-level notify program from config.toml.
func (c *codex) loadNotify() {
	data, err := os.ReadFile(filepath.Join(c.home, "config.toml"))
	if err != nil {
		return
	}
	argv, err := fake.ParseNotify(string(data))
	if err != nil {
		c.screen.Printf("⚠ config.toml: %v\n", err)
		return
	}
	c.notify = argv
}

// fire runs the matching handlers of event with Codex's payload and returns
// what they did.
func (c *codex) fire(event, target string, fields map[string]any) []fake.Result {
	payload := map[string]any{
		"session_id":      c.id,
		"transcript_path": c.rollout.Path,
		"cwd":             c.cwd,
		"hook_event_name": event,
	}
	for k, v := range fields {
		payload[k] = v
	}
	return c.runner.Run(context.Background(), c.hooks.Matching(event, target), payload, "CODEX_THREAD_ID="+c.id)
}

func (c *codex) line(line string) {
	if !strings.HasPrefix(line, "/") {
		c.turn(line)
		return
	}
	switch cmd := strings.Fields(line)[0]; cmd {
	case "/quit", "/exit":
		c.exit.Exit(0, c.quit)
	default:
		c.screen.Printf("Unrecognized command '%s'. Type \"/\" for a list of supported commands.\n", cmd)
	}
}

// quit is the last words of a clean exit: SessionEnd, if the hooks ever saw
// this session and this Codex is recent enough to have one.
func (c *codex) quit() {
	c.mu.Lock()
	started := c.started
	c.mu.Unlock()
	if started && !c.noSessionEnd {
		c.fire(fake.SessionEnd, "other", map[string]any{"reason": "other"})
	}
	if c.rollout.Exists() {
		c.screen.Printf("\nTo continue this session, run codex resume %s\n", c.id)
	}
}

// turn is one prompt. SessionStart is lazy: it fires with the first prompt
// of the process. The rollout is written when the turn completes, then Stop
// runs, then notify.
func (c *codex) turn(prompt string) {
	c.mu.Lock()
	first := !c.started
	c.started = true
	c.mu.Unlock()
	if first {
		c.fire(fake.SessionStart, c.source, map[string]any{"source": c.source})
	}
	turnID := fake.NewUUIDv7(time.Now())
	c.fire(fake.UserPromptSubmit, "", map[string]any{"prompt": prompt, "turn_id": turnID})
	reply := "ack: " + prompt
	c.screen.Printf("● %s\n", reply)
	if err := c.rollout.Append(fake.Message{Role: "user", Text: prompt}, fake.Message{Role: "assistant", Text: reply}); err != nil {
		fmt.Fprintf(os.Stderr, "fake codex: rollout: %v\n", err)
	}
	for _, r := range c.fire(fake.Stop, "", map[string]any{
		"turn_id": turnID, "stop_hook_active": false, "last_assistant_message": reply,
	}) {
		out := bytes.TrimSpace(r.Stdout)
		if r.Err == nil && len(out) > 0 && !json.Valid(out) {
			c.screen.Println("⚠ Stop hook returned invalid JSON")
		}
	}
	c.runNotify(turnID, prompt, reply)
}

// runNotify starts the notify program with the JSON as its last argument
// and does not wait for it, as Codex does.
func (c *codex) runNotify(turnID, prompt, reply string) {
	if len(c.notify) == 0 {
		return
	}
	msg, err := json.Marshal(map[string]any{
		"type":                   "agent-turn-complete",
		"thread-id":              c.id,
		"turn-id":                turnID,
		"cwd":                    c.cwd,
		"input-messages":         []string{prompt},
		"last-assistant-message": reply,
	})
	if err != nil {
		return
	}
	argv := append(append([]string(nil), c.notify[1:]...), string(msg))
	cmd := exec.Command(c.notify[0], argv...)
	cmd.Env = append(os.Environ(), "CODEX_THREAD_ID="+c.id)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "fake codex: notify: %v\n", err)
		return
	}
	go func() { _ = cmd.Wait() }()
}
