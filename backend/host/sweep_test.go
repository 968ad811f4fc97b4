package host

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
)

// The daemon-disconnect sweep, case by case.

// The connection drops but the same daemon answers and still owns the
// sessions: nothing is swept.
func TestSweepDaemonAnswersAndOwns(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	res, _, _ := runPrompted(t, h, e, "claude", "S1")
	pid := h.DaemonStatus().PID
	c, _ := h.client()
	c.Close() // a connection blip, not a death
	waitFor(t, "reconnected", func() bool { st := h.DaemonStatus(); return st.State == "up" && h.daemonConnected() })
	time.Sleep(300 * time.Millisecond)
	if h.DaemonStatus().PID != pid {
		t.Fatal("a new daemon was started although the old one answered")
	}
	if b := binding(t, h, res.TerminalID); b.EndReason != "" {
		t.Fatalf("a session the daemon still owns was swept: %+v", b)
	}
	if tm := terminal(t, h, res.TerminalID); tm.Status != api.StatusRunning {
		t.Fatalf("terminal %s", tm.Status)
	}
}

func (h *Host) daemonConnected() bool {
	c, err := h.client()
	if err != nil {
		return false
	}
	select {
	case <-c.Done():
		return false
	default:
		return true
	}
}

// No daemon answers (and none can be started): every swept binding ends as
// interrupted, with one warning giving the count.
func TestSweepNoDaemonAnswers(t *testing.T) {
	e := newAgentEnv(t)
	var logs syncBuffer
	h, err := Start(context.Background(), Config{
		Home: e.home, Exe: reprise, Shell: []string{"/bin/sh"},
		BaseEnv: []string{"PATH=" + fakeBin + ":/usr/bin:/bin", "HOME=" + e.userHome, "FAKE_AGENT_LOG=" + e.starts},
		Logger:  slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	a, _, _ := runPrompted(t, h, e, "claude", "S2")
	b, _, _ := runPrompted(t, h, e, "claude", "S3")
	h.cfg.Exe = "/nonexistent/reprise" // the daemon cannot be started again
	syscall.Kill(h.DaemonStatus().PID, syscall.SIGKILL)
	for _, r := range []api.CreateAgentResult{a, b} {
		waitBinding(t, h, r.TerminalID, "interrupted", func(b api.Binding) bool { return b.EndReason == bindings.TerminalExited && b.Candidate })
	}
	// The warning is logged after the bindings are written, so the bindings
	// can be seen ended a moment before it appears.
	const warning = "no pty daemon answers; agent sessions marked interrupted"
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(logs.String(), warning) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := strings.Count(logs.String(), warning); n != 1 || !strings.Contains(logs.String(), "count=2") {
		t.Fatalf("want one warning with count=2, got %d:\n%s", n, logs.String())
	}
	if h.DaemonStatus().State != "failed" {
		t.Fatalf("daemon status %+v", h.DaemonStatus())
	}
}

// A binding whose session changed after the death was noticed (a new
// agent session started meanwhile) is not swept.
func TestSweepSkipsChangedSession(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	res, _, _ := runPrompted(t, h, e, "claude", "S4")
	// The turn's Stop hook may still be in the inbox; applied after the new
	// session below, it would put the old session back.
	waitBinding(t, h, res.TerminalID, "the turn's stop", func(b api.Binding) bool { return b.LastEvent == "stop" })
	snap := h.liveSnapshot(ctx)
	if snap[res.TerminalID] != res.SessionID {
		t.Fatalf("snapshot %v", snap)
	}
	// A new session starts in the terminal before the sweep gets to it.
	h.applyBinding(ctx, res.TerminalID, bindings.Input{Kind: bindings.KindSessionStart, SessionID: "new-session", Source: "startup", At: time.Now()})
	h.endBindings(ctx, []string{res.TerminalID}, time.Now(), snap)
	if b := binding(t, h, res.TerminalID); b.EndReason != "" || b.SessionID != "new-session" {
		t.Fatalf("changed session was swept: %+v", b)
	}
	// With the snapshot matching, the same sweep ends it.
	h.endBindings(ctx, []string{res.TerminalID}, time.Now(), map[string]string{res.TerminalID: "new-session"})
	if b := binding(t, h, res.TerminalID); b.EndReason != bindings.TerminalExited {
		t.Fatalf("matching session not swept: %+v", b)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A daemon that keeps dying spends the restart budget: the host says so once, in the status and
// in one log line, while it waits for the budget to ease (it logged the same ERROR every second).
func TestRestartBudgetSpentIsLoggedOnce(t *testing.T) {
	home := newHome(t)
	var logs syncBuffer
	h, err := Start(context.Background(), Config{
		Home: home, Exe: reprise, Shell: []string{"/bin/sh"},
		BaseEnv:       []string{"PATH=/usr/bin:/bin", "HOME=" + home.Dir},
		Logger:        slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
		RestartBudget: 1, RestartWindow: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	first := h.DaemonStatus().PID
	syscall.Kill(first, syscall.SIGKILL)
	waitFor(t, "a restarted daemon", func() bool { st := h.DaemonStatus(); return st.State == "up" && st.PID != first })
	syscall.Kill(h.DaemonStatus().PID, syscall.SIGKILL)
	waitFor(t, "the budget spent", func() bool { return h.DaemonStatus().State == "failed" })
	// The supervisor retries every second; let it retry a few times.
	time.Sleep(3500 * time.Millisecond)
	if n := strings.Count(logs.String(), "pty daemon restart budget spent"); n != 1 {
		t.Fatalf("%d log lines say the restart budget is spent, want 1:\n%s", n, logs.String())
	}
}
