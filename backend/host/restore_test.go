package host

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/store"
)

func claudeTranscript(e agentEnv, sessionID string) string {
	return filepath.Join(e.userHome, ".claude", "projects", nonAlnum.ReplaceAllString(e.work, "-"), sessionID+".jsonl")
}

// TestForecastReasons: one pane per reason, then the daemon dies with no
// host running (a reboot), and restore-check's forecast says for each pane
// what will happen.
func TestForecastReasons(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	ctx := context.Background()
	prompted, _, _ := runPrompted(t, h, e, "claude", "A1")
	gone, _, _ := runPrompted(t, h, e, "claude", "A2")
	noTranscript, _, _ := runPrompted(t, h, e, "claude", "A3")
	codex, _, _ := runPrompted(t, h, e, "codex", "A4")
	never, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	waitBinding(t, h, never.TerminalID, "started", func(b api.Binding) bool { return b.LastEvent == "session-start" })
	// The second agent's directory: it vanishes after it was prompted.
	goneDir := filepath.Join(e.home.Dir, "gone")
	os.Mkdir(goneDir, 0o755)
	gb := binding(t, h, gone.TerminalID)
	ng, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", ResumeSessionID: gb.SessionID, Cwd: goneDir})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(claudeTranscript(e, binding(t, h, noTranscript.TerminalID).SessionID))
	daemon := h.DaemonStatus().PID
	h.Close()
	syscall.Kill(daemon, syscall.SIGKILL)
	os.RemoveAll(goneDir)

	st, err := store.Open(ctx, e.home.DB(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	env := []string{"PATH=" + fakeBin + ":/usr/bin:/bin", "HOME=" + e.userHome}
	fcs, err := Forecast(ctx, st, ForecastEnv{HomeDir: e.home.Dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	byTerm := map[string]PaneForecast{}
	for _, f := range fcs {
		byTerm[f.TerminalID] = f
	}
	check := func(name, tid, action, reason string) {
		t.Helper()
		f, ok := byTerm[tid]
		if !ok {
			t.Fatalf("%s: no forecast for %s", name, tid)
		}
		if f.Action != action || !strings.Contains(f.Reason, reason) {
			t.Errorf("%s: %s %q, want %s containing %q", name, f.Action, f.Reason, action, reason)
		}
	}
	check("prompted claude", prompted.TerminalID, ActionResume, "offers to resume")
	if byTerm[prompted.TerminalID].Auto {
		t.Error("a resume the pane offers is forecast as automatic")
	}
	if f := byTerm[prompted.TerminalID]; len(f.Argv) < 2 || f.Argv[len(f.Argv)-2] != "--resume" || f.Argv[0] != filepath.Join(fakeBin, "claude") {
		t.Errorf("resume argv %v", f.Argv)
	}
	check("never prompted", never.TerminalID, ActionFresh, "never prompted")
	check("transcript missing", noTranscript.TerminalID, ActionCannot, "transcript missing")
	check("cwd gone", ng.TerminalID, ActionCannot, "cwd gone")
	check("codex", codex.TerminalID, ActionResume, "Codex")

	// Without the agents on PATH, and with resume args emptied.
	fcs, _ = Forecast(ctx, st, ForecastEnv{HomeDir: e.home.Dir, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + e.userHome}})
	for _, f := range fcs {
		byTerm[f.TerminalID] = f
	}
	check("codex not on PATH", codex.TerminalID, ActionCannot, "codex not found")
	c, _ := st.GetAgentConfig(ctx, "claude")
	c.ResumeArgs = nil
	st.SaveAgentConfig(ctx, c)
	fcs, _ = Forecast(ctx, st, ForecastEnv{HomeDir: e.home.Dir, Env: env})
	for _, f := range fcs {
		byTerm[f.TerminalID] = f
	}
	check("resume args empty", prompted.TerminalID, ActionCannot, "resume args empty")
	if s := Summary(fcs); !strings.Contains(s, "can't") {
		t.Errorf("summary %q", s)
	}
}

func waitOutcome(t *testing.T, h *Host, tid, want string) api.Binding {
	t.Helper()
	return waitBinding(t, h, tid, "outcome "+want, func(b api.Binding) bool { return b.Outcome == want })
}

func TestResumeOutcomes(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()

	t.Run("resumed only when the agent confirms", func(t *testing.T) {
		res, _, _ := runPrompted(t, h, e, "claude", "O1")
		killTerminal(t, h, res.TerminalID)
		waitBinding(t, h, res.TerminalID, "candidate", func(b api.Binding) bool { return b.Candidate })
		r, err := h.Resume(ctx, res.TerminalID)
		if err != nil {
			t.Fatal(err)
		}
		b := waitOutcome(t, h, r.TerminalID, OutcomeResumed)
		if b.ResumeOf != res.SessionID {
			t.Fatalf("outcome for %s, want %s", b.ResumeOf, res.SessionID)
		}
	})
	t.Run("fresh when the agent starts a new session", func(t *testing.T) {
		// An agent whose "resume" starts over: a wrapper that drops its
		// arguments. Its hooks come from the user's Claude settings.
		script := filepath.Join(e.home.Dir, "forgetful")
		os.WriteFile(script, []byte("#!/bin/sh\nexec "+filepath.Join(fakeBin, "claude")+"\n"), 0o755)
		if _, err := h.SaveAgent(ctx, api.Agent{ID: "forgetful", Label: "Forgetful", Command: script, PromptTransport: "stdin", ResumeArgs: []string{"--resume"}, Tracking: "hooks"}); err != nil {
			t.Fatal(err)
		}
		if _, err := h.SetHooks(ctx, "claude", true); err != nil {
			t.Fatal(err)
		}
		res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "forgetful", ResumeSessionID: "11111111-2222-4333-8444-555555555555", Cwd: e.work})
		if err != nil {
			t.Fatal(err)
		}
		h.markResuming(ctx, res.TerminalID, "forgetful", "11111111-2222-4333-8444-555555555555")
		b := waitOutcome(t, h, res.TerminalID, OutcomeFresh)
		if !strings.Contains(b.OutcomeDetail, "new session") {
			t.Fatalf("detail %q", b.OutcomeDetail)
		}
	})
	t.Run("failed with the agent's own words", func(t *testing.T) {
		// An agent whose resume fails after launching: it says why and exits 3.
		script := filepath.Join(e.home.Dir, "broken")
		os.WriteFile(script, []byte("#!/bin/sh\necho 'Error: model service unavailable (try later)'\nexit 3\n"), 0o755)
		if _, err := h.SaveAgent(ctx, api.Agent{ID: "broken", Label: "Broken", Command: script, PromptTransport: "argv", ResumeArgs: []string{"--resume"}, Tracking: "hooks"}); err != nil {
			t.Fatal(err)
		}
		res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "broken", ResumeSessionID: "22222222-2222-4333-8444-555555555555", Cwd: e.work})
		if err != nil {
			t.Fatal(err)
		}
		b := waitOutcome(t, h, res.TerminalID, OutcomeFailed)
		if b.OutcomeDetail != "exit status 3: Error: model service unavailable (try later)" {
			t.Fatalf("detail %q", b.OutcomeDetail)
		}
		// Reprise never saw that id and the agent never confirmed it: no
		// history entry (the pane's outcome above says what happened).
		if ss, _ := h.Sessions(ctx, true, "22222222"); len(ss) != 0 {
			t.Fatalf("a never-confirmed session is in the history: %+v", ss)
		}
	})
	t.Run("no banner when the agent saved no conversation", func(t *testing.T) {
		res, _, _ := runPrompted(t, h, e, "claude", "O3")
		os.Remove(claudeTranscript(e, res.SessionID)) // as when Claude is killed before it writes it
		killTerminal(t, h, res.TerminalID)
		b := waitBinding(t, h, res.TerminalID, "ended", func(b api.Binding) bool { return b.EndReason == bindings.TerminalExited })
		if b.Candidate || !strings.Contains(b.Unavailable, "saved no conversation") {
			t.Fatalf("binding %+v", b)
		}
		if _, err := h.Resume(ctx, res.TerminalID); err == nil || !strings.Contains(err.Error(), "saved no conversation") {
			t.Fatalf("resume: %v", err)
		}
	})
}

// With "Continue agent sessions after restarts" on, a daemon loss resumes
// every interrupted agent without a click.
func TestContinueAfterRestart(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	if err := h.SetSetting(ctx, api.SettingContinueAfterRestart, "true"); err != nil {
		t.Fatal(err)
	}
	a, _, _ := runPrompted(t, h, e, "claude", "C1")
	b, _, _ := runPrompted(t, h, e, "claude", "C2")
	syscall.Kill(h.DaemonStatus().PID, syscall.SIGKILL)
	for _, r := range []api.CreateAgentResult{a, b} {
		waitBinding(t, h, r.TerminalID, "resumed automatically", func(b api.Binding) bool { return b.EndReason == "resumed" })
	}
	for _, r := range []api.CreateAgentResult{a, b} {
		var now string
		waitFor(t, "pane runs the resumed session", func() bool {
			for _, p := range panes(t, h) {
				if bb, err := h.Binding(ctx, p.TerminalID); err == nil && bb.SessionID == r.SessionID && bb.EndReason == "" {
					now = p.TerminalID
					return p.PaneID == r.PaneID
				}
			}
			return false
		})
		waitOutcome(t, h, now, OutcomeResumed)
	}
}

func TestSummarizeFailure(t *testing.T) {
	cases := []struct{ in, want string }{
		{"\x0f\x1b[>4m\x1b[<uNo conversation found with session ID: abc\r\n\x0f\x1b[>4m\x1b[<u\r\nResume this session with:\r\nclaude --settings x --resume abc\r\n",
			": No conversation found with session ID: abc"},
		{"Error resuming session: No previous sessions found for this project.\r\n", ": Error resuming session: No previous sessions found for this project."},
		{"\x1b[31mone\x1b[0m\ntwo\nthree\nfour\n", ": two / three / four"},
		{"", ""},
	}
	for _, tc := range cases {
		if got := summarizeFailure(tc.in); got != tc.want {
			t.Errorf("summarizeFailure(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The summary says "will resume" only for resumes that start on their own;
// a pane that offers a Resume button "will offer Resume" (issue 17).
func TestSummaryOffersOrResumes(t *testing.T) {
	for _, tc := range []struct {
		fs   []PaneForecast
		want string
	}{
		{nil, "nothing to restore"},
		{[]PaneForecast{{Action: ActionResume}, {Action: ActionFresh}, {Action: ActionFresh}}, "1 will offer Resume · 2 fresh"},
		{[]PaneForecast{{Action: ActionResume, Auto: true}, {Action: ActionFresh}}, "1 will resume · 1 fresh"},
		{[]PaneForecast{{Action: ActionAttach}, {Action: ActionResume, Auto: true}, {Action: ActionResume}, {Action: ActionCannot, Reason: "codex not found"}},
			"1 running · 1 will resume · 1 will offer Resume · 1 can't: codex not found"},
	} {
		if got := Summary(tc.fs); got != tc.want {
			t.Errorf("Summary(%+v) = %q, want %q", tc.fs, got, tc.want)
		}
	}
}
