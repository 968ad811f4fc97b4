package host

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/internal/testenv"
	"github.com/reprise-dev/reprise/internal/testenv/remotetest"
)

// remoteHost starts a real sshd and a host with a remote host "box" on it:
// the same Unix user, a Reprise home of its own on the "remote" side.
func remoteHost(t *testing.T) (*Host, *testenv.SSHD, string) {
	t.Helper()
	return remoteHostEnv(t, nil)
}

// remoteHostEnv is remoteHost with more variables for the remote sessions
// (" NAME=value…", given the remote home).
func remoteHostEnv(t *testing.T, extra func(rh string) string) (*Host, *testenv.SSHD, string) {
	t.Helper()
	rh := testenv.RemoteHome(t)
	more := ""
	if extra != nil {
		more = extra(rh)
	}
	// The fake agents on the remote PATH, keeping their state in the
	// remote home rather than the test user's own ~/.claude.
	s := testenv.StartSSHD(t, "SetEnv PATH="+fakeBin+":/usr/bin:/bin CLAUDE_CONFIG_DIR="+filepath.Join(rh, "claude-config")+" CODEX_HOME="+filepath.Join(rh, "codex-home")+more)
	home := newHome(t)
	h := startHost(t, home)
	t.Cleanup(func() {
		h.Close()
		remotetest.KillMaster(home.Dir, s, rh)
	})
	if _, err := h.Store().AddHost(context.Background(), remotetest.Host(s, rh)); err != nil {
		t.Fatal(err)
	}
	return h, s, rh
}

func waitUntil(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dropLink kills the host's ssh ControlMaster with SIGKILL: every channel
// to the remote (the host's control connection, each viewer's) dies with
// it, as when the network goes.
func dropLink(t *testing.T, h *Host) {
	t.Helper()
	e, err := h.endpoint(context.Background(), "box")
	if err != nil {
		t.Fatal(err)
	}
	pid := e.target.ControlPID(context.Background())
	if pid <= 0 {
		t.Fatal("no ssh ControlMaster runs")
	}
	// A lost network kills every connection to the host there is at that
	// moment. There is only the master's now (every other ssh is its
	// channel and never logs in on its own: remote/master.go), so this
	// only ends the channels' ssh processes a moment sooner; it once
	// covered ControlMaster=auto, where an ssh started while no master
	// answered ran on a connection of its own that killing the master left
	// up (a CI run: a drop that never showed "disconnected"). They are
	// listed before the master dies: listed after, the list also held the
	// reconnect's own new ssh processes, and killing those added backoff
	// steps to the reconnect this test measures.
	channels := sshPIDsUsing(t, e.target.ControlDir)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, p := range channels {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// sshPIDsUsing lists the ssh processes whose command line names dir (their
// ControlPath is in it).
func sshPIDsUsing(t *testing.T, dir string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		argv := strings.Split(string(b), "\x00")
		if filepath.Base(argv[0]) == "ssh" && strings.Contains(string(b), "ControlPath="+dir+"/") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// A remote stream across ten link drops: each drop shows the pane as
// disconnected with the terminal still running and its binding untouched;
// the same remote process carries on, and the stream the viewer receives
// is byte for byte what the program wrote (checksums equal): what it wrote
// while the link was down is replayed once, nothing is lost or doubled.
func TestRemoteStreamSurvivesLinkDrops(t *testing.T) {
	h, _, _ := remoteHost(t)
	ctx := context.Background()
	events := h.Subscribe()
	defer h.Unsubscribe(events)

	const lines = 4000
	script := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do echo "line-$i"; i=$((i+1)); [ $((i %% 20)) -eq 0 ] && sleep 0.02; done; echo END; exec sleep 600`, lines)
	term, err := h.createTerminal(ctx, newTerminal{host: "box", cwd: "/", argv: []string{"/bin/sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.applyBinding(ctx, term.ID, bindings.Input{Kind: bindings.KindLaunch, AgentID: "claude", SessionID: "s-remote", Cwd: "/", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	before, err := h.store.GetBinding(ctx, term.ID)
	if err != nil {
		t.Fatal(err)
	}
	v := h.NewViewer()
	defer v.Close()
	scr := attach(t, v, term.ID)
	pid := term.PID

	var reconnects, resumed []time.Duration
	readyCh := func() chan struct{} {
		v.mu.Lock()
		defer v.mu.Unlock()
		if rs := v.rsubs[term.ID]; rs != nil {
			return rs.ready
		}
		return nil
	}
	for drop := 0; drop < 10; drop++ {
		// Let some output through first, so each drop cuts a live stream.
		n := len(scr.String())
		waitUntil(t, "output before a drop", 20*time.Second, func() bool { return len(scr.String()) > n || strings.Contains(scr.String(), "END") })
		live := readyCh()
		dropped := time.Now()
		dropLink(t, h)
		sawLink := false
		waitUntil(t, "the pane to say disconnected", 10*time.Second, func() bool {
			for {
				select {
				case ev := <-events:
					if a, ok := ev.Data.(api.Terminal); ok && ev.Kind == api.EventTerminal && a.ID == term.ID && a.Link != "" {
						if a.Status != api.StatusRunning || a.Link != "disconnected from box — reconnecting" {
							t.Fatalf("while disconnected the terminal is %s with link %q", a.Status, a.Link)
						}
						sawLink = true
					}
				default:
					return sawLink
				}
			}
		})
		b, err := h.store.GetBinding(ctx, term.ID)
		if err != nil || b.EndReason != before.EndReason || b.SessionID != before.SessionID || b.EndedAt != nil {
			t.Fatalf("drop %d changed the binding: %+v (was %+v), %v", drop, b, before, err)
		}
		waitUntil(t, "the link to come back", 20*time.Second, func() bool { return h.HostStatus("box").State == "up" })
		reconnects = append(reconnects, time.Since(dropped))
		// The pane's own stream resubscribed (its channel's ready replaced
		// by the drop and closed again by the resume).
		waitUntil(t, "the stream to resume", 20*time.Second, func() bool {
			ch := readyCh()
			return ch != nil && ch != live && isReady(ch)
		})
		resumed = append(resumed, time.Since(dropped))
	}
	// Figures, not assertions (tests assert behaviour, never timing).
	slices.Sort(reconnects)
	slices.Sort(resumed)
	t.Logf("kill -9 of ssh → link up again: median %v, max %v over %d drops", reconnects[len(reconnects)/2], reconnects[len(reconnects)-1], len(reconnects))
	t.Logf("kill -9 of ssh → the pane's stream resumed: median %v, max %v", resumed[len(resumed)/2], resumed[len(resumed)-1])
	waitUntil(t, "the whole stream", 60*time.Second, func() bool { return strings.Contains(scr.String(), "END\r\n") })
	var want strings.Builder
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&want, "line-%d\r\n", i)
	}
	want.WriteString("END\r\n")
	got := scr.String()
	if sha256.Sum256([]byte(got)) != sha256.Sum256([]byte(want.String())) {
		t.Fatalf("stream differs after 10 drops: %d bytes, want %d; first difference at %d", len(got), want.Len(), firstDiff(got, want.String()))
	}
	tm, err := h.Terminal(ctx, term.ID)
	if err != nil || tm.Status != api.StatusRunning || tm.PID != pid || tm.Host != "box" || tm.Link != "" {
		t.Fatalf("after the drops the terminal is %+v (%v), want the same running pid %d on box", tm, err, pid)
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// kill -9 of the remote daemon is a death, unlike a dropped link: after
// the reconnect (which starts a new daemon) the terminal it no longer owns
// is lost and its agent's binding ends terminal-exited.
func TestRemoteDaemonKilledEndsTerminal(t *testing.T) {
	t.Run("daemon killed", func(t *testing.T) { testRemoteDeath(t, false) })
	// "Remote reboot": every process of the remote Reprise home (the
	// daemon, the terminals, what they started) killed at once.
	t.Run("remote reboot", func(t *testing.T) { testRemoteDeath(t, true) })
}

func testRemoteDeath(t *testing.T, reboot bool) {
	h, _, rh := remoteHost(t)
	ctx := context.Background()
	term, err := h.createTerminal(ctx, newTerminal{host: "box", argv: []string{"/bin/sh", "-c", "echo started; exec sleep 600"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.applyBinding(ctx, term.ID, bindings.Input{Kind: bindings.KindLaunch, AgentID: "claude", SessionID: "s-dead", Cwd: "/", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	st := h.HostStatus("box")
	if st.State != "up" || st.PID <= 0 {
		t.Fatalf("host status %+v", st)
	}
	if reboot {
		testenv.StopInstance(rh)
	} else if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the terminal to end", 20*time.Second, func() bool {
		tm, err := h.store.GetTerminal(ctx, term.ID)
		return err == nil && tm.Status != api.StatusRunning
	})
	b, err := h.store.GetBinding(ctx, term.ID)
	if err != nil || b.EndReason != bindings.TerminalExited {
		t.Fatalf("binding after the remote daemon died: %+v, %v; want terminal-exited", b, err)
	}
	waitUntil(t, "a new remote daemon", 20*time.Second, func() bool {
		s := h.HostStatus("box")
		return s.State == "up" && s.PID != st.PID
	})
}

// A new tab on a remote host runs the remote login shell in the remote
// home, and the local daemon and the remote one serve side by side.
func TestRemoteAndLocalSideBySide(t *testing.T) {
	h, _, rh := remoteHost(t)
	ctx := context.Background()
	if _, err := h.NewTabOn(ctx, "box", ""); err != nil {
		t.Fatal(err)
	}
	var remoteT, localT api.Terminal
	ts, err := h.Terminals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range ts {
		if tm.Status != api.StatusRunning {
			continue
		}
		if tm.Host == "box" {
			remoteT = tm
		} else {
			localT = tm
		}
	}
	if remoteT.ID == "" || localT.ID == "" {
		t.Fatalf("want one local and one remote terminal, have %+v", ts)
	}
	v := h.NewViewer()
	defer v.Close()
	rs, ls := attach(t, v, remoteT.ID), attach(t, v, localT.ID)
	if err := v.Input(ctx, remoteT.ID, []byte("echo remote:$REPRISE_HOME\n")); err != nil {
		t.Fatal(err)
	}
	if err := v.Input(ctx, localT.ID, []byte("echo local-$((40+2))\n")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the remote echo", 20*time.Second, func() bool { return strings.Contains(rs.String(), "remote:"+rh) })
	waitUntil(t, "the local echo", 20*time.Second, func() bool { return strings.Contains(ls.String(), "local-42") })
	if _, err := os.Stat(filepath.Join(rh, "run", "ptyd.sock")); err != nil {
		t.Errorf("remote daemon socket: %v", err)
	}
}

// The remote terminal outlives the host: a host that quits and starts
// again finds it running on the remote daemon (the link came back, nothing
// ended), and the pane's stream carries on with what it printed meanwhile.
func TestRemoteTerminalOutlivesHostRestart(t *testing.T) {
	h, s, rh := remoteHost(t)
	ctx := context.Background()
	term, err := h.createTerminal(ctx, newTerminal{host: "box", cwd: "/", argv: []string{"/bin/sh", "-c", "echo before; read x; echo after-$x; exec sleep 600"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.applyBinding(ctx, term.ID, bindings.Input{Kind: bindings.KindLaunch, AgentID: "claude", SessionID: "s-restart", Cwd: "/", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	h2 := restartHost(t, h, s, rh)
	waitUntil(t, "the link after the restart", 30*time.Second, func() bool { return h2.HostStatus("box").State == "up" })
	tm, err := h2.Terminal(ctx, term.ID)
	if err != nil || tm.Status != api.StatusRunning || tm.PID != term.PID {
		t.Fatalf("after the host restart: %+v, %v; want the same running terminal", tm, err)
	}
	if b, err := h2.store.GetBinding(ctx, term.ID); err != nil || b.EndedAt != nil {
		t.Fatalf("binding after the host restart: %+v, %v", b, err)
	}
	v := h2.NewViewer()
	defer v.Close()
	scr := attach(t, v, term.ID)
	if err := v.Input(ctx, term.ID, []byte("42\n")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the output", 20*time.Second, func() bool {
		return strings.Contains(scr.String(), "before") && strings.Contains(scr.String(), "after-42")
	})
}

// An agent on the remote host: prompt it with a codeword, kill -9 the
// remote daemon, and Resume from the banner runs the agent again on that
// host, in its remote cwd, in the same pane: the conversation (the
// codeword) comes back.
func TestRemoteAgentResumesOnItsHost(t *testing.T) {
	h, _, rh := remoteHost(t)
	ctx := context.Background()
	work := filepath.Join(rh, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	res, v, _ := remoteAgent(t, h, work, "MANGO-31")
	killRemoteDaemon(t, h)
	var b api.Binding
	waitUntil(t, "a resume candidate", 30*time.Second, func() bool {
		bs, err := h.store.GetBinding(ctx, res.TerminalID)
		if err != nil {
			return false
		}
		b = h.bindingToAPI(ctx, bs)
		return b.Candidate
	})
	if b.EndReason != bindings.TerminalExited || b.SessionID != res.SessionID {
		t.Fatalf("binding after the remote daemon died: %+v", b)
	}
	waitUntil(t, "the link back", 30*time.Second, func() bool { return h.HostStatus("box").State == "up" })
	r, err := h.Resume(ctx, res.TerminalID)
	if err != nil {
		t.Fatal(err)
	}
	runningOnBox(t, h, r.TerminalID, work)
	if !containsSeq(r.Argv, "--resume", res.SessionID) {
		t.Fatalf("resume argv %v", r.Argv)
	}
	codewordBack(t, v, r, res.PaneID, "MANGO-31")
}
