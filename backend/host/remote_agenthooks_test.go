package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
)

// shellAnswers waits until the shell in a terminal runs a command: its
// login profile has finished. A test ends by killing the remote home's
// processes with SIGKILL, and a login shell killed inside its profile may
// leave a lock behind (pyenv's rehash lock made every later login shell on
// the machine wait 60 s).
func shellAnswers(t *testing.T, v *Viewer, id string, s *screen) {
	t.Helper()
	if s == nil {
		s = attach(t, v, id)
	}
	if err := v.Input(context.Background(), id, []byte("echo RDY-$((40+2))\r")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the shell to answer", 90*time.Second, func() bool { return strings.Contains(s.String(), "RDY-42") })
}

// writeUserConfig writes a user's own agent config (with a hook of their
// own) and returns its bytes.
func writeUserConfig(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return content
}

// quitsCleanly types quit (the agent's own exit command) into the remote
// agent's pane and waits for its end at the host: the binding detached with
// exit 0 and no banner, the remote inbox emptied by the acks, and the pane
// back at the remote login shell. It returns the binding.
func quitsCleanly(t *testing.T, h *Host, v *Viewer, scr *screen, id, rh, quit, who string) bindings.Binding {
	t.Helper()
	ctx := context.Background()
	if err := v.Input(ctx, id, []byte(quit+"\r")); err != nil {
		t.Fatal(err)
	}
	var b bindings.Binding
	waitUntil(t, "the clean exit at the host", 30*time.Second, func() bool {
		b = remoteBinding(t, h, id)
		return b.EndReason == bindings.Detached && b.ExitStatus != nil
	})
	ab, err := h.Binding(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if *b.ExitStatus != 0 || ab.Candidate {
		t.Fatalf("binding after %s's %s: %+v (candidate %v); want detached, exit 0, no banner", who, quit, b, ab.Candidate)
	}
	waitUntil(t, "the remote inbox emptied by the acks", 30*time.Second, func() bool { return len(remoteInboxFiles(t, rh)) == 0 })
	shellAnswers(t, v, id, scr) // the pane fell back to the remote login shell
	return b
}

// A Codex on the remote host gets Reprise's hooks in the remote user's
// hooks.json — merged there by the remote binary, the user's own hook kept
// byte for byte, calling the remote binary — and its hook events reach
// this host: the binding learns the session id Codex reports (it has none
// before its first hook), the turn's Stop arrives, and a clean /exit ends
// the binding detached (no banner).
func TestRemoteCodexHooksReachHost(t *testing.T) {
	h, _, rh := remoteHost(t)
	ctx := context.Background()
	work := filepath.Join(rh, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(rh, "mine.log")
	userEntry := `{"hooks": [{"type": "command", "command": "echo mine >> ` + mine + `"}]}`
	hooksPath := filepath.Join(rh, "codex-home", "hooks.json")
	writeUserConfig(t, hooksPath, "{\n  \"hooks\": {\"Stop\": ["+userEntry+"]}\n}\n")

	res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "codex", Prompt: "remember PEAR-3", Host: "box", Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	rexe := filepath.Join(rh, "bin", "reprise")
	if !strings.Contains(string(got), "'"+rexe+"' hook codex SessionStart") {
		t.Fatalf("the remote hooks.json does not call the remote binary %s:\n%s", rexe, got)
	}
	if !strings.HasPrefix(string(got), "{\n  \"hooks\": {\"Stop\": ["+userEntry) {
		t.Fatalf("the user's own hooks.json was not kept byte for byte:\n%s", got)
	}

	v := h.NewViewer()
	defer v.Close()
	scr := attach(t, v, res.TerminalID)
	waitUntil(t, "codex's answer", 30*time.Second, func() bool { return strings.Contains(scr.String(), "ack: remember PEAR-3") })
	var b bindings.Binding
	defer func() {
		if t.Failed() {
			t.Logf("screen: %q\nbinding: %+v", scr.String(), remoteBinding(t, h, res.TerminalID))
		}
	}()
	waitUntil(t, "the remote codex's hooks at the host", 30*time.Second, func() bool {
		b = remoteBinding(t, h, res.TerminalID)
		return b.SessionID != "" && b.Prompted && b.LastEvent == bindings.KindStop
	})
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the user's own Stop hook did not run beside Reprise's: %v", err)
	}
	// The rollout the remote Codex wrote is what the resume check's glob
	// finds there (the daemon's walk, under the remote CODEX_HOME).
	rm, err := h.remoteMachineFor(ctx, "box")
	if err != nil {
		t.Fatal(err)
	}
	if err := rm.prepare(ctx, "", "codex", b.SessionID, work, ""); err != nil {
		t.Fatal(err)
	}
	if saved, known, p := rm.transcript("codex", b.SessionID, work, ""); !saved || !known || !strings.HasPrefix(p, filepath.Join(rh, "codex-home", "sessions")+"/") || !strings.HasSuffix(p, "-"+b.SessionID+".jsonl") {
		t.Fatalf("the remote codex's rollout: saved=%v known=%v %q", saved, known, p)
	}
	quitsCleanly(t, h, v, scr, res.TerminalID, rh, "/exit", "codex")
}

// A Gemini on the remote host (the fake, on the remote PATH) gets Reprise's
// hooks in the remote user's ~/.gemini/settings.json (their HOME there),
// merged by the remote binary — the user's settings and own hook kept byte
// for byte, Reprise's calling the remote binary — and its hook events reach
// this host through the remote inbox: the session id it was started with
// comes back in its hooks, BeforeAgent makes the binding prompted,
// AfterAgent ends the turn, the transcript is the remote chat file, and
// /quit (SessionEnd three times, exit 0) ends the binding detached, no
// banner. (It used to be checked only that the hooks were installed: no
// fake Gemini existed to fire them.)
func TestRemoteGeminiHooksReachHost(t *testing.T) {
	h, rh, userHome, work := remoteHostOwnHome(t)
	ctx := context.Background()
	settings := filepath.Join(userHome, ".gemini", "settings.json")
	mine := filepath.Join(rh, "mine.log")
	userEntry := `{"hooks": [{"type": "command", "command": "echo mine >> ` + mine + `"}]}`
	head := "{\n  \"theme\": \"GitHub\", // mine\n  \"hooks\": {\n    \"AfterAgent\": [" + userEntry
	writeUserConfig(t, settings, head+"],\n  },\n}\n")
	res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "gemini", Prompt: "remember PEAR-5", Host: "box", Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionID == "" {
		t.Fatal("the remote gemini's session id was not pre-assigned")
	}
	got, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	rexe := filepath.Join(rh, "bin", "reprise")
	if !strings.Contains(string(got), "'"+rexe+"' hook gemini SessionStart") {
		t.Fatalf("the remote settings.json does not call the remote binary %s:\n%s", rexe, got)
	}
	if !strings.HasPrefix(string(got), head) {
		t.Fatalf("the user's own settings were not kept byte for byte:\n%s", got)
	}
	// The local user's config is not touched.
	if home, _ := os.UserHomeDir(); home != "" && home != userHome {
		if b, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json")); err == nil && strings.Contains(string(b), rexe) {
			t.Fatalf("the remote install wrote into this machine's ~/.gemini")
		}
	}

	v := h.NewViewer()
	defer v.Close()
	scr := attach(t, v, res.TerminalID)
	var b bindings.Binding
	defer func() {
		if t.Failed() {
			t.Logf("screen: %q\nbinding: %+v", scr.String(), remoteBinding(t, h, res.TerminalID))
		}
	}()
	waitUntil(t, "gemini's answer", 30*time.Second, func() bool { return strings.Contains(scr.String(), "ack: remember PEAR-5") })
	waitUntil(t, "the remote gemini's hooks at the host", 30*time.Second, func() bool {
		b = remoteBinding(t, h, res.TerminalID)
		return b.Prompted && b.LastEvent == bindings.KindStop
	})
	if b.SessionID != res.SessionID {
		t.Fatalf("binding session %q, want %q", b.SessionID, res.SessionID)
	}
	tp, err := h.store.Transcript(ctx, res.TerminalID)
	if want := filepath.Join(userHome, ".gemini", "tmp", "proj", "chats"); err != nil || filepath.Dir(tp) != want {
		t.Fatalf("transcript from the remote hooks: %q, %v; want a chat file in %s", tp, err, want)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the user's own AfterAgent hook did not run beside Reprise's: %v", err)
	}
	waitUntil(t, "gemini's prompt", 30*time.Second, func() bool { return strings.Contains(scr.String(), "Type your message") })
	b = quitsCleanly(t, h, v, scr, res.TerminalID, rh, "/quit", "gemini")

	// The transcript check on the remote: the chat file the fake wrote
	// there holds its reply — the remote daemon scans it, as this machine
	// would — so "saved"; gone, "missing", as on this machine.
	check := func() (bool, bool, string) {
		t.Helper()
		rm, err := h.remoteMachineFor(ctx, "box")
		if err != nil {
			t.Fatal(err)
		}
		if err := rm.prepare(ctx, "", "gemini", b.SessionID, work, tp); err != nil {
			t.Fatal(err)
		}
		return rm.transcript("gemini", b.SessionID, work, tp)
	}
	if saved, known, p := check(); !saved || !known || p != tp {
		t.Fatalf("remote chat file there, with the reply: saved=%v known=%v %q; want saved", saved, known, p)
	}
	if err := os.Remove(tp); err != nil {
		t.Fatal(err)
	}
	if saved, known, p := check(); saved || !known || p != tp {
		t.Fatalf("remote chat file gone: saved=%v known=%v %q; want missing", saved, known, p)
	}
}
