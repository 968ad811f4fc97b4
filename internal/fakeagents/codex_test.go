package fakeagents_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
)

var codexFlags = []string{"--no-daemon", "--dangerously-bypass-hook-trust", "--disable", "unbounded_connection_retries", "-c", "check_for_update_on_startup=false"}

func (w *world) codexHome() string { return filepath.Join(w.home, ".codex") }

// codexWorld is a world whose ~/.codex/hooks.json has the logging hook.
func codexWorld(t *testing.T) *world {
	w := newWorld(t)
	w.write(fake.CodexHooksPath(w.codexHome()), hookConfig(hookCommand))
	return w
}

var bannerID = regexp.MustCompile(`session: ([0-9a-f-]{36})`)

// startCodex starts codex and returns it with the thread id from its banner,
// once it is ready (after the turn of a prompt on argv).
func (w *world) startCodex(args ...string) (*agent, string) {
	w.t.Helper()
	a := w.start("codex", args...)
	a.expect("Ask Codex to do anything")
	m := bannerID.FindStringSubmatch(a.output())
	if m == nil {
		w.t.Fatalf("no session id in the banner:\n%s", a.output())
	}
	return a, m[1]
}

func TestCodexLazySessionStart(t *testing.T) {
	w := codexWorld(t)
	a, id := w.startCodex(codexFlags...)
	if fake.UUIDVersion(id) != 7 {
		t.Errorf("thread id %s is not a UUIDv7", id)
	}
	time.Sleep(100 * time.Millisecond)
	if evs := w.events(); len(evs) != 0 {
		t.Fatalf("hooks before the first prompt: %q", names(evs))
	}
	if _, err := fake.FindCodexRollout(w.codexHome(), id); !errors.Is(err, fake.ErrNoRollout) {
		t.Fatalf("rollout before the first turn: %v", err)
	}

	a.send("remember KIWI")
	a.expect("● ack: remember KIWI")
	a.expect("Ask Codex to do anything")
	evs := w.events()
	if want := []string{"SessionStart:startup", "UserPromptSubmit", "Stop"}; !equal(names(evs), want) {
		t.Fatalf("events %q, want %q", names(evs), want)
	}
	for _, e := range evs {
		if e.id() != id || e.EnvThreadID != id || e.str("cwd") != w.cwd {
			t.Errorf("%s: payload %v, CODEX_THREAD_ID %q; want thread %s", e.name(), e.Payload, e.EnvThreadID, id)
		}
	}
	if turn := evs[1].str("turn_id"); turn == "" || evs[2].str("turn_id") != turn || evs[1].str("prompt") != "remember KIWI" {
		t.Errorf("UserPromptSubmit %v, Stop %v", evs[1].Payload, evs[2].Payload)
	}
	path, err := fake.FindCodexRollout(w.codexHome(), id)
	if err != nil {
		t.Fatalf("no rollout after the first turn: %v", err)
	}
	if want := filepath.Join(w.codexHome(), "sessions") + "/"; !strings.HasPrefix(path, want) || !regexp.MustCompile(`/\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-`+id+`\.jsonl$`).MatchString(path) {
		t.Errorf("rollout path %s", path)
	}

	a.send("second")
	a.expect("● ack: second")
	a.expect("Ask Codex to do anything")
	if want := []string{"SessionStart:startup", "UserPromptSubmit", "Stop", "UserPromptSubmit", "Stop"}; !equal(names(w.events()), want) {
		t.Errorf("events %q, want one SessionStart only: %q", names(w.events()), want)
	}
	a.send("/quit")
	if code := a.wait(); code != 0 {
		t.Errorf("/quit: status %d", code)
	}
	evs = w.events()
	if last := evs[len(evs)-1]; last.name() != "SessionEnd" || last.str("reason") != "other" || last.id() != id {
		t.Errorf("after /quit: %q", names(evs))
	}
	if !strings.Contains(a.output(), "codex resume "+id) {
		t.Errorf("no resume hint:\n%s", a.output())
	}
}

func TestCodexExitWithoutSessionEnd(t *testing.T) {
	tests := []struct {
		name, line string
		sig        syscall.Signal
		env        string
		code       int
	}{
		{name: "SIGHUP", sig: syscall.SIGHUP, code: 129},
		{name: "SIGTERM", sig: syscall.SIGTERM, code: 143},
		{name: "old codex /quit", line: "/quit", env: "FAKE_CODEX_NO_SESSIONEND=1", code: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := codexWorld(t)
			if tt.env != "" {
				w.env = append(w.env, tt.env)
			}
			a, _ := w.startCodex(append(codexFlags, "--", "hello")...)
			if !strings.Contains(a.output(), "● ack: hello") {
				t.Fatalf("no reply to the prompt on argv:\n%s", a.output())
			}
			if tt.sig != 0 {
				a.signal(tt.sig)
			} else {
				a.send(tt.line)
			}
			if code := a.wait(); code != tt.code {
				t.Errorf("status %d, want %d", code, tt.code)
			}
			if want := []string{"SessionStart:startup", "UserPromptSubmit", "Stop"}; !equal(names(w.events()), want) {
				t.Errorf("events %q, want no SessionEnd: %q", names(w.events()), want)
			}
		})
	}
}

func TestCodexResume(t *testing.T) {
	w := codexWorld(t)
	a, id := w.startCodex(append(codexFlags, "--", "remember LYCHEE")...)
	a.send("/quit")
	a.wait()

	n := len(w.events())
	b := w.start("codex", append(codexFlags, "resume", id)...)
	b.expect("LYCHEE")
	b.expect("Ask Codex to do anything")
	time.Sleep(50 * time.Millisecond)
	if evs := w.events()[n:]; len(evs) != 0 {
		t.Fatalf("hooks before the first prompt of the resumed session: %q", names(evs))
	}
	b.send("again")
	b.expect("● ack: again")
	b.expect("Ask Codex to do anything")
	evs := w.events()[n:]
	if want := []string{"SessionStart:resume", "UserPromptSubmit", "Stop"}; !equal(names(evs), want) || evs[0].id() != id {
		t.Errorf("resumed events %q for %s, want %q for %s", names(evs), evs[0].id(), want, id)
	}
	b.send("/quit")
	b.wait()
	path, _ := fake.FindCodexRollout(w.codexHome(), id)
	if _, msgs, err := fake.ReadCodexRollout(path); err != nil || len(msgs) != 4 {
		t.Errorf("rollout after resume: %+v, %v; want both turns in one file", msgs, err)
	}
}

func TestCodexResumeFailures(t *testing.T) {
	w := codexWorld(t)
	a, neverPrompted := w.startCodex(codexFlags...)
	a.send("/quit")
	a.wait()
	unknown := fake.NewUUIDv7(time.Now())
	tests := []struct{ id, want string }{
		{unknown, "Error: No saved session found with ID " + unknown},
		{neverPrompted, "no rollout found for thread id " + neverPrompted},
	}
	for _, tt := range tests {
		if code, out := w.run("codex", append(codexFlags, "resume", tt.id)...); code != 1 || !strings.Contains(out, tt.want) {
			t.Errorf("resume %s: status %d, output %q; want 1 and %q", tt.id, code, out, tt.want)
		}
	}
	if len(w.events()) != 0 {
		t.Errorf("hooks ran: %q", names(w.events()))
	}
}

func TestCodexHookTrust(t *testing.T) {
	tests := []struct {
		name    string
		bypass  bool
		trusted string // content of ~/.codex/trusted-hooks; "" for none
		run     bool
	}{
		{name: "untrusted", run: false},
		{name: "stale hash", trusted: strings.Repeat("0", 64) + "\n", run: false},
		{name: "trusted hash", trusted: "HASH\n", run: true},
		{name: "bypass flag", bypass: true, run: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := codexWorld(t)
			if tt.trusted != "" {
				hooks, _ := os.ReadFile(fake.CodexHooksPath(w.codexHome()))
				w.write(fake.CodexTrustPath(w.codexHome()), strings.ReplaceAll(tt.trusted, "HASH", fake.HashHooks(hooks)))
			}
			args := []string{"--no-daemon"}
			if tt.bypass {
				args = append(args, "--dangerously-bypass-hook-trust")
			}
			a, _ := w.startCodex(args...)
			a.send("hi")
			a.expect("● ack: hi")
			a.expect("Ask Codex to do anything")
			if got := len(w.events()) > 0; got != tt.run {
				t.Errorf("hooks ran: %v, want %v", got, tt.run)
			}
			if warned := strings.Contains(a.output(), "hooks not trusted; skipping"); warned == tt.run {
				t.Errorf("warning shown: %v, want %v", warned, !tt.run)
			}
		})
	}
}

func TestCodexNotifyAndStopOutput(t *testing.T) {
	w := newWorld(t)
	notifyLog := filepath.Join(t.TempDir(), "notify.log")
	w.write(filepath.Join(w.codexHome(), "config.toml"), `model = "fake"
notify = ["/bin/sh", "-c", "printf '%s\n' \"$1\" >> \"$NOTIFYLOG\"; printf '%s\n' \"$CODEX_THREAD_ID\" >> \"$NOTIFYLOG.env\"", "notify"]

[projects."/somewhere"]
trust_level = "trusted"
`)
	w.env = append(w.env, "NOTIFYLOG="+notifyLog)
	stop := func(cmd string) fake.MatcherGroup {
		return fake.MatcherGroup{Hooks: []fake.Handler{{Type: "command", Command: cmd}}}
	}
	hooks, _ := json.Marshal(map[string]any{"hooks": fake.HookConfig{fake.Stop: {stop("echo '{}'"), stop("true"), stop("echo not json")}}})
	w.write(fake.CodexHooksPath(w.codexHome()), string(hooks))

	a, id := w.startCodex(codexFlags...)
	a.send("ping")
	a.expect("● ack: ping")
	a.expect("Ask Codex to do anything")
	if n := strings.Count(a.output(), "Stop hook returned invalid JSON"); n != 1 {
		t.Errorf("invalid-JSON warnings: %d, want 1 (for the one bad Stop hook)", n)
	}

	var data []byte
	for deadline := time.Now().Add(patience); len(data) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, _ = os.ReadFile(notifyLog)
	}
	var msg map[string]any
	if err := json.Unmarshal(data, &msg); err != nil {
		t.Fatalf("notify argument %q: %v", data, err)
	}
	want := map[string]any{
		"type": "agent-turn-complete", "thread-id": id, "cwd": w.cwd,
		"input-messages": []any{"ping"}, "last-assistant-message": "ack: ping",
	}
	turnID, _ := msg["turn-id"].(string)
	delete(msg, "turn-id")
	if !reflect.DeepEqual(msg, want) || turnID == "" {
		t.Errorf("notify JSON %v (turn %q), want %v", msg, turnID, want)
	}
	if env, _ := os.ReadFile(notifyLog + ".env"); strings.TrimSpace(string(env)) != id {
		t.Errorf("CODEX_THREAD_ID for notify = %q", env)
	}
	a.send("/quit")
	a.wait()
}

func TestCodexArgs(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{
		{"--bogus"},
		{"resume"},
		{"resume", fake.NewUUIDv7(time.Now()), "--model", "m"}, // root flags go before resume
		{"-c", "no-equals-sign"},
		{"--", "one", "two"},
	} {
		if code, out := w.run("codex", args...); code != 2 {
			t.Errorf("codex %q: status %d, output %q; want 2", args, code, out)
		}
	}
	// The catalog's shape: root flags, resume <id>, then -- and the prompt.
	w = codexWorld(t)
	a, id := w.startCodex(append(codexFlags, "--", "first")...)
	a.send("/quit")
	a.wait()
	args := append(append([]string(nil), codexFlags...), "resume", id, "--", "--looks like a flag")
	b := w.start("codex", args...)
	b.expect("● ack: --looks like a flag")
	b.send("/exit")
	if code := b.wait(); code != 0 {
		t.Errorf("status %d", code)
	}
	starts, _ := fake.ReadStarts(w.startLog)
	if len(starts) != 2 || !reflect.DeepEqual(starts[1].Argv, append([]string{"codex"}, args...)) {
		t.Errorf("starts %+v, want the second with argv %q", starts, args)
	}
}
