package fakeagents_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
)

// claudeWorld is a world with the logging hook passed by --settings.
func claudeWorld(t *testing.T) (*world, string) {
	w := newWorld(t)
	settings := filepath.Join(w.home, "reprise-settings.json")
	w.write(settings, hookConfig(hookCommand))
	return w, settings
}

func (w *world) claudeDir() string { return filepath.Join(w.home, ".claude") }

func (w *world) registry(pid int) (fake.ClaudeRegistry, bool) {
	var r fake.ClaudeRegistry
	data, err := os.ReadFile(fake.ClaudeRegistryPath(w.claudeDir(), pid))
	if err != nil {
		return r, false
	}
	if err := json.Unmarshal(data, &r); err != nil {
		w.t.Fatalf("registry %s: %v", data, err)
	}
	return r, true
}

func TestClaudePromptAndExit(t *testing.T) {
	w, settings := claudeWorld(t)
	a := w.start("claude", "--settings", settings, "--dangerously-skip-permissions")
	a.expect("? for shortcuts")

	evs := w.events()
	if !equal(names(evs), []string{"SessionStart:startup"}) {
		t.Fatalf("before any prompt: %q, want SessionStart:startup", names(evs))
	}
	id := evs[0].id()
	if fake.UUIDVersion(id) != 4 {
		t.Errorf("session id %q is not a UUIDv4", id)
	}
	if reg, ok := w.registry(a.cmd.Process.Pid); !ok || reg.SessionID != id || reg.Cwd != w.cwd {
		t.Errorf("registry = %+v (present %v), want session %s in %s", reg, ok, id, w.cwd)
	}

	a.send("remember the codeword MANGO")
	a.expect("● ack: remember the codeword MANGO")
	a.expect("? for shortcuts")
	evs = w.events()
	if want := []string{"SessionStart:startup", "UserPromptSubmit", "Stop"}; !equal(names(evs), want) {
		t.Fatalf("events %q, want %q", names(evs), want)
	}
	transcript := fake.ClaudeTranscriptPath(w.claudeDir(), w.cwd, id)
	if !strings.Contains(transcript, "-project-dir") {
		t.Errorf("transcript %s: want the cwd's '.' as '-'", transcript)
	}
	for _, e := range evs {
		if e.id() != id || e.EnvSessionID != id || e.EnvProject != w.cwd || e.str("cwd") != w.cwd || e.str("transcript_path") != transcript {
			t.Errorf("%s: payload %v, env id %q project %q", e.name(), e.Payload, e.EnvSessionID, e.EnvProject)
		}
		if _, sub := e.Payload["agent_id"]; sub {
			t.Errorf("%s: agent_id outside a subagent", e.name())
		}
	}
	if evs[1].str("prompt") != "remember the codeword MANGO" || evs[2].Payload["stop_hook_active"] != false {
		t.Errorf("UserPromptSubmit %v, Stop %v", evs[1].Payload, evs[2].Payload)
	}
	msgs, _, err := fake.ReadClaudeTranscript(transcript)
	if err != nil || len(msgs) != 2 || msgs[0].Text != "remember the codeword MANGO" {
		t.Errorf("transcript: %+v, %v", msgs, err)
	}

	a.send("/exit")
	if code := a.wait(); code != 0 {
		t.Errorf("/exit: status %d, want 0", code)
	}
	evs = w.events()
	if last := evs[len(evs)-1]; last.name() != "SessionEnd" || last.str("reason") != "prompt_input_exit" || last.id() != id {
		t.Errorf("after /exit: %q", names(evs))
	}
	if _, ok := w.registry(a.cmd.Process.Pid); ok {
		t.Error("registry file left after a clean exit")
	}
	starts, err := fake.ReadStarts(w.startLog)
	if err != nil || len(starts) != 1 {
		t.Fatalf("start log: %+v, %v", starts, err)
	}
	if want := []string{"claude", "--settings", settings, "--dangerously-skip-permissions"}; !reflect.DeepEqual(starts[0].Argv, want) || starts[0].Cwd != w.cwd || starts[0].PID != a.cmd.Process.Pid {
		t.Errorf("start = %+v, want argv %q", starts[0], want)
	}
}

// The death gasp: SIGHUP runs SessionEnd "other", prints how to resume,
// exits 129. Closing the pty delivers the same SIGHUP.
func TestClaudeHangup(t *testing.T) {
	for _, how := range []string{"kill -HUP", "pty closed"} {
		t.Run(how, func(t *testing.T) {
			w, settings := claudeWorld(t)
			a := w.start("claude", "--settings", settings, "hello")
			a.expect("● ack: hello")
			a.expect("? for shortcuts")
			if how == "kill -HUP" {
				a.signal(syscall.SIGHUP)
			} else {
				a.ptmx.Close()
			}
			if code := a.wait(); code != 129 {
				t.Errorf("status %d, want 129", code)
			}
			evs := w.events()
			id := evs[0].id()
			if want := []string{"SessionStart:startup", "UserPromptSubmit", "Stop", "SessionEnd:other"}; !equal(names(evs), want) {
				t.Errorf("events %q, want %q", names(evs), want)
			}
			if evs[3].id() != id {
				t.Errorf("SessionEnd for %s, want %s", evs[3].id(), id)
			}
			if how == "kill -HUP" && !strings.Contains(a.output(), "claude --resume "+id) {
				t.Errorf("no resume hint on screen:\n%s", a.output())
			}
			if _, ok := w.registry(a.cmd.Process.Pid); ok {
				t.Error("registry file left after SIGHUP")
			}
		})
	}
}

func TestClaudeClearRotatesID(t *testing.T) {
	w, settings := claudeWorld(t)
	a := w.start("claude", "--settings", settings)
	a.expect("? for shortcuts")
	a.send("/clear")
	a.expect("? for shortcuts")
	evs := w.events()
	if want := []string{"SessionStart:startup", "SessionEnd:clear", "SessionStart:clear"}; !equal(names(evs), want) {
		t.Fatalf("events %q, want %q", names(evs), want)
	}
	oldID, newID := evs[0].id(), evs[2].id()
	if evs[1].id() != oldID || newID == oldID || evs[2].EnvSessionID != newID || fake.UUIDVersion(newID) != 4 {
		t.Errorf("ids: start %s, end %s, new %s (env %s)", oldID, evs[1].id(), newID, evs[2].EnvSessionID)
	}
	if reg, _ := w.registry(a.cmd.Process.Pid); reg.SessionID != newID {
		t.Errorf("registry has %s, want the new id %s", reg.SessionID, newID)
	}
	// SIGKILL: nothing runs, the registry file stays behind.
	a.signal(syscall.SIGKILL)
	if code := a.wait(); code != 137 {
		t.Errorf("SIGKILL: status %d", code)
	}
	if len(w.events()) != 3 {
		t.Errorf("hooks after SIGKILL: %q", names(w.events()))
	}
	if _, ok := w.registry(a.cmd.Process.Pid); !ok {
		t.Error("registry file removed by SIGKILL")
	}
}

func TestClaudeResume(t *testing.T) {
	w, settings := claudeWorld(t)
	id := fake.NewUUIDv4()
	a := w.start("claude", "--session-id", id, "--settings", settings, "remember PAPAYA")
	a.expect("● ack: remember PAPAYA")
	a.send("/exit")
	if code := a.wait(); code != 0 {
		t.Fatalf("first run: status %d", code)
	}
	if evs := w.events(); evs[0].id() != id {
		t.Fatalf("--session-id not honoured: SessionStart for %s", evs[0].id())
	}

	if code, out := w.run("claude", "--session-id", id); code != 1 || !strings.Contains(out, "Error: Session ID "+id+" is already in use.") {
		t.Errorf("reused --session-id: status %d, output %q", code, out)
	}

	n := len(w.events())
	b := w.start("claude", "--resume", id, "--settings", settings)
	b.expect("PAPAYA")
	b.expect("? for shortcuts")
	evs := w.events()[n:]
	if !equal(names(evs), []string{"SessionStart:resume"}) || evs[0].id() != id {
		t.Fatalf("resume events %q for %s, want SessionStart:resume for %s", names(evs), evs[0].id(), id)
	}
	b.send("and more")
	b.expect("● ack: and more")
	b.send("/exit")
	b.wait()
	msgs, _, err := fake.ReadClaudeTranscript(fake.ClaudeTranscriptPath(w.claudeDir(), w.cwd, id))
	if err != nil || len(msgs) != 4 {
		t.Errorf("resumed transcript: %+v, %v; want both turns", msgs, err)
	}
}

// A session that only saw SessionStart has no transcript: resume fails with
// SessionEnd but no SessionStart, and its id is still free.
func TestClaudeResumeNeverPrompted(t *testing.T) {
	w, settings := claudeWorld(t)
	id := fake.NewUUIDv4()
	a := w.start("claude", "--session-id", id, "--settings", settings)
	a.expect("? for shortcuts")
	a.send("/exit")
	a.wait()

	n := len(w.events())
	code, out := w.run("claude", "--resume", id, "--settings", settings)
	if code != 1 || !strings.Contains(out, "No conversation found with session ID: "+id) {
		t.Errorf("status %d, output %q", code, out)
	}
	if evs := w.events()[n:]; !equal(names(evs), []string{"SessionEnd:other"}) || evs[0].id() == id {
		t.Errorf("events %q, want one SessionEnd:other for a throwaway id", names(evs))
	}
	if left, _ := filepath.Glob(filepath.Join(w.claudeDir(), "sessions", "*")); len(left) != 0 {
		t.Errorf("registry files left by a failed resume: %q", left)
	}

	b := w.start("claude", "--session-id", id)
	b.expect("? for shortcuts")
	b.send("/exit")
	if code := b.wait(); code != 0 {
		t.Errorf("--session-id of a never-prompted session: status %d", code)
	}
}

func TestClaudeSignals(t *testing.T) {
	w, settings := claudeWorld(t)
	a := w.start("claude", "--settings", settings)
	a.expect("? for shortcuts")
	a.signal(syscall.SIGINT)
	a.send("still here")
	a.expect("● ack: still here")
	a.expect("? for shortcuts")
	a.signal(syscall.SIGTERM)
	if code := a.wait(); code != 143 {
		t.Errorf("SIGTERM: status %d, want 143", code)
	}
	if want := []string{"SessionStart:startup", "UserPromptSubmit", "Stop"}; !equal(names(w.events()), want) {
		t.Errorf("events %q, want %q (no SessionEnd on SIGTERM)", names(w.events()), want)
	}
}

// Hooks from every settings level merge, an identical command runs once,
// matchers filter SessionStart by source, and FAKE_CLAUDE_SUBAGENT marks
// payloads as a subagent's.
func TestClaudeSettingsLevelsAndSubagent(t *testing.T) {
	w := newWorld(t)
	w.env = append(w.env, "FAKE_CLAUDE_SUBAGENT=1")
	w.write(filepath.Join(w.claudeDir(), "settings.json"), hookConfig(hookCommand))
	w.write(filepath.Join(w.cwd, ".claude", "settings.json"), hookConfig(hookCommand))
	only := `{"hooks":{"SessionStart":[{"matcher":"resume","hooks":[{"type":"command","command":"echo resume-only >> \"$HOOKLOG.extra\""}]}]}}`
	w.write(filepath.Join(w.cwd, ".claude", "settings.local.json"), only)
	a := w.start("claude", "--settings", hookConfig(hookCommand), "hi")
	a.expect("● ack: hi")
	a.send("/exit")
	a.wait()
	evs := w.events()
	if want := []string{"SessionStart:startup", "UserPromptSubmit", "Stop", "SessionEnd:prompt_input_exit"}; !equal(names(evs), want) {
		t.Errorf("events %q, want each once: %q", names(evs), want)
	}
	for _, e := range evs {
		if e.str("agent_id") != "sub-1" {
			t.Errorf("%s: agent_id %v, want sub-1", e.name(), e.Payload["agent_id"])
		}
	}
	if _, err := os.Stat(w.hookLog + ".extra"); err == nil {
		t.Error("a resume-only SessionStart hook ran at startup")
	}
}

// SessionEnd handlers share a 1.5 s budget: a slow one does not hold the
// exit.
func TestClaudeSessionEndBudget(t *testing.T) {
	w := newWorld(t)
	slow := `{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"sleep 10","timeout":60},{"type":"command","command":"sleep 9"}]}]}}`
	a := w.start("claude", "--settings", slow)
	a.expect("? for shortcuts")
	start := time.Now()
	a.send("/exit")
	code := a.wait()
	if d := time.Since(start); code != 0 || d < 1400*time.Millisecond || d > 2500*time.Millisecond {
		t.Errorf("/exit with slow SessionEnd hooks: status %d after %v, want 0 after about 1.5 s", code, d)
	}
}

func TestClaudeBadArgs(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{
		{"--bogus"},
		{"--session-id", "not-a-uuid"},
		{"--session-id", fake.NewUUIDv4(), "--resume", fake.NewUUIDv4()},
		{"--settings", "/nonexistent.json"},
		{"one", "two"},
	} {
		if code, out := w.run("claude", args...); code != 1 {
			t.Errorf("claude %q: status %d, output %q; want 1", args, code, out)
		}
	}
	if len(w.events()) != 0 {
		t.Error("hooks ran for a refused start")
	}
}

// The turns that drive the agent states (issue 16): "ask …" opens a
// permission prompt (Notification permission_prompt), the answer runs the
// tool (PostToolUse), the next line ends it (Stop); "fail …" ends with
// StopFailure and no reply.
func TestClaudeAskAndFailTurns(t *testing.T) {
	w := newWorld(t)
	h := []fake.MatcherGroup{{Hooks: []fake.Handler{{Type: "command", Command: hookCommand, Timeout: 5}}}}
	cfg := fake.HookConfig{}
	for _, ev := range []string{fake.SessionStart, fake.UserPromptSubmit, fake.Notification, fake.PostToolUse, fake.Stop, fake.StopFailure} {
		cfg[ev] = h
	}
	data, _ := json.Marshal(map[string]any{"hooks": cfg})
	settings := filepath.Join(w.home, "reprise-settings.json")
	w.write(settings, string(data))
	a := w.start("claude", "--settings", settings)
	a.expect("? for shortcuts")
	a.send("ask to run ls")
	a.expect("Do you want to proceed?")
	a.send("y")
	a.expect("● ran Bash")
	a.send("ok")
	a.expect("● ack: ask to run ls")
	a.send("fail now")
	a.expect("API Error: 529 Overloaded")
	a.expect("? for shortcuts")
	evs := w.events()
	want := []string{"SessionStart:startup", "UserPromptSubmit", "Notification", "PostToolUse", "Stop", "UserPromptSubmit", "StopFailure"}
	if !equal(names(evs), want) {
		t.Fatalf("events %q, want %q", names(evs), want)
	}
	if evs[2].str("notification_type") != "permission_prompt" || evs[3].str("tool_name") != "Bash" || evs[6].str("error") != "overloaded_error" {
		t.Errorf("Notification %v, PostToolUse %v, StopFailure %v", evs[2].Payload, evs[3].Payload, evs[6].Payload)
	}
	if strings.Contains(a.output(), "ack: fail now") {
		t.Error("a failed turn replied")
	}
}
