package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/scrollback"
	"github.com/reprise-dev/reprise/backend/store"
	"github.com/reprise-dev/reprise/internal/testenv"
	"github.com/reprise-dev/reprise/internal/testenv/remotetest"
)

func tailOf(home paths.Home, id string) ([]byte, int64, bool, error) {
	return scrollback.Tail(home.ScrollbackDir(), id, 1<<20)
}

func dialDaemon(home paths.Home) (*ptyclient.Client, error) {
	return ptyclient.Dial(context.Background(), home.PtydSocket(), ptyclient.Options{Name: "test"})
}

// restartHost closes h and starts a host again on its home (a quit and a
// start of the app); the ssh ControlMaster it keeps to box is killed at
// the end.
func restartHost(t *testing.T, h *Host, s *testenv.SSHD, rh string) *Host {
	t.Helper()
	home := h.Home()
	h.Close()
	h2 := startHost(t, home)
	t.Cleanup(func() {
		h2.Close()
		remotetest.KillMaster(home.Dir, s, rh)
	})
	return h2
}

// addTab shows terminal id in a tab of its own.
func addTab(t *testing.T, h *Host, id string) {
	t.Helper()
	if _, err := h.mutateLayout(context.Background(), func(l *api.Layout) (*api.Layout, error) {
		l2, _, err := builder.AddTab(l, id)
		return l2, err
	}); err != nil {
		t.Fatal(err)
	}
}

// endedRemoteBinding runs a terminal on box in work, in a tab, binds agent
// session sid to it (prompted) and kills it: the binding it returns has
// ended terminal-exited, for the resume check to judge.
func endedRemoteBinding(t *testing.T, h *Host, agent, sid, work string) (store.Terminal, bindings.Binding) {
	t.Helper()
	ctx := context.Background()
	term, err := h.createTerminal(ctx, newTerminal{host: "box", cwd: work, argv: []string{"/bin/sh", "-c", "exec sleep 600"}})
	if err != nil {
		t.Fatal(err)
	}
	addTab(t, h, term.ID)
	if _, _, err := h.applyBinding(ctx, term.ID, bindings.Input{Kind: bindings.KindLaunch, AgentID: agent, SessionID: sid, Cwd: work, Prompted: true, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := h.Signal(ctx, term.ID, "KILL"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the binding to end", 20*time.Second, func() bool {
		b, err := h.store.GetBinding(ctx, term.ID)
		return err == nil && b.EndReason == bindings.TerminalExited
	})
	b, err := h.store.GetBinding(ctx, term.ID)
	if err != nil {
		t.Fatal(err)
	}
	return term, b
}

// forecastLine records the host's restore forecast afresh and returns the
// line of terminal id.
func forecastLine(t *testing.T, h *Host, id string) PaneForecast {
	t.Helper()
	h.recordForecast(context.Background(), true)
	for _, f := range h.LastRestore().Panes {
		if f.TerminalID == id {
			return f
		}
	}
	t.Fatal("no forecast line for the remote pane")
	return PaneForecast{}
}

// restoreCheck forecasts the restore of h's store as `reprise
// restore-check` does (no host running it: each remote host's running
// daemon is asked, none started, within a 20 s bound), and returns the
// lines and how long the remote part took.
func restoreCheck(t *testing.T, h *Host) ([]PaneForecast, time.Duration) {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	rfs, closeAll := ForecastRemotes(ctx, h.store, h.cfg.Home.Dir, 20*time.Second)
	defer closeAll()
	d := time.Since(start)
	fs, err := Forecast(ctx, h.store, ForecastEnv{HomeDir: h.cfg.Home.Dir, Remote: rfs})
	if err != nil {
		t.Fatal(err)
	}
	return fs, d
}

// addDeadHost adds host "dead", which no ssh reaches, and a terminal
// recorded as running there in cwd, in a tab.
func addDeadHost(t *testing.T, h *Host, s *testenv.SSHD, cwd string) store.Terminal {
	t.Helper()
	ctx := context.Background()
	if _, err := h.store.AddHost(ctx, store.Host{Name: "dead", SSH: "127.0.0.1:1", SSHConfig: s.Config}); err != nil {
		t.Fatal(err)
	}
	dead, err := h.store.CreateTerminal(ctx, store.Terminal{ID: newID("t_"), Cwd: cwd, Argv: []string{"/bin/sh"}, Status: api.StatusRunning, CreatedAt: time.Now(), Host: "dead"})
	if err != nil {
		t.Fatal(err)
	}
	addTab(t, h, dead.ID)
	return dead
}

// remoteAgent starts the fake Claude on box in work with the prompt
// "remember <codeword>" and waits for its answer on the pane's screen.
func remoteAgent(t *testing.T, h *Host, work, codeword string) (api.CreateAgentResult, *Viewer, *screen) {
	t.Helper()
	res, err := h.CreateAgent(context.Background(), api.CreateAgentRequest{Agent: "claude", Prompt: "remember " + codeword, Host: "box", Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	v := h.NewViewer()
	t.Cleanup(v.Close)
	scr := attach(t, v, res.TerminalID)
	waitUntil(t, "the agent's answer", 30*time.Second, func() bool { return strings.Contains(scr.String(), "ack: remember "+codeword) })
	return res, v, scr
}

// killRemoteDaemon kills box's daemon with SIGKILL (a death, unlike a
// dropped link).
func killRemoteDaemon(t *testing.T, h *Host) {
	t.Helper()
	if err := syscall.Kill(h.HostStatus("box").PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// runningOnBox fails unless terminal id runs on box in work.
func runningOnBox(t *testing.T, h *Host, id, work string) {
	t.Helper()
	nt, err := h.Terminal(context.Background(), id)
	if err != nil || nt.Host != "box" || nt.Cwd != work || nt.Status != api.StatusRunning {
		t.Fatalf("resumed terminal %+v, %v; want running on box in %s", nt, err, work)
	}
}

// codewordBack fails unless resume r is in pane paneID and its agent
// shows the conversation holding codeword.
func codewordBack(t *testing.T, v *Viewer, r api.ResumeResult, paneID, codeword string) {
	t.Helper()
	if r.PaneID != paneID {
		t.Fatalf("resumed into pane %s, want %s", r.PaneID, paneID)
	}
	s := attach(t, v, r.TerminalID)
	waitUntil(t, "the codeword back", 30*time.Second, func() bool { return strings.Contains(s.String(), "ack: remember "+codeword) })
}

// remoteHostOwnHome is remoteHost whose remote user has a HOME of its own
// (userHome, under the remote Reprise home rh) rather than the test
// user's: where a remote agent's ~/.gemini goes. work is userHome/proj,
// made.
func remoteHostOwnHome(t *testing.T) (h *Host, rh, userHome, work string) {
	t.Helper()
	h, _, rh = remoteHostEnv(t, func(rh string) string {
		userHome = filepath.Join(rh, "user-home")
		return " HOME=" + userHome
	})
	work = filepath.Join(userHome, "proj")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	return h, rh, userHome, work
}
