package host

import (
	"bytes"
	"context"
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
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/scrollback"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// reprise is the real binary, built once: its "ptyd" subcommand is the
// daemon the host starts. binDir is the test binary's own temp dir, which
// TestMain removes at exit.
var reprise, binDir string

func TestMain(m *testing.M) {
	testenv.Main(m, func(b *testenv.Binaries) { reprise, fakeBin, binDir = b.Reprise, b.FakeBin, b.Dir })
}

func newHome(t *testing.T) paths.Home {
	t.Helper()
	// Short path: Unix socket paths are limited to 107 bytes.
	dir, err := os.MkdirTemp("", "rh")
	if err != nil {
		t.Fatal(err)
	}
	home := paths.Home{Dir: dir}
	t.Cleanup(func() {
		testenv.StopInstance(dir)
		os.RemoveAll(dir)
	})
	return home
}

func startHost(t *testing.T, home paths.Home) *Host {
	t.Helper()
	h, err := Start(context.Background(), Config{
		Home: home, Exe: reprise, Shell: []string{"/bin/sh"},
		BaseEnv: []string{"PATH=/usr/bin:/bin", "PS1=$ ", "HOME=" + home.Dir},
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: testLogLevel()})),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// testLogLevel is the hosts' log level in tests: warnings, or everything
// with REPRISE_TEST_LOG=info (to see what a failing test's host did).
func testLogLevel() slog.Level {
	if os.Getenv("REPRISE_TEST_LOG") == "info" {
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

// screen collects what a viewer streams for one terminal.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.buf.String() }

func attach(t *testing.T, v *Viewer, id string) *screen {
	t.Helper()
	s := &screen{}
	_, _, err := v.Attach(context.Background(), id, 80, 24, Stream{OnData: func(p []byte) {
		s.mu.Lock()
		s.buf.Write(p)
		s.mu.Unlock()
		_ = v.Ack(id, int64(len(p)))
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func waitText(t *testing.T, s *screen, want string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%q on screen (have %q)", want, s.String()), func() bool { return strings.Contains(s.String(), want) })
}

func panes(t *testing.T, h *Host) []layout.PaneRef {
	t.Helper()
	l, err := h.Layout(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return layout.Panes(l)
}

func terminal(t *testing.T, h *Host, id string) api.Terminal {
	t.Helper()
	tm, err := h.Terminal(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// twoPanes opens a split beside the first pane and prints a marker in each.
func twoPanes(t *testing.T, h *Host) ([]layout.PaneRef, []string) {
	t.Helper()
	ctx := context.Background()
	ps := panes(t, h)
	if len(ps) != 1 {
		t.Fatalf("fresh host should open one pane, has %d", len(ps))
	}
	if _, err := h.Split(ctx, ps[0].PaneID, api.DirRow); err != nil {
		t.Fatal(err)
	}
	ps = panes(t, h)
	v := h.NewViewer()
	defer v.Close()
	var marks []string
	for i, p := range ps {
		s := attach(t, v, p.TerminalID)
		mark := fmt.Sprintf("mark-%d-%d", i, time.Now().UnixNano()%1000)
		v.Input(ctx, p.TerminalID, []byte("echo "+mark+"-$((1+1))\n"))
		waitText(t, s, mark+"-2")
		marks = append(marks, mark+"-2")
	}
	return ps, marks
}

func TestDaemonOutlivesHost(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	ps, marks := twoPanes(t, h)
	pids := map[string]int{}
	for _, p := range ps {
		pids[p.TerminalID] = terminal(t, h, p.TerminalID).PID
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}

	h2 := startHost(t, home)
	defer h2.Close()
	ps2 := panes(t, h2)
	if len(ps2) != 2 {
		t.Fatalf("layout did not come back: %d panes", len(ps2))
	}
	v := h2.NewViewer()
	defer v.Close()
	for i, p := range ps2 {
		if p.TerminalID != ps[i].TerminalID {
			t.Fatalf("pane %d shows %s, want the same terminal %s", i, p.TerminalID, ps[i].TerminalID)
		}
		tm := terminal(t, h2, p.TerminalID)
		if tm.Status != api.StatusRunning || tm.PID != pids[p.TerminalID] {
			t.Fatalf("terminal %s: status %s pid %d, want running pid %d", p.TerminalID, tm.Status, tm.PID, pids[p.TerminalID])
		}
		s := attach(t, v, p.TerminalID)
		waitText(t, s, marks[i]) // the replay shows what was printed before
		v.Input(context.Background(), p.TerminalID, []byte("echo pid=$$\n"))
		waitText(t, s, fmt.Sprintf("pid=%d", pids[p.TerminalID]))
	}
}

func TestKilledDaemonColdRespawnsPanes(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	defer h.Close()
	ctx := context.Background()
	// Give the first pane a directory of its own, to check the new shell starts there.
	work := filepath.Join(home.Dir, "work dir")
	os.Mkdir(work, 0o755)
	ps, marks := twoPanes(t, h)
	v := h.NewViewer()
	s := attach(t, v, ps[0].TerminalID)
	v.Input(ctx, ps[0].TerminalID, []byte("cd '"+work+"'\n"))
	v.Input(ctx, ps[0].TerminalID, []byte("echo now-in-$(pwd)\n"))
	waitText(t, s, "now-in-"+work)
	v.Close()
	// The host records the shell's directory within its 1 s poll.
	waitFor(t, "cwd recorded", func() bool { return terminal(t, h, ps[0].TerminalID).Cwd == work })

	// The shells last printed an hour ago (an idle shell): the host sees the daemon die, so the
	// divider must say when it died, not when the shell last printed.
	for _, p := range ps {
		cur, _, err := scrollback.Paths(home.ScrollbackDir(), p.TerminalID)
		if err != nil {
			t.Fatal(err)
		}
		hourAgo := time.Now().Add(-time.Hour)
		if err := os.Chtimes(cur, hourAgo, hourAgo); err != nil {
			t.Fatal(err)
		}
	}
	beforeKill := time.Now()
	oldPID := h.DaemonStatus().PID
	if err := syscall.Kill(oldPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	waitFor(t, "a new daemon", func() bool { st := h.DaemonStatus(); return st.State == "up" && st.PID != oldPID })
	if d := time.Since(killed); d > 2*time.Second {
		t.Fatalf("host took %v to notice the daemon's death", d)
	}
	waitFor(t, "panes cold-respawned", func() bool {
		for i, p := range panes(t, h) {
			if p.TerminalID == ps[i].TerminalID {
				return false
			}
		}
		return true
	})
	v2 := h.NewViewer()
	defer v2.Close()
	for i, p := range panes(t, h) {
		old := terminal(t, h, ps[i].TerminalID)
		if old.Status != api.StatusLost || old.EndedAt == nil {
			t.Fatalf("old terminal %s: status %s ended %v, want lost with a time", old.ID, old.Status, old.EndedAt)
		}
		if old.EndedAt.Before(beforeKill.Add(-time.Second)) {
			t.Fatalf("old terminal %s: ended at %v, before the daemon was killed at %v (its last output, not its death)", old.ID, old.EndedAt, beforeKill)
		}
		nt := terminal(t, h, p.TerminalID)
		if nt.RestoredFrom != old.ID || nt.Status != api.StatusRunning {
			t.Fatalf("new terminal %+v should be running and restored from %s", nt, old.ID)
		}
		s := attach(t, v2, p.TerminalID)
		waitText(t, s, Divider)
		text := s.String()
		if want := Divider + " at " + old.EndedAt.Local().Format("2006-01-02 15:04:05"); !strings.Contains(text, want) {
			t.Fatalf("pane %d: divider does not say %q:\n%q", i, want, text)
		}
		if at := strings.Index(text, marks[i]); at < 0 || at > strings.Index(text, Divider) {
			t.Fatalf("pane %d: previous output %q not above the divider:\n%q", i, marks[i], text)
		}
		v2.Input(ctx, p.TerminalID, []byte("echo \"cwd=$(pwd)\"\n"))
		if i == 0 {
			waitText(t, s, "cwd="+work)
		} else {
			waitText(t, s, "cwd=")
		}
	}
}

// A reboot: the host is gone, then the daemon dies with its shells; the
// next host start finds the terminals missing and restores every pane.
func TestRebootRestoresPanes(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	ps, marks := twoPanes(t, h)
	daemonPID := h.DaemonStatus().PID
	h.Close()
	syscall.Kill(daemonPID, syscall.SIGKILL)
	time.Sleep(100 * time.Millisecond)

	h2 := startHost(t, home)
	defer h2.Close()
	v := h2.NewViewer()
	defer v.Close()
	for i, p := range panes(t, h2) {
		if p.TerminalID == ps[i].TerminalID {
			t.Fatalf("pane %d still shows the dead terminal", i)
		}
		s := attach(t, v, p.TerminalID)
		waitText(t, s, marks[i])
		waitText(t, s, Divider)
	}
}

func TestExitStatusKeepsOrClosesPane(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	defer h.Close()
	ctx := context.Background()
	ps, _ := twoPanes(t, h)
	v := h.NewViewer()
	defer v.Close()

	v.Input(ctx, ps[0].TerminalID, []byte("exit 3\n"))
	waitFor(t, "exit 3 recorded", func() bool { return terminal(t, h, ps[0].TerminalID).Status == api.StatusExited })
	tm := terminal(t, h, ps[0].TerminalID)
	if tm.ExitCode == nil || *tm.ExitCode != 3 {
		t.Fatalf("exit code %v, want 3", tm.ExitCode)
	}
	if len(panes(t, h)) != 2 {
		t.Fatal("a failed shell's pane should stay, showing how it ended")
	}
	// The dead pane still shows its output, from the log on disk.
	s := attach(t, v, ps[0].TerminalID)
	waitText(t, s, "mark-0")
	if _, err := h.RestartPane(ctx, ps[0].PaneID); err != nil {
		t.Fatal(err)
	}
	restarted := panes(t, h)[0]
	rs := attach(t, v, restarted.TerminalID)
	waitText(t, rs, "exited with status 3")
	if !strings.Contains(rs.String(), "mark-0") {
		t.Fatalf("restarted pane lost the old output: %q", rs.String())
	}

	v.Input(ctx, ps[1].TerminalID, []byte("kill -9 $$\n"))
	waitFor(t, "signal recorded", func() bool { return terminal(t, h, ps[1].TerminalID).ExitSignal == "SIGKILL" })

	first := panes(t, h)[0]
	v.Input(ctx, first.TerminalID, []byte("exit\n"))
	waitFor(t, "clean exit closes its pane", func() bool { return len(panes(t, h)) == 1 })
}

func TestClosePaneStampsClosedBeforeHangup(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	defer h.Close()
	ps, _ := twoPanes(t, h)
	if _, err := h.ClosePane(context.Background(), ps[1].PaneID); err != nil {
		t.Fatal(err)
	}
	// The hang-up's exit event arrives and must not overwrite "closed".
	waitFor(t, "log deleted", func() bool { _, _, ok, _ := tailOf(home, ps[1].TerminalID); return !ok })
	time.Sleep(200 * time.Millisecond)
	tm := terminal(t, h, ps[1].TerminalID)
	if tm.Status != api.StatusClosed {
		t.Fatalf("closed pane's terminal has status %s", tm.Status)
	}
}

// Closing the last tab, or the last shell's clean exit, opens a fresh tab (docs/wire.md): the
// window was left blank.
func TestClosingTheLastTabOpensAFreshOne(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	defer h.Close()
	ctx := context.Background()
	first := panes(t, h)
	l, err := h.Layout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l, err = h.CloseTab(ctx, l.Tabs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if ps := layout.Panes(l); len(ps) != 1 || ps[0].PaneID == first[0].PaneID {
		t.Fatalf("after closing the last tab: panes %+v, want one new pane", ps)
	}
	second := panes(t, h)
	if _, err := h.ClosePane(ctx, second[0].PaneID); err != nil {
		t.Fatal(err)
	}
	if ps := panes(t, h); len(ps) != 1 || ps[0].PaneID == second[0].PaneID {
		t.Fatalf("after closing the last pane: panes %+v, want one new pane", ps)
	}
	third := panes(t, h)
	v := h.NewViewer()
	defer v.Close()
	attach(t, v, third[0].TerminalID)
	v.Input(ctx, third[0].TerminalID, []byte("exit\n"))
	waitFor(t, "a fresh tab after the last shell's exit", func() bool {
		ps := panes(t, h)
		return len(ps) == 1 && ps[0].PaneID != third[0].PaneID
	})
}

func TestOneHostPerHome(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	defer h.Close()
	_, err := Start(context.Background(), Config{Home: home, Exe: reprise})
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second host: %v", err)
	}
}

// Programs in a pane get default signal dispositions from the real daemon:
// a shell's jobs must die of SIGHUP and SIGPIPE like in any terminal.
func TestPaneSignalsNotIgnored(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	defer h.Close()
	v := h.NewViewer()
	defer v.Close()
	tid := panes(t, h)[0].TerminalID
	s := attach(t, v, tid)
	v.Input(context.Background(), tid, []byte("echo ign=$(grep SigIgn /proc/self/status | cut -f2)\n"))
	waitText(t, s, "ign=")
	waitFor(t, "SigIgn line", func() bool { return strings.Contains(s.String(), "ign=0") })
	i := strings.LastIndex(s.String(), "ign=")
	val := strings.TrimSpace(strings.SplitN(s.String()[i+4:], "\r", 2)[0])
	var mask uint64
	fmt.Sscanf(val, "%x", &mask)
	// SigIgn has bit n-1 set for ignored signal n.
	if mask&(1<<(uint(syscall.SIGHUP)-1)) != 0 || mask&(1<<(uint(syscall.SIGPIPE)-1)) != 0 {
		t.Fatalf("SIGHUP or SIGPIPE ignored in panes: SigIgn %s", val)
	}
}

// A `cd` in a shell reaches subscribers as a terminal event with the new
// directory (within the host's 1 s poll), so pane and tab titles follow it
// without a reload even when the shell reports nothing itself (no OSC 7).
func TestCdPushesTerminalEvent(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	defer h.Close()
	ctx := context.Background()
	ps := panes(t, h)
	work := filepath.Join(home.Dir, "somewhere")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	events := h.Subscribe()
	defer h.Unsubscribe(events)
	v := h.NewViewer()
	defer v.Close()
	s := attach(t, v, ps[0].TerminalID)
	v.Input(ctx, ps[0].TerminalID, []byte("cd '"+work+"' && echo now-$((2+3))\n"))
	waitText(t, s, "now-5")
	deadline := time.After(8 * time.Second)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatal("event channel closed")
			}
			if tm, isTerm := e.Data.(api.Terminal); isTerm && e.Kind == api.EventTerminal && tm.ID == ps[0].TerminalID && tm.Cwd == work {
				return
			}
		case <-deadline:
			t.Fatalf("no terminal event with cwd %s (terminal's cwd now %q)", work, terminal(t, h, ps[0].TerminalID).Cwd)
		}
	}
}
