package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"time"
)

// Hook events the fakes fire.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
	SessionEnd       = "SessionEnd"
	PostToolUse      = "PostToolUse"  // claude: "ask " turns, after the answer
	Notification     = "Notification" // claude: "ask " turns, the permission prompt
	StopFailure      = "StopFailure"  // claude: "fail " turns, instead of Stop
	BeforeAgent      = "BeforeAgent"  // gemini: a turn starts (the prompt)
	AfterAgent       = "AfterAgent"   // gemini: a turn ends (the reply)
)

// Handler is one hook handler: {"type":"command","command":"…","timeout":N}.
type Handler struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout,omitempty"` // seconds; 0 means the runner's default
}

// MatcherGroup is one entry of an event's list: handlers behind a matcher.
type MatcherGroup struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Handler `json:"hooks"`
}

// HookConfig maps an event name to its matcher groups, in the shape Claude
// Code and Codex share: the value of the top-level "hooks" key.
type HookConfig map[string][]MatcherGroup

// ParseHookFile parses a settings or hooks.json document and returns its
// "hooks" object. Other keys are ignored; a document without hooks is an
// empty config.
func ParseHookFile(data []byte) (HookConfig, error) {
	var doc struct {
		Hooks HookConfig `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Hooks == nil {
		doc.Hooks = HookConfig{}
	}
	return doc.Hooks, nil
}

// LoadHookFile reads and parses path. A missing file is an empty config and
// no error.
func LoadHookFile(path string) (HookConfig, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return HookConfig{}, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := ParseHookFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Merge concatenates the groups of every config, event by event, in order:
// entries from all levels apply (Claude's merge rule).
func Merge(configs ...HookConfig) HookConfig {
	out := HookConfig{}
	for _, c := range configs {
		for ev, groups := range c {
			out[ev] = append(out[ev], groups...)
		}
	}
	return out
}

// Len counts the command handlers of all events.
func (c HookConfig) Len() int {
	n := 0
	for _, groups := range c {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if h.Type == "command" {
					n++
				}
			}
		}
	}
	return n
}

// Matching returns the command handlers of event whose matcher matches
// target, each command string once (identical handlers from several levels
// run once; the first one's timeout wins). target is the SessionStart source
// or the SessionEnd reason; "" for events without matchers, where every group
// matches.
func (c HookConfig) Matching(event, target string) []Handler {
	var out []Handler
	seen := map[string]bool{}
	for _, g := range c[event] {
		if target != "" && !MatcherMatches(g.Matcher, target) {
			continue
		}
		for _, h := range g.Hooks {
			if h.Type != "command" || h.Command == "" || seen[h.Command] {
				continue
			}
			seen[h.Command] = true
			out = append(out, h)
		}
	}
	return out
}

// MatcherMatches applies Claude's matcher rule: "" and "*" match everything;
// otherwise the matcher is a regular expression that must match the whole
// value ("startup|resume" works), or, if it does not compile, a literal.
func MatcherMatches(matcher, value string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	re, err := regexp.Compile(`^(?:` + matcher + `)$`)
	if err != nil {
		return matcher == value
	}
	return re.MatchString(value)
}

// Result is what one handler did. Output is never shown to the user.
type Result struct {
	Command string
	Stdout  []byte
	Err     error // nil when it exited 0 in time
}

// Runner runs hook handlers the way the real CLIs do: /bin/sh -c command,
// payload JSON on stdin, the agent's environment plus extra variables,
// output captured and not shown, failures ignored.
type Runner struct {
	Env            []string      // base environment; nil means os.Environ()
	DefaultTimeout time.Duration // for handlers without a timeout; 0 means 60 s
}

// Run runs handlers in parallel (as Claude does) and waits for all of them.
// Each is bounded by its own timeout and by ctx, which carries any shared
// budget (Claude's SessionEnd). A handler that times out is killed with its
// process group.
func (r *Runner) Run(ctx context.Context, handlers []Handler, payload any, extraEnv ...string) []Result {
	if len(handlers) == 0 {
		return nil
	}
	stdin, err := json.Marshal(payload)
	if err != nil {
		return []Result{{Err: fmt.Errorf("encode payload: %w", err)}}
	}
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	// Later entries win in os/exec, so the extras override inherited values.
	env = append(append([]string(nil), env...), extraEnv...)
	results := make([]Result, len(handlers))
	var wg sync.WaitGroup
	for i, h := range handlers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.runOne(ctx, h, stdin, env)
		}()
	}
	wg.Wait()
	return results
}

func (r *Runner) runOne(ctx context.Context, h Handler, stdin []byte, env []string) Result {
	timeout := r.DefaultTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	if h.Timeout > 0 {
		timeout = time.Duration(h.Timeout * float64(time.Second))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var stdout bytes.Buffer
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", h.Command)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout = &stdout
	// Own process group: a timeout kills the shell and what it started, and
	// a Ctrl-C on the agent's terminal does not reach the hook.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A background grandchild holding stdout must not hold the agent.
	cmd.WaitDelay = 200 * time.Millisecond
	err := cmd.Run()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return Result{Command: h.Command, Stdout: stdout.Bytes(), Err: err}
}
