package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/paths"
)

// fakeBin holds the fake claude, codex and gemini (internal/fakeagents), built in
// TestMain. They follow the real CLIs' hook contracts.
var fakeBin string

type agentEnv struct {
	home     paths.Home
	userHome string
	starts   string
	work     string
}

func newAgentEnv(t *testing.T) agentEnv {
	home := newHome(t)
	e := agentEnv{home: home, userHome: filepath.Join(home.Dir, "u"), starts: filepath.Join(home.Dir, "starts.log"), work: filepath.Join(home.Dir, "work")}
	os.MkdirAll(e.userHome, 0o700)
	os.MkdirAll(e.work, 0o755)
	return e
}

func (e agentEnv) start(t *testing.T) *Host {
	t.Helper()
	h, err := Start(context.Background(), Config{
		Home: e.home, Exe: reprise, Shell: []string{"/bin/sh"},
		BaseEnv: []string{"PATH=" + fakeBin + ":/usr/bin:/bin", "PS1=$ ", "HOME=" + e.userHome, "FAKE_AGENT_LOG=" + e.starts},
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

type start struct {
	PID  int      `json:"pid"`
	Argv []string `json:"argv"`
}

func (e agentEnv) startsOf(t *testing.T) []start {
	b, _ := os.ReadFile(e.starts)
	var out []start
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var s start
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("starts log: %v", err)
		}
		out = append(out, s)
	}
	return out
}

func binding(t *testing.T, h *Host, tid string) api.Binding {
	t.Helper()
	b, err := h.Binding(context.Background(), tid)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func waitBinding(t *testing.T, h *Host, tid, what string, cond func(api.Binding) bool) api.Binding {
	t.Helper()
	var last api.Binding
	waitFor(t, what, func() bool {
		b, err := h.Binding(context.Background(), tid)
		if err != nil {
			return false
		}
		last = b
		return cond(b)
	})
	return last
}

// runPrompted starts the fake agent with a codeword prompt and waits until
// its hooks said it was prompted.
func runPrompted(t *testing.T, h *Host, e agentEnv, agent, codeword string) (api.CreateAgentResult, *screen, *Viewer) {
	t.Helper()
	res, err := h.CreateAgent(context.Background(), api.CreateAgentRequest{Agent: agent, Prompt: "remember " + codeword, Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	v := h.NewViewer()
	t.Cleanup(v.Close)
	s := attach(t, v, res.TerminalID)
	waitText(t, s, "ack: remember "+codeword)
	waitBinding(t, h, res.TerminalID, "prompted binding", func(b api.Binding) bool { return b.Prompted && b.SessionID != "" })
	return res, s, v
}

func killTerminal(t *testing.T, h *Host, tid string) {
	t.Helper()
	if err := h.Signal(context.Background(), tid, "KILL"); err != nil {
		t.Fatal(err)
	}
}

// The first scenario: prompt with a codeword, kill -9 agent and
// shell, the binding is a candidate, Resume brings the conversation back
// in the same pane.
func TestKilledAgentResumesInSamePane(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	res, _, v := runPrompted(t, h, e, "claude", "PAPAYA-77")
	if res.SessionID == "" {
		t.Fatal("claude's session id was not pre-assigned")
	}
	killTerminal(t, h, res.TerminalID)
	b := waitBinding(t, h, res.TerminalID, "candidate", func(b api.Binding) bool { return b.Candidate })
	if b.EndReason != bindings.TerminalExited || b.SessionID != res.SessionID {
		t.Fatalf("binding %+v", b)
	}
	r, err := h.Resume(context.Background(), res.TerminalID)
	if err != nil {
		t.Fatal(err)
	}
	if r.PaneID != res.PaneID || r.SessionID != res.SessionID {
		t.Fatalf("resumed into pane %s session %s, want pane %s session %s", r.PaneID, r.SessionID, res.PaneID, res.SessionID)
	}
	s := attach(t, v, r.TerminalID)
	waitText(t, s, "ack: remember PAPAYA-77") // the fake prints the old turns back on --resume
	last := e.startsOf(t)[len(e.startsOf(t))-1]
	_ = last
	if !containsSeq(last.Argv, "--resume", res.SessionID) {
		t.Fatalf("resume argv %v", last.Argv)
	}
	if b := binding(t, h, res.TerminalID); b.EndReason != bindings.Resumed || b.Candidate {
		t.Fatalf("old binding after resume: %+v", b)
	}
	waitBinding(t, h, r.TerminalID, "resumed session live", func(b api.Binding) bool { return b.SessionID == res.SessionID && b.EndReason == "" })
	// A repeat is idempotent: it names the same terminal and launches nothing.
	n := len(e.startsOf(t))
	again, err := h.Resume(context.Background(), res.TerminalID)
	if err != nil || again.TerminalID != r.TerminalID {
		t.Fatalf("repeat resume: %+v %v", again, err)
	}
	if len(e.startsOf(t)) != n {
		t.Fatal("a repeated resume launched the agent again")
	}
}

func containsSeq(argv []string, a, b string) bool {
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == a && argv[i+1] == b {
			return true
		}
	}
	return false
}

// Killing the daemon sends the fake Claude SIGHUP: it says SessionEnd
// (the death gasp) and dies. The gasp must not hide the kill.
func TestDaemonKillIsACandidateDespiteDeathGasp(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	res, _, _ := runPrompted(t, h, e, "claude", "KIWI-1")
	syscall.Kill(h.DaemonStatus().PID, syscall.SIGKILL)
	b := waitBinding(t, h, res.TerminalID, "candidate after daemon death", func(b api.Binding) bool { return b.Candidate })
	if b.EndReason != bindings.TerminalExited {
		t.Fatalf("binding %+v", b)
	}
	// The pane was cold-respawned; resume goes into it.
	r, err := h.Resume(context.Background(), res.TerminalID)
	if err != nil {
		t.Fatal(err)
	}
	v := h.NewViewer()
	defer v.Close()
	waitText(t, attach(t, v, r.TerminalID), "ack: remember KIWI-1")
}

func TestAgentKilledShellSurvivesIsCandidate(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	res, _, _ := runPrompted(t, h, e, "codex", "FIG-3")
	agentPID := e.startsOf(t)[0].PID
	syscall.Kill(agentPID, syscall.SIGKILL)
	b := waitBinding(t, h, res.TerminalID, "candidate", func(b api.Binding) bool { return b.Candidate })
	if tm := terminal(t, h, res.TerminalID); tm.Status != api.StatusRunning {
		t.Fatalf("the shell should survive the agent: %s", tm.Status)
	}
	r, err := h.Resume(context.Background(), res.TerminalID)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "codex relaunched", func() bool { return len(e.startsOf(t)) == 2 })
	last := e.startsOf(t)[1]
	if !containsSeq(last.Argv, "resume", b.SessionID) {
		t.Fatalf("codex resume argv %v", last.Argv)
	}
	v := h.NewViewer()
	defer v.Close()
	waitText(t, attach(t, v, r.TerminalID), "ack: remember FIG-3")
	// The pane's old terminal (the surviving shell) was disposed.
	waitFor(t, "old terminal closed", func() bool { return terminal(t, h, res.TerminalID).Status != api.StatusRunning })
}

func TestCleanExitNeverPromptedAndClosedShowNoBanner(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()

	t.Run("exit", func(t *testing.T) {
		res, _, v := runPrompted(t, h, e, "claude", "PEAR-2")
		v.Input(ctx, res.TerminalID, []byte("/exit\r"))
		b := waitBinding(t, h, res.TerminalID, "detached", func(b api.Binding) bool { return b.EndReason == bindings.Detached })
		if b.Candidate {
			t.Fatal("a clean exit shows the banner")
		}
		ss, _ := h.Sessions(ctx, true, "")
		found := false
		for _, s := range ss {
			found = found || (s.SessionID == b.SessionID && s.Resumable)
		}
		if !found {
			t.Fatal("a cleanly exited conversation must stay resumable on demand")
		}
	})
	t.Run("never prompted", func(t *testing.T) {
		res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Cwd: e.work})
		if err != nil {
			t.Fatal(err)
		}
		waitBinding(t, h, res.TerminalID, "session start", func(b api.Binding) bool { return b.LastEvent == bindings.KindSessionStart })
		killTerminal(t, h, res.TerminalID)
		b := waitBinding(t, h, res.TerminalID, "ended", func(b api.Binding) bool { return b.EndReason != "" })
		if b.Candidate || b.Unavailable == "" {
			t.Fatalf("never-prompted session: %+v", b)
		}
		if _, err := h.Resume(ctx, res.TerminalID); err == nil {
			t.Fatal("resume of a never-prompted session was offered")
		}
	})
	t.Run("pane closed", func(t *testing.T) {
		res, _, _ := runPrompted(t, h, e, "claude", "LIME-4")
		if _, err := h.ClosePane(ctx, res.PaneID); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond) // the SIGHUP gasp and the exit arrive; disposed is sticky
		if b := binding(t, h, res.TerminalID); b.EndReason != bindings.Disposed {
			t.Fatalf("closed pane: %+v", b)
		}
	})
}

func TestClearTracksNewSessionID(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	res, _, v := runPrompted(t, h, e, "claude", "PLUM-5")
	v.Input(context.Background(), res.TerminalID, []byte("/clear\r"))
	b := waitBinding(t, h, res.TerminalID, "new id", func(b api.Binding) bool { return b.SessionID != res.SessionID && b.SessionID != "" })
	if b.Prompted {
		t.Fatal("a cleared session has no transcript yet")
	}
	v.Input(context.Background(), res.TerminalID, []byte("after clear CHERRY-6\r"))
	waitBinding(t, h, res.TerminalID, "prompted", func(b api.Binding) bool { return b.Prompted })
	killTerminal(t, h, res.TerminalID)
	waitBinding(t, h, res.TerminalID, "candidate", func(b api.Binding) bool { return b.Candidate })
	r, err := h.Resume(context.Background(), res.TerminalID)
	if err != nil || r.SessionID != b.SessionID {
		t.Fatalf("resumed %+v %v, want the new id %s", r, err, b.SessionID)
	}
}

// Hooks keep working while the app is closed; the next host applies them.
func TestAppClosedWhileAgentKilled(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	res, _, _ := runPrompted(t, h, e, "claude", "MANGO-8")
	h.Close()
	// Kill the agent's terminal with no host running, through the daemon.
	cl, err := dialDaemon(e.home)
	if err != nil {
		t.Fatal(err)
	}
	cl.Signal(context.Background(), res.TerminalID, "KILL")
	cl.Close()
	time.Sleep(500 * time.Millisecond)
	h2 := e.start(t)
	defer h2.Close()
	waitBinding(t, h2, res.TerminalID, "candidate after reopening", func(b api.Binding) bool { return b.Candidate })
}

func TestConcurrentResumesLaunchOnce(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	res, _, _ := runPrompted(t, h, e, "claude", "GUAVA-9")
	killTerminal(t, h, res.TerminalID)
	waitBinding(t, h, res.TerminalID, "candidate", func(b api.Binding) bool { return b.Candidate })
	before := len(e.startsOf(t))
	var wg sync.WaitGroup
	results := make([]api.ResumeResult, 8)
	errs := make([]error, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = h.Resume(context.Background(), res.TerminalID)
		}()
	}
	wg.Wait()
	for i := range results {
		if errs[i] != nil || results[i].TerminalID != results[0].TerminalID {
			t.Fatalf("call %d: %+v %v (first %+v)", i, results[i], errs[i], results[0])
		}
	}
	time.Sleep(500 * time.Millisecond)
	if n := len(e.startsOf(t)) - before; n != 1 {
		t.Fatalf("%d launches for 8 concurrent resumes", n)
	}
}

func TestFailedLaunchUnclaimsAndUnsupportedKeepsCandidate(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	res, _, _ := runPrompted(t, h, e, "claude", "LEMON-10")
	killTerminal(t, h, res.TerminalID)
	waitBinding(t, h, res.TerminalID, "candidate", func(b api.Binding) bool { return b.Candidate })

	// The session's directory vanished: no Resume is offered (it would fail
	// with "No such directory"), and the session is kept for when it's back.
	os.Rename(e.work, e.work+".moved")
	_, err := h.Resume(ctx, res.TerminalID)
	if err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("resume with a vanished cwd: %v", err)
	}
	if b := binding(t, h, res.TerminalID); b.Candidate || b.EndReason != bindings.TerminalExited {
		t.Fatalf("vanished cwd: %+v", b)
	}
	os.Rename(e.work+".moved", e.work)

	// The launch itself fails (the agent's binary is gone): the claim is undone.
	c, _ := h.Agent(ctx, "claude")
	c.Command = "claude-gone"
	if _, err := h.SaveAgent(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Resume(ctx, res.TerminalID); err == nil || !strings.Contains(err.Error(), "not found on PATH") {
		t.Fatalf("resume with the binary gone: %v", err)
	}
	if b := binding(t, h, res.TerminalID); !b.Candidate {
		t.Fatalf("failed launch did not un-claim: %+v", b)
	}
	if _, err := h.ResetAgent(ctx, "claude"); err != nil {
		t.Fatal(err)
	}

	// No resume args: the candidate stays, the reason is explained.
	if _, err := h.SetResumeArgs(ctx, "claude", nil); err != nil {
		t.Fatal(err)
	}
	b := binding(t, h, res.TerminalID)
	if b.Candidate || b.EndReason != bindings.TerminalExited || !strings.Contains(b.Unavailable, "resume args") {
		t.Fatalf("unsupported config: %+v", b)
	}
	if _, err := h.Resume(ctx, res.TerminalID); err == nil {
		t.Fatal("resume without resume args succeeded")
	}
	if _, err := h.ResetAgent(ctx, "claude"); err != nil {
		t.Fatal(err)
	}
	// Retry succeeds.
	r, err := h.Resume(ctx, res.TerminalID)
	if err != nil {
		t.Fatal(err)
	}
	v := h.NewViewer()
	defer v.Close()
	waitText(t, attach(t, v, r.TerminalID), "ack: remember LEMON-10")
}

func TestRunAgentRefusals(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	cases := []struct {
		req  api.CreateAgentRequest
		want string
	}{
		{api.CreateAgentRequest{Agent: "copilot", Cwd: e.work}, "copilot was not found on PATH"},
		{api.CreateAgentRequest{Agent: "claude", Cwd: "/no/such/dir"}, "No such directory: /no/such/dir"},
		// A file or a FIFO is there, and is not a directory: said so, not "No such directory".
		{api.CreateAgentRequest{Agent: "claude", Cwd: "/etc/hostname"}, "Not a directory: /etc/hostname"},
		{api.CreateAgentRequest{Agent: "claude", ResumeSessionID: "x\x1b]0;pwn\x07", Cwd: e.work}, "Invalid resume session id for Claude Code."},
		{api.CreateAgentRequest{Agent: "nope"}, `unknown agent "nope"`},
	}
	for _, tc := range cases {
		_, err := h.CreateAgent(ctx, tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.req, err, tc.want)
		}
	}
	// An agent with no resume args refuses --resume-session.
	h.SetResumeArgs(ctx, "codex", nil)
	if _, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "codex", ResumeSessionID: "abc", Cwd: e.work}); err == nil ||
		err.Error() != "Codex does not support resuming a session by id. Omit --resume-session to start a new session." {
		t.Fatalf("unsupported resume: %v", err)
	}
	// Hostile prompts reach the agent as one argument, never as shell code.
	hostile := `x'; touch /tmp/pwned-$$; echo '$(id)`
	res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Prompt: hostile, Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "agent started", func() bool { return len(e.startsOf(t)) > 0 })
	argv := e.startsOf(t)[0].Argv
	if argv[len(argv)-1] != hostile {
		t.Fatalf("prompt arrived as %q", argv[len(argv)-1])
	}
	_ = res
	if _, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Prompt: "--dangerously-skip-permissions", Cwd: e.work}); err == nil {
		t.Fatal("a prompt that looks like a flag was passed positionally")
	}
	_ = errors.New
}

// TestTooLargeLaunchLeavesNoLiveSession: a prompt over the limit is refused
// in one line before anything is recorded; a launch whose terminal fails to
// open (here: an agent config whose argv is over the daemon's 64 KiB open
// frame) leaves no "live" session behind. Before, a 100 KB prompt failed
// with "send open: write open frame (…): frame too large" and its session
// stayed live in `sessions list` for an agent that never ran.
func TestTooLargeLaunchLeavesNoLiveSession(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	_, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Prompt: strings.Repeat("y", 100000), Cwd: e.work})
	if err == nil || !strings.Contains(err.Error(), "over the 32768-byte limit") {
		t.Errorf("100 KB prompt: %v, want the limit named", err)
	}
	big, err := h.Agent(ctx, "claude") // with a pre-assigned session id, as Claude's
	if err != nil {
		t.Fatal(err)
	}
	big.ID, big.Label, big.Builtin, big.Args = "big", "Big", false, []string{strings.Repeat("a", 70<<10)}
	if _, err := h.SaveAgent(ctx, big); err != nil {
		t.Fatal(err)
	}
	if _, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "big", Cwd: e.work}); err == nil {
		t.Fatal("a launch over the open frame's size started")
	}
	ss, err := h.Sessions(ctx, true, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.Live {
			t.Errorf("a launch that never ran left a live session: %+v", s)
		}
	}
	if n := len(e.startsOf(t)); n != 0 {
		t.Errorf("%d agents started, want none", n)
	}
}

var _ = fmt.Sprint

// Sessions shows each conversation's first prompt (from the prompt hook) and
// searches over it; a later prompt does not replace it (issue 17).
func TestSessionsKeepFirstPrompt(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	a, s, v := runPrompted(t, h, e, "claude", "QUOKKA-1")
	b, _, _ := runPrompted(t, h, e, "claude", "WOMBAT-2")
	before := binding(t, h, a.TerminalID).LastEventAt
	v.Input(ctx, a.TerminalID, []byte("and later NUMBAT-3\r"))
	waitText(t, s, "ack: and later NUMBAT-3")
	// The hooks are drained in order: the second turn's Stop comes after its prompt.
	waitBinding(t, h, a.TerminalID, "the second turn's stop", func(x api.Binding) bool { return x.LastEventAt.After(before) && x.LastEvent == "stop" })
	first := func(query string) map[string]string {
		t.Helper()
		list, err := h.Sessions(ctx, true, query)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, x := range list {
			out[x.SessionID] = x.FirstPrompt
		}
		return out
	}
	waitFor(t, "first prompts recorded", func() bool {
		got := first("")
		return got[a.SessionID] != "" && got[b.SessionID] != ""
	})
	got := first("")
	if got[a.SessionID] != "remember QUOKKA-1" || got[b.SessionID] != "remember WOMBAT-2" {
		t.Fatalf("first prompts %v, want remember QUOKKA-1 / remember WOMBAT-2", got)
	}
	if m := first("wombat"); len(m) != 1 || m[b.SessionID] == "" {
		t.Errorf("search by prompt text found %v, want only %s", m, b.SessionID)
	}
	if m := first("NUMBAT"); len(m) != 0 {
		t.Errorf("a later prompt became searchable as the first: %v", m)
	}
}

// After /clear the old conversation is over (Claude moved to a new id in
// the same process), yet `sessions list` and the Sessions view kept
// showing it live, next to the new one, in the same terminal, for ever.
func TestClearEndsTheOldSessionInHistory(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	res, _, v := runPrompted(t, h, e, "claude", "QUINCE-7")
	v.Input(ctx, res.TerminalID, []byte("/clear\r"))
	b := waitBinding(t, h, res.TerminalID, "new id", func(b api.Binding) bool { return b.SessionID != res.SessionID && b.SessionID != "" })
	ss, err := h.Sessions(ctx, true, "")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, s := range ss {
		switch s.SessionID {
		case res.SessionID:
			seen++
			if s.Live || s.EndReason != bindings.Detached || s.EndedAt == nil || !s.Resumable {
				t.Errorf("the cleared session: live=%v endReason=%q endedAt=%v resumable=%v, want ended (detached), resumable", s.Live, s.EndReason, s.EndedAt, s.Resumable)
			}
		case b.SessionID:
			seen++
			if !s.Live {
				t.Errorf("the new session is not live: %+v", s)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("sessions: %+v, want both ids", ss)
	}
	if ss, _ := h.Sessions(ctx, false, ""); len(ss) != 1 || ss[0].SessionID != b.SessionID {
		t.Fatalf("live sessions and candidates: %+v, want only the new one", ss)
	}
}
