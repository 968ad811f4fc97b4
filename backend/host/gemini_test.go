package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
)

// The fake Gemini (internal/fakeagents, AGENTS.md's Gemini contract) on
// this machine: Reprise's hooks go into the user's ~/.gemini/settings.json
// with the user's own settings kept byte for byte; the session id given
// with --session-id comes back in its hooks, BeforeAgent makes the binding
// prompted, AfterAgent ends the turn, the chat file its payloads name is
// the transcript; kill -9 → the banner, and Resume brings the conversation
// back; /quit (SessionEnd three times, exit 0) ends it detached, no banner.
func TestGeminiHooksReachHost(t *testing.T) {
	e := newAgentEnv(t)
	settings := filepath.Join(e.userHome, ".gemini", "settings.json")
	userEntry := `{"hooks": [{"type": "command", "command": "echo mine >> ` + filepath.Join(e.home.Dir, "mine.log") + `"}]}`
	writeUserConfig(t, settings, "{\n  \"theme\": \"GitHub\", // mine\n  \"hooks\": {\n    \"AfterAgent\": ["+userEntry+"],\n  },\n}\n")
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	res, _, v := runPrompted(t, h, e, "gemini", "PLUM-4")
	if res.SessionID == "" {
		t.Fatal("gemini's session id was not pre-assigned")
	}
	got, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "{\n  \"theme\": \"GitHub\", // mine\n  \"hooks\": {\n    \"AfterAgent\": ["+userEntry) || !strings.Contains(string(got), "hook gemini SessionStart") {
		t.Fatalf("settings.json after the install (the user's part not kept, or no hooks):\n%s", got)
	}
	var b bindings.Binding
	waitFor(t, "gemini's AfterAgent at the host", func() bool {
		b = remoteBinding(t, h, res.TerminalID)
		return b.LastEvent == bindings.KindStop
	})
	if b.SessionID != res.SessionID || !b.Prompted {
		t.Fatalf("binding %+v; want session %s, prompted", b, res.SessionID)
	}
	tp, err := h.store.Transcript(ctx, res.TerminalID)
	if want := filepath.Join(e.userHome, ".gemini", "tmp", filepath.Base(e.work), "chats"); err != nil || filepath.Dir(tp) != want {
		t.Fatalf("transcript from gemini's hooks: %q, %v; want a chat file in %s", tp, err, want)
	}
	if _, err := os.Stat(filepath.Join(e.home.Dir, "mine.log")); err != nil {
		t.Errorf("the user's own AfterAgent hook did not run beside Reprise's: %v", err)
	}

	killTerminal(t, h, res.TerminalID)
	waitBinding(t, h, res.TerminalID, "candidate", func(b api.Binding) bool { return b.Candidate })
	r, err := h.Resume(ctx, res.TerminalID)
	if err != nil {
		t.Fatal(err)
	}
	s := attach(t, v, r.TerminalID)
	waitText(t, s, "ack: remember PLUM-4") // the fake prints the old turns back on --resume
	if last := e.startsOf(t)[len(e.startsOf(t))-1]; !containsSeq(last.Argv, "--resume", res.SessionID) {
		t.Fatalf("resume argv %v", last.Argv)
	}
	waitBinding(t, h, r.TerminalID, "resumed session live", func(b api.Binding) bool { return b.SessionID == res.SessionID && b.EndReason == "" })
	waitText(t, s, "Type your message")
	if err := v.Input(ctx, r.TerminalID, []byte("/quit\r")); err != nil {
		t.Fatal(err)
	}
	ab := waitBinding(t, h, r.TerminalID, "the clean exit", func(b api.Binding) bool { return b.EndReason == bindings.Detached })
	if ab.Candidate {
		t.Fatalf("banner after gemini's /quit: %+v", ab)
	}
	if sb := remoteBinding(t, h, r.TerminalID); sb.ExitStatus != nil && *sb.ExitStatus != 0 {
		t.Fatalf("exit status %d after /quit", *sb.ExitStatus)
	}
}
