package ptyd

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/ptyproto"
)

// startServer runs an in-process daemon on a real Unix socket.
func startServer(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	dir := t.TempDir()
	sock := filepath.Join(dir, "ptyd.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ScrollbackDir == "" {
		cfg.ScrollbackDir = filepath.Join(dir, "scrollback")
	}
	srv := New(cfg)
	go srv.Serve(ln)
	t.Cleanup(func() { ln.Close(); srv.Shutdown() })
	return srv, sock
}

func dial(t *testing.T, sock string, opts ptyclient.Options) *ptyclient.Client {
	t.Helper()
	c, err := ptyclient.Dial(context.Background(), sock, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// output collects a subscription's bytes, acknowledging them at once.
type output struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	exit chan ptyproto.SessionInfo
}

func subscribe(t *testing.T, c *ptyclient.Client, id string) *output {
	t.Helper()
	return subscribeLines(t, c, id, 0)
}

// subscribeLines subscribes asking for at most lines lines of replay (0: all).
func subscribeLines(t *testing.T, c *ptyclient.Client, id string, lines int) *output {
	t.Helper()
	o := &output{exit: make(chan ptyproto.SessionInfo, 1)}
	// Output can arrive before Subscribe returns (it runs on the client's
	// reader goroutine, which must never block): bytes that come before
	// the subscription is known are acknowledged as soon as it is.
	var sub *ptyclient.Subscription
	var unacked int64
	s, err := c.Subscribe(context.Background(), id, ptyclient.SubscribeOptions{
		OnData: func(p []byte) {
			o.mu.Lock()
			o.buf.Write(p)
			unacked += int64(len(p))
			n, sb := unacked, sub
			if sb != nil {
				unacked = 0
			}
			o.mu.Unlock()
			if sb != nil {
				sb.Ack(n)
			}
		},
		OnExit:      func(i ptyproto.SessionInfo) { o.exit <- i },
		ReplayLines: lines,
	})
	if err != nil {
		t.Fatal(err)
	}
	o.mu.Lock()
	sub = s
	n := unacked
	unacked = 0
	o.mu.Unlock()
	s.Ack(n)
	return o
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

func (o *output) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(o.String(), want) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %q; got %q", want, o.String())
}

func open(t *testing.T, c *ptyclient.Client, id string, argv ...string) ptyproto.SessionInfo {
	t.Helper()
	info, err := c.Open(context.Background(), ptyclient.OpenRequest{
		ID: id, Argv: argv, Cwd: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "PS1=$ "},
		Cols: 80, Rows: 24, Log: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func TestEchoRoundTrip(t *testing.T) {
	_, sock := startServer(t, Config{})
	c := dial(t, sock, ptyclient.Options{Name: "test"})
	open(t, c, "t_echo", "/bin/sh")
	o := subscribe(t, c, "t_echo")
	if err := c.Input("t_echo", []byte("echo hel''lo-$((40+2))\n")); err != nil {
		t.Fatal(err)
	}
	o.waitFor(t, "hello-42")
}

func TestResizeReachesPty(t *testing.T) {
	_, sock := startServer(t, Config{})
	c := dial(t, sock, ptyclient.Options{})
	open(t, c, "t_size", "/bin/sh")
	o := subscribe(t, c, "t_size")
	if err := c.Resize(context.Background(), "t_size", 132, 43); err != nil {
		t.Fatal(err)
	}
	c.Input("t_size", []byte("stty size\n"))
	o.waitFor(t, "43 132")
}

func TestExitStatusAndSignal(t *testing.T) {
	cases := []struct {
		name, script string
		code         int
		signal       string
	}{
		{"exit 3", "exit 3\n", 3, ""},
		{"exit 0", "exit\n", 0, ""},
		{"kill -9 self", "kill -9 $$\n", -1, "SIGKILL"},
	}
	_, sock := startServer(t, Config{})
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, sock, ptyclient.Options{})
			id := fmt.Sprintf("t_exit%d", i)
			open(t, c, id, "/bin/sh")
			o := subscribe(t, c, id)
			c.Input(id, []byte(tc.script))
			select {
			case inf := <-o.exit:
				if tc.signal != "" {
					if inf.ExitSignal != tc.signal || inf.ExitCode != nil {
						t.Fatalf("got code %v signal %q, want signal %s", inf.ExitCode, inf.ExitSignal, tc.signal)
					}
				} else if inf.ExitCode == nil || *inf.ExitCode != tc.code {
					t.Fatalf("got code %v signal %q, want %d", inf.ExitCode, inf.ExitSignal, tc.code)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no exit notification")
			}
		})
	}
}

func TestEnvCwdAndBadCwd(t *testing.T) {
	_, sock := startServer(t, Config{})
	c := dial(t, sock, ptyclient.Options{})
	cwd := t.TempDir()
	_, err := c.Open(context.Background(), ptyclient.OpenRequest{ID: "t_env", Argv: []string{"/bin/sh"}, Cwd: cwd,
		Env: []string{"PATH=/usr/bin:/bin", "REPRISE_TERMINAL_ID=t_env", "FOO=bar baz"}})
	if err != nil {
		t.Fatal(err)
	}
	o := subscribe(t, c, "t_env")
	c.Input("t_env", []byte("echo \"[$REPRISE_TERMINAL_ID|$FOO|$(pwd)]\"\n"))
	o.waitFor(t, "[t_env|bar baz|"+cwd+"]")

	_, err = c.Open(context.Background(), ptyclient.OpenRequest{ID: "t_bad", Argv: []string{"/bin/sh"}, Cwd: "/nonexistent/dir"})
	if err == nil || err.Error() != "no such directory: /nonexistent/dir" {
		t.Fatalf("bad cwd: got %v", err)
	}
	_, err = c.Open(context.Background(), ptyclient.OpenRequest{ID: "t_nobin", Argv: []string{"no-such-agent-cli"}, Cwd: cwd, Env: []string{"PATH=/usr/bin"}})
	if err == nil || !strings.Contains(err.Error(), "no-such-agent-cli was not found on PATH") {
		t.Fatalf("missing binary: got %v", err)
	}
	_, err = c.Open(context.Background(), ptyclient.OpenRequest{ID: "../evil", Argv: []string{"/bin/sh"}, Cwd: cwd})
	if err == nil {
		t.Fatal("hostile id accepted")
	}
}

func TestReplayAtMostTheLinesAsked(t *testing.T) {
	_, sock := startServer(t, Config{})
	c := dial(t, sock, ptyclient.Options{Name: "first"})
	open(t, c, "t_lines", "/bin/sh", "-c", "seq 1 200; exec sleep 30")
	subscribe(t, c, "t_lines").waitFor(t, "200\r\n")

	// A later viewer that keeps 5 lines gets the last 5, whole; one that says nothing gets all.
	five := subscribeLines(t, dial(t, sock, ptyclient.Options{Name: "five"}), "t_lines", 5)
	all := subscribe(t, dial(t, sock, ptyclient.Options{Name: "all"}), "t_lines")
	all.waitFor(t, "200\r\n")
	five.waitFor(t, "200\r\n")
	if got, want := five.String(), "196\r\n197\r\n198\r\n199\r\n200\r\n"; got != want {
		t.Fatalf("replay of 5 lines = %q, want %q", got, want)
	}
	if !strings.HasPrefix(all.String(), "1\r\n2\r\n3\r\n") {
		t.Fatalf("full replay starts %q", all.String()[:min(20, len(all.String()))])
	}
}

func TestReplayAndExitWaitsForCollection(t *testing.T) {
	srv, sock := startServer(t, Config{})
	c1 := dial(t, sock, ptyclient.Options{})
	open(t, c1, "t_rep", "/bin/sh")
	c1.Input("t_rep", []byte("echo before-$((1+1))\n"))
	time.Sleep(200 * time.Millisecond)
	c1.Close() // the host goes away

	exits := make(chan ptyproto.SessionInfo, 1)
	c2 := dial(t, sock, ptyclient.Options{OnExit: func(i ptyproto.SessionInfo) { exits <- i }})
	o := subscribe(t, c2, "t_rep")
	o.waitFor(t, "before-2") // replay shows what was printed before
	o.exit = make(chan ptyproto.SessionInfo, 1)
	c2.Input("t_rep", []byte("exit 7\n"))
	<-o.exit
	list, err := c2.List(context.Background())
	if err != nil || len(list) != 1 || list[0].Alive || *list[0].ExitCode != 7 {
		t.Fatalf("exited session should wait for collection: %+v %v", list, err)
	}
	if err := c2.Collect(context.Background(), "t_rep"); err != nil {
		t.Fatal(err)
	}
	if srv.SessionCount() != 0 {
		t.Fatal("collected session still held")
	}
}

func TestExitNotifiesUnsubscribedClient(t *testing.T) {
	_, sock := startServer(t, Config{})
	exits := make(chan ptyproto.SessionInfo, 4)
	ctl := dial(t, sock, ptyclient.Options{OnExit: func(i ptyproto.SessionInfo) { exits <- i }})
	open(t, ctl, "t_n", "/bin/sh", "-c", "exit 5")
	select {
	case inf := <-exits:
		if inf.ID != "t_n" || inf.ExitCode == nil || *inf.ExitCode != 5 {
			t.Fatalf("got %+v", inf)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit event")
	}
}

// A client that stops acknowledging stalls only the session it subscribed
// to: the process blocks on a full pty, the backlog stays bounded, and
// other sessions keep streaming.
func TestStalledClientStallsOnlyItsSession(t *testing.T) {
	const hw = 200 << 10 // not a multiple of the 64 KiB read buffer
	srv, sock := startServer(t, Config{HighWater: hw, ReplaySize: 64 << 10})
	stalled := dial(t, sock, ptyclient.Options{Name: "stalled"})
	open(t, stalled, "t_flood", "/bin/sh", "-c", "yes flood-line-padding-padding")
	var got int64
	var mu sync.Mutex
	if _, err := stalled.Subscribe(context.Background(), "t_flood", ptyclient.SubscribeOptions{OnData: func(p []byte) {
		mu.Lock()
		got += int64(len(p))
		mu.Unlock()
	}}); err != nil { // never acks
		t.Fatal(err)
	}
	healthy := dial(t, sock, ptyclient.Options{Name: "healthy"})
	open(t, healthy, "t_ok", "/bin/sh")
	o := subscribe(t, healthy, "t_ok")
	time.Sleep(500 * time.Millisecond)
	for i := 0; i < 20; i++ {
		healthy.Input("t_ok", []byte(fmt.Sprintf("echo tick-%d\n", i)))
		o.waitFor(t, fmt.Sprintf("tick-%d\r\n", i))
	}
	mu.Lock()
	first := got
	mu.Unlock()
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	second := got
	mu.Unlock()
	if second != first {
		t.Fatalf("stalled client kept receiving: %d then %d bytes", first, second)
	}
	// The pty is read only as far as the window has room: not one byte
	// over it (it used to be one 64 KiB read over, all of it still to draw
	// after a Ctrl+C).
	if first > hw {
		t.Fatalf("stalled client received %d bytes, over the watermark", first)
	}
	ss, _ := srv.session("t_flood")
	ss.mu.Lock()
	var backlog int64
	for _, b := range ss.subs {
		backlog += b.backlog()
	}
	ss.mu.Unlock()
	if backlog > hw {
		t.Fatalf("backlog %d grew past the watermark", backlog)
	}
}

// What a subscriber has in flight (sent or pending, not acknowledged) never
// exceeds its window, even when the pty holds much more: the reader takes
// only what the window has room for, and a Ctrl+C discards the rest in the
// kernel. It used to read a whole 64 KiB on top of a window that was just
// under its limit, all of which the page then still had to draw.
func TestReadBoundedByWindow(t *testing.T) {
	const hw = 20 << 10
	srv, sock := startServer(t, Config{HighWater: hw})
	c := dial(t, sock, ptyclient.Options{Name: "slow"})
	// yes starts once subscribed, so there is no replay (which may exceed
	// the window).
	open(t, c, "t_win", "/bin/sh", "-c", "read x; exec yes")
	var mu sync.Mutex
	var received int64
	sub, err := c.Subscribe(context.Background(), "t_win", ptyclient.SubscribeOptions{OnData: func(p []byte) {
		mu.Lock()
		received += int64(len(p))
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Input("t_win", []byte("\n")); err != nil {
		t.Fatal(err)
	}
	ss, _ := srv.session("t_win")
	backlog := func() int64 {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		for _, b := range ss.subs {
			return b.backlog()
		}
		return 0
	}
	var acked int64
	for round := 0; round < 10; round++ {
		// The pty fills up meanwhile; then a little is acknowledged.
		time.Sleep(50 * time.Millisecond)
		if b := backlog(); b > hw {
			t.Fatalf("round %d: %d bytes in flight, over the %d-byte window", round, b, hw)
		}
		mu.Lock()
		n := min(received-acked, 8<<10)
		mu.Unlock()
		acked += n
		if err := sub.Ack(n); err != nil {
			t.Fatal(err)
		}
	}
	if acked == 0 {
		t.Fatal("nothing flowed")
	}
}

// A rate the client reports with its acks reaches the daemon and sizes the
// subscriber's window (ptyproto.FeatureAckRate).
func TestAckRateSizesWindow(t *testing.T) {
	srv, sock := startServer(t, Config{})
	c := dial(t, sock, ptyclient.Options{Name: "rate"})
	open(t, c, "t_rate", "/bin/sh", "-c", "sleep 30")
	sub, err := c.Subscribe(context.Background(), "t_rate", ptyclient.SubscribeOptions{OnData: func([]byte) {}})
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := srv.session("t_rate")
	window := func() int64 {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		for _, b := range ss.subs {
			return b.window
		}
		return 0
	}
	if err := sub.AckRate(1, 3e6); err != nil {
		t.Fatal(err)
	}
	want := int64(3e6 * srv.cfg.WindowTime.Seconds())
	for deadline := time.Now().Add(5 * time.Second); window() != want; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("window %d after an ack reporting 3 MB/s, want %d", window(), want)
		}
	}
}

// A queue the client reports with its acks (ptyproto.FeatureAckQueue)
// reaches the daemon and steers the window, instead of the rate-only rule
// setting it.
func TestAckQueueSteersWindow(t *testing.T) {
	srv, sock := startServer(t, Config{})
	c := dial(t, sock, ptyclient.Options{Name: "queue"})
	open(t, c, "t_queue", "/bin/sh", "-c", "sleep 30")
	sub, err := c.Subscribe(context.Background(), "t_queue", ptyclient.SubscribeOptions{OnData: func([]byte) {}})
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := srv.session("t_queue")
	window := func(set int64) int64 {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		for _, b := range ss.subs {
			if set > 0 {
				b.window = set
			}
			return b.window
		}
		return 0
	}
	window(200_000)
	floor := int64(3e6 * srv.cfg.WindowTime.Seconds())
	// A page holding 1 MB to draw: the window shrinks, by a step.
	if err := sub.AckQueue(40_000, 3e6, 1_000_000); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); window(0) == 200_000; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("window unchanged after an ack reporting a 1 MB queue")
		}
	}
	if w := window(0); w <= floor || w >= 200_000 {
		t.Fatalf("window %d after an ack reporting a 1 MB queue, want a step down from 200000, above the floor %d", w, floor)
	}
}

func TestVersionMismatchRefused(t *testing.T) {
	_, sock := startServer(t, Config{})
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.THello, Version: ptyproto.Version + 1}, nil)
	f, err := ptyproto.ReadFrame(conn)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Type != ptyproto.TError || !strings.Contains(f.Header.Error, fmt.Sprintf("v%d", ptyproto.Version+1)) {
		t.Fatalf("got %+v", f.Header)
	}
}

// The daemon must stay small: no database, no UI toolkit.
func TestDependencyGuard(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, bad := range []string{"gorm.io/", "github.com/wailsapp/", "database/sql", "github.com/mattn/go-sqlite3"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("ptyd links %s", bad)
		}
	}
}

// A shell that exits while an orphan still holds the terminal ends the
// session anyway (the orphan is hung up), within moments.
func TestExitWithOrphanHoldingPty(t *testing.T) {
	_, sock := startServer(t, Config{})
	c := dial(t, sock, ptyclient.Options{})
	open(t, c, "t_orph", "/bin/sh")
	o := subscribe(t, c, "t_orph")
	c.Input("t_orph", []byte("sleep 30 & exit 3\n"))
	select {
	case inf := <-o.exit:
		if inf.ExitCode == nil || *inf.ExitCode != 3 {
			t.Fatalf("exit %+v", inf)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("session did not end while an orphan held its pty")
	}
}

// The window follows how fast the subscriber acknowledges, measured only
// while the reader waited on it: WindowTime of output at that rate, clamped
// to [MinWindow, HighWater].
func TestWindowFollowsAckRate(t *testing.T) {
	cfg := Config{HighWater: 1 << 20, MinWindow: 64 << 10, WindowTime: 100 * time.Millisecond}
	cfg.fill()
	t0 := time.Unix(1000, 0)
	b := &sub{window: cfg.HighWater, unacked: 1 << 30} // never all acknowledged: see TestWindowStartsAgainWhenCaughtUp

	// Acks while the reader never waited (an idle shell, an echo) say nothing
	// about the reader's speed.
	b.acked(10, 0, -1, t0, &cfg)
	b.acked(10, 0, -1, t0.Add(time.Second), &cfg)
	if b.window != cfg.HighWater || b.rate != 0 {
		t.Fatalf("unblocked acks changed the window: %d (rate %v)", b.window, b.rate)
	}

	// Blocked: 200 KB acknowledged in 100 ms is 2 MB/s, 200 KB a window.
	b.waiting, b.blockedSince = true, t0.Add(2*time.Second)
	b.acked(200_000, 0, -1, t0.Add(2100*time.Millisecond), &cfg)
	if b.window != 200_000 {
		t.Fatalf("window %d at 2 MB/s, want 200000", b.window)
	}
	// Still waiting: the next interval counts from this ack.
	if !b.blockedSince.Equal(t0.Add(2100 * time.Millisecond)) {
		t.Fatalf("blockedSince %v", b.blockedSince)
	}
	// A crawl: the window bottoms out at MinWindow.
	for i := 1; i <= 20; i++ {
		b.acked(1000, 0, -1, t0.Add(2100*time.Millisecond+time.Duration(i)*100*time.Millisecond), &cfg)
	}
	if b.window != cfg.MinWindow {
		t.Fatalf("window %d for a crawling reader, want the minimum %d", b.window, cfg.MinWindow)
	}
	// A fast reader again: back to the whole HighWater.
	at := t0.Add(10 * time.Second)
	for i := 1; i <= 20; i++ {
		b.acked(1<<20, 0, -1, at.Add(time.Duration(i)*10*time.Millisecond), &cfg)
	}
	if b.window != cfg.HighWater {
		t.Fatalf("window %d for a fast reader, want HighWater %d", b.window, cfg.HighWater)
	}
	// The reader stopped waiting: the next ack takes no sample.
	b.waiting = false
	b.acked(1, 0, -1, at.Add(time.Second), &cfg)
	w := b.window
	b.acked(1, 0, -1, at.Add(2*time.Second), &cfg)
	if b.window != w {
		t.Fatalf("window moved without the reader waiting: %d → %d", w, b.window)
	}
	// A rate the reader reports (FeatureAckRate) sizes the window whatever
	// the ack timing, the reader waiting or not.
	b.acked(1, 1e6, -1, at.Add(3*time.Second), &cfg)
	if b.window != 100_000 {
		t.Fatalf("window %d for a reader reporting 1 MB/s, want 100000", b.window)
	}
	b.acked(1, 1e3, -1, at.Add(4*time.Second), &cfg)
	if b.window != cfg.MinWindow {
		t.Fatalf("window %d for a reader reporting 1 KB/s, want MinWindow %d", b.window, cfg.MinWindow)
	}
	b.acked(1, 1e12, -1, at.Add(5*time.Second), &cfg)
	if b.window != cfg.HighWater {
		t.Fatalf("window %d for a reader reporting 1 TB/s, want HighWater %d", b.window, cfg.HighWater)
	}
}

// The window is only WindowTime of the reader's rate, 8 KiB at the least,
// and the reader is held back until a quarter of it is free. Starting from
// MinWindow it must still grow to about WindowTime of the reader's rate, and
// not settle at MinWindow per round trip: a simulation of the daemon's reader
// (session.room) and a page that parses at 2 MB/s, acks every 4 KiB and
// when it runs out of output, and reports the rate it measures over its busy
// time (stream/feeder.ts, flow.ts), over a 9 ms ack round trip. From the ack
// timing alone, the time the page sat idle waiting for the bytes held back
// read as a slow page and the window settled at MinWindow: the page parsed
// 0.4 of its rate.
func TestWindowGrowsFromMinimum(t *testing.T) {
	cfg := Config{}
	cfg.fill()
	w, rate, parsed, _ := simulateWindow(&cfg, 2e6, 9*time.Millisecond)
	want := 2e6 * cfg.WindowTime.Seconds()
	if float64(w) < 0.8*want || float64(w) > 1.25*want {
		t.Fatalf("window %d (rate %.0f B/s), want about %.0f: WindowTime of the page's 2 MB/s", w, rate, want)
	}
	// 3/4 of a 20 KB window is under the 18 KB the round trip holds, so the
	// page does idle a little (about 0.7 of its rate).
	if parsed < 0.6*2e6 {
		t.Fatalf("the page parsed %.0f B/s of its 2 MB/s: the window starves it", parsed)
	}
}

// simulateWindow runs yes into a page for 2 s of simulated time and returns
// the window, the daemon's rate and what the page parsed per second in the
// second second; reportQueue: the page reports its queue with each ack
// (ptyproto.FeatureAckQueue), and then also the page's queue in the second
// second, its time-weighted mean and its peak.
func simulateWindow(cfg *Config, rate float64, rtt time.Duration, reportQueue ...bool) (w int64, daemonRate, parsedRate float64, q simQueue) {
	const (
		slice = 4096
		step  = 50 * time.Microsecond
	)
	report := len(reportQueue) > 0 && reportQueue[0]
	now := time.Unix(1000, 0)
	b := &sub{window: cfg.MinWindow}
	type msg struct {
		at     time.Time
		n      int64
		rate   float64
		queued int64
	}
	var toPage, toDaemon []msg
	var queued, parsed, unackedAtPage, queueSum float64
	var busy time.Duration // the page's busy time since its last ack
	var pageRate float64   // what it measured, smoothed
	second := false
	for i := 0; i < int(2*time.Second/step); i++ {
		now = now.Add(step)
		for len(toDaemon) > 0 && !toDaemon[0].at.After(now) {
			m := toDaemon[0]
			b.acked(m.n, m.rate, m.queued, m.at, cfg)
			toDaemon = toDaemon[1:]
		}
		if b.backlog() <= b.window-b.window/4 {
			// The pty hands over a few KiB per read (odd sizes: yes's
			// writes and the line discipline's chunks do not line up).
			b.waiting = false
			n := min(b.window-b.backlog(), 3000)
			b.unacked += n
			toPage = append(toPage, msg{at: now.Add(rtt / 2), n: n})
		} else if !b.waiting {
			b.waiting = true
			if b.blockedSince.IsZero() {
				b.blockedSince = now
			}
		}
		for len(toPage) > 0 && !toPage[0].at.After(now) {
			queued += float64(toPage[0].n)
			toPage = toPage[1:]
		}
		if queued > 0 {
			p := min(queued, rate*step.Seconds())
			queued -= p
			parsed += p
			unackedAtPage += p
			busy += step
		}
		if second {
			queueSum += queued
			q.Peak = max(q.Peak, queued)
		}
		if unackedAtPage >= slice || (queued == 0 && unackedAtPage >= 1) {
			n := int64(unackedAtPage)
			unackedAtPage -= float64(n)
			if busy > 0 {
				r := float64(n) / busy.Seconds()
				if pageRate == 0 {
					pageRate = r
				} else {
					pageRate = 0.7*pageRate + 0.3*r
				}
			}
			busy = 0
			qr := int64(-1)
			if report {
				qr = int64(queued)
			}
			toDaemon = append(toDaemon, msg{now.Add(rtt / 2), n, pageRate, qr})
		}
		if i == int(time.Second/step) {
			parsed = 0 // measure the second second only
			second = true
		}
	}
	q.Mean = queueSum / float64(time.Second/step)
	return b.window, b.rate, parsed, q
}

// simQueue is the page's queue over simulateWindow's second second, bytes.
type simQueue struct{ Mean, Peak float64 }

// A page that reports its queue with its acks (ptyproto.FeatureAckQueue) is
// neither starved by a long ack round trip nor given more than about
// WindowTime of drawing to hold: the window follows the queue. With the
// window sized from the rate alone (10 ms of it, whatever the round trip), a
// round trip of 25 ms — the page, serve and the daemon on a loaded 2-core
// machine — left the page idle most of the time: it parsed under 0.4 of its
// rate (plain cat fell from 0.8 to 0.3–0.6 of bare xterm.js).
func TestWindowFollowsPageQueue(t *testing.T) {
	cfg := Config{}
	cfg.fill()
	const rate = 2e6
	target := rate * cfg.WindowTime.Seconds()
	for _, rtt := range []time.Duration{25 * time.Millisecond, 40 * time.Millisecond, 9 * time.Millisecond, 2 * time.Millisecond} {
		w, _, parsed, q := simulateWindow(&cfg, rate, rtt, true)
		t.Logf("rtt %v: window %d, parsed %.2f of the rate, queue mean %.0f peak %.0f (target %.0f)", rtt, w, parsed/rate, q.Mean, q.Peak, target)
		if parsed < 0.9*rate {
			t.Errorf("rtt %v: the page parsed %.0f B/s of its %.0f (window %d): starved by the round trip", rtt, parsed, rate, w)
		}
		// Near the target: what is queued is what a Ctrl+C leaves to draw.
		if q.Mean > 1.5*target || q.Peak > 3*target {
			t.Errorf("rtt %v: the page's queue averaged %.0f bytes, peaked at %.0f: over the %.0f-byte target (window %d)", rtt, q.Mean, q.Peak, target, w)
		}
	}
}

// A subscriber that consumes slowly (as xterm.js does `yes`) gets a small
// window, so little is in flight when the flood is interrupted; one that
// keeps up gets the whole HighWater.
func TestSlowSubscriberGetsSmallWindow(t *testing.T) {
	srv, sock := startServer(t, Config{HighWater: 1 << 20, MinWindow: 64 << 10, WindowTime: 50 * time.Millisecond})
	c := dial(t, sock, ptyclient.Options{Name: "slow"})
	open(t, c, "t_slow", "/bin/sh", "-c", "yes")
	var mu sync.Mutex
	var received, consumed int64
	sub, err := c.Subscribe(context.Background(), "t_slow", ptyclient.SubscribeOptions{OnData: func(p []byte) {
		mu.Lock()
		received += int64(len(p))
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	// The consumer: 16 KB every 20 ms, 800 KB/s, acknowledged as consumed.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			mu.Lock()
			n := min(16_000, received-consumed)
			consumed += n
			mu.Unlock()
			if n > 0 {
				sub.Ack(n)
			}
		}
	}()
	// The window starts small (Config.StartWindow, here MinWindow) and only
	// the small window is ever in flight. With a fixed HighWater about 1 MiB
	// would stay in flight and this would time out.
	inFlight := func() int64 {
		mu.Lock()
		defer mu.Unlock()
		return received - consumed
	}
	for deadline := time.Now().Add(15 * time.Second); inFlight() > 150<<10; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still in flight after 15 s; the window did not shrink", inFlight())
		}
	}
	var worst int64
	for i := 0; i < 50; i++ {
		mu.Lock()
		worst = max(worst, received-consumed)
		mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	<-done
	// 50 ms at 800 KB/s is 40 KB, under MinWindow: in flight stays near 64 KiB
	// (the window; a noisy rate sample may widen it, see below), far under
	// HighWater.
	if worst > 200<<10 {
		t.Fatalf("up to %d bytes in flight for a slow subscriber; the window did not shrink", worst)
	}
	ss, _ := srv.session("t_slow")
	ss.mu.Lock()
	var w int64
	for _, b := range ss.subs {
		w = b.window
	}
	ss.mu.Unlock()
	// Ideally exactly MinWindow (40 KB of rate × time is under it), but the
	// rate is sampled from ack timing: on a loaded machine the consumer's
	// ticks bunch up and a burst of acks reads as a faster consumer (70 KB
	// was seen at load 11). The behaviour under test is that the window
	// left HighWater for a few times MinWindow, so bound it there.
	if w < 64<<10 || w > 256<<10 {
		t.Fatalf("slow subscriber's window %d, want near MinWindow (64 KiB), far under HighWater", w)
	}

	// A subscriber that acknowledges at once is not held to that: it is
	// rarely the limit (when it caught up, its window starts again from
	// StartWindow, TestWindowStartsAgainWhenCaughtUp), and when it is, the
	// window follows its rate up to HighWater (TestWindowFollowsAckRate).
	// Here: it keeps streaming, far past any small window.
	_, fsock := startServer(t, Config{HighWater: 1 << 20, MinWindow: 64 << 10, WindowTime: time.Second})
	fast := dial(t, fsock, ptyclient.Options{Name: "fast"})
	open(t, fast, "t_fast", "/bin/sh", "-c", "yes")
	var fsub *ptyclient.Subscription
	var fastGot atomic.Int64
	ready := make(chan struct{})
	fsub, err = fast.Subscribe(context.Background(), "t_fast", ptyclient.SubscribeOptions{OnData: func(p []byte) {
		<-ready
		fastGot.Add(int64(len(p)))
		fsub.Ack(int64(len(p)))
	}})
	if err != nil {
		t.Fatal(err)
	}
	close(ready)
	for deadline := time.Now().Add(20 * time.Second); fastGot.Load() < 8<<20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a subscriber acknowledging at once got only %d bytes of yes in 20 s", fastGot.Load())
		}
	}
}

// A client whose hello lists ptyproto.FeatureBinary gets its output (and
// may send its acks) as binary frames; one whose hello predates the feature
// (an older host) gets JSON frames as before. Both see the same bytes.
func TestOutputFramesFollowTheClientsHello(t *testing.T) {
	_, sock := startServer(t, Config{})
	c := dial(t, sock, ptyclient.Options{Name: "opener"})
	open(t, c, "t_feat", "/bin/sh")
	for _, tc := range []struct {
		name     string
		features []string
		binary   bool
	}{{"older client", nil, false}, {"binary client", []string{ptyproto.FeatureBinary}, true}} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.THello, Version: ptyproto.Version, Client: tc.name, Features: tc.features}, nil); err != nil {
				t.Fatal(err)
			}
			f, err := ptyproto.ReadFrame(conn)
			if err != nil {
				t.Fatal(err)
			}
			if !f.Header.Has(ptyproto.FeatureBinary) {
				t.Fatalf("the daemon's hello lacks %s: %+v", ptyproto.FeatureBinary, f.Header)
			}
			if err := ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.TSubscribe, Req: 1, Session: "t_feat"}, nil); err != nil {
				t.Fatal(err)
			}
			if err := ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.TInput, Session: "t_feat"}, []byte("echo fe''at-$((6*7))\n")); err != nil {
				t.Fatal(err)
			}
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			var got bytes.Buffer
			var pre [8]byte
			for !strings.Contains(got.String(), "feat-42") {
				// The frame's form, from its length prefix: a header length of 0 is binary.
				if _, err := io.ReadFull(conn, pre[:]); err != nil {
					t.Fatalf("after %q: %v", got.String(), err)
				}
				f, err := ptyproto.ReadFrame(io.MultiReader(bytes.NewReader(pre[:]), conn))
				if err != nil {
					t.Fatal(err)
				}
				if f.Header.Type != ptyproto.TOutput {
					continue
				}
				if isBin := binary.BigEndian.Uint32(pre[0:4]) == 0; isBin != tc.binary {
					t.Fatalf("output frame binary=%v, want %v", isBin, tc.binary)
				}
				got.Write(f.Payload)
				// Acks in the form the client speaks; the daemon takes both.
				if tc.binary {
					err = ptyproto.WriteAck(conn, "t_feat", int64(len(f.Payload)))
				} else {
					err = ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.TAck, Session: "t_feat", Bytes: int64(len(f.Payload))}, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// Over a link with latency the window covers what is in flight for a round
// trip: a reader limited by the window (acking window/RTT) gets a window
// that grows each round until the link's bandwidth is the limit, while a
// local reader acking at the same rate keeps the small local window (its
// Ctrl+C budget). A client cannot make the window exceed LinkHighWater,
// whatever RTT it claims.
func TestWindowCoversLinkRTT(t *testing.T) {
	cfg := Config{}
	cfg.fill()
	const bw = 20e6 // bytes/s the link (and the reader) can carry
	// run simulates rounds of a window-limited stream over a link of
	// round-trip time rtt: each round the daemon sends a window, waits, and
	// the acks come one RTT later; throughput is min(bw, window/RTT).
	run := func(rtt time.Duration, rounds int) *sub {
		c := &client{}
		c.rtt.Store(rtt.Microseconds())
		b := &sub{c: c, window: cfg.MinWindow}
		now := time.Unix(1000, 0)
		for i := 0; i < rounds; i++ {
			b.waiting, b.blockedSince, b.lastAck = true, now, time.Time{}
			sent := min(float64(b.window), bw*rtt.Seconds())
			now = now.Add(rtt)
			b.acked(int64(sent), 0, -1, now, &cfg)
		}
		return b
	}
	local := run(0, 1) // rtt 0: only the local rule applies
	if local.window != windowFor(local.rate, 0, &cfg) || local.window > cfg.HighWater {
		t.Fatalf("local window %d", local.window)
	}
	prev := int64(0)
	for _, rtt := range []time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond} {
		b := run(rtt, 30)
		bdp := int64(bw * rtt.Seconds())
		// Big enough that the reader resuming at 3/4 of it still has a
		// round trip's worth in flight: the link stays full.
		if b.window*3/4 < bdp && b.window < cfg.LinkHighWater {
			t.Fatalf("rtt %v: window %d does not cover bandwidth × RTT %d", rtt, b.window, bdp)
		}
		if b.window <= prev {
			t.Fatalf("rtt %v: window %d did not grow with the RTT (was %d)", rtt, b.window, prev)
		}
		prev = b.window
		// The same ack rate on a local socket: the local window, far smaller.
		if lw := windowFor(b.rate, 0, &cfg); lw >= b.window {
			t.Fatalf("rtt %v: link window %d not above the local one %d", rtt, b.window, lw)
		}
	}
	// A client claiming an hour of RTT at a huge rate: capped.
	c := &client{}
	c.rtt.Store(time.Hour.Microseconds())
	if w := windowFor(1e12, c.linkRTT(&cfg), &cfg); w != cfg.LinkHighWater {
		t.Fatalf("window %d for a claimed hour of RTT, want the cap %d", w, cfg.LinkHighWater)
	}
}

// A client with MeasureLink reports its link's round-trip time and the
// daemon keeps it for that connection; one without reports none (local).
func TestClientReportsLinkRTT(t *testing.T) {
	srv, sock := startServer(t, Config{})
	dial(t, sock, ptyclient.Options{Name: "local"})
	remote := dial(t, sock, ptyclient.Options{Name: "link", MeasureLink: 20 * time.Millisecond})
	rtts := func() (n int, rtt time.Duration) {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		for c := range srv.clients {
			if d := c.linkRTT(&srv.cfg); d > 0 {
				n++
				rtt = d
			}
		}
		return n, rtt
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if n, _ := rtts(); n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon never learned the link's RTT")
		}
	}
	if n, rtt := rtts(); n != 1 || remote.LinkRTT() <= 0 || rtt > time.Second {
		t.Fatalf("%d clients with an RTT (want only the measuring one), daemon has %v, client reported %v", n, rtt, remote.LinkRTT())
	}
}

// An ack that leaves a local subscriber nothing to draw, while the reader
// was not held back by it, starts its window again from StartWindow: the
// window was not what limited the output, so it says nothing about how fast
// the next burst is drawn. Held (a flood the reader keeps up with), or over
// a link (whose window must cover the round trip), the window stays.
func TestWindowStartsAgainWhenCaughtUp(t *testing.T) {
	cfg := Config{}
	cfg.fill()
	t0 := time.Unix(1000, 0)
	// A page drawing 20 MB/s, as plain text, that has drawn all it had.
	for _, tc := range []struct {
		name     string
		held     bool
		rtt      time.Duration
		leftover int64
		restart  bool
	}{
		{"caught up, not held", false, 0, 0, true},
		{"bytes still to draw", false, 0, 1, false},
		{"held back by this reader", true, 0, 0, false},
		{"over a link", false, 50 * time.Millisecond, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &client{}
			c.rtt.Store(tc.rtt.Microseconds())
			b := &sub{c: c, window: cfg.HighWater, unacked: 4096 + tc.leftover, rate: 20e6}
			if tc.held {
				b.waiting, b.blockedSince = true, t0
			}
			b.acked(4096, 20e6, 0, t0.Add(time.Second), &cfg)
			if tc.restart && b.window != cfg.StartWindow {
				t.Fatalf("window %d after the ack, want StartWindow %d", b.window, cfg.StartWindow)
			}
			if !tc.restart && b.window < cfg.HighWater {
				t.Fatalf("window %d after the ack, want it kept (at least HighWater %d)", b.window, cfg.HighWater)
			}
		})
	}
	// A reader that reports no rate (ack timing only) the same.
	b := &sub{window: cfg.HighWater, unacked: 4096}
	b.acked(4096, 0, -1, t0, &cfg)
	if b.window != cfg.StartWindow {
		t.Fatalf("window %d after a reader without a rate caught up, want %d", b.window, cfg.StartWindow)
	}
}

// What a burst lets out before its first ack is bounded by StartWindow: a
// new subscriber's first burst, and a burst after the reader caught up with
// a window a fast reader had grown (set here to HighWater, as `cat` of plain
// text leaves it). Both used to let out the whole HighWater (1 MiB), which a
// page then still had to draw after the Ctrl+C: a second of `yes`.
func TestBurstBeforeFirstAckBoundedByStartWindow(t *testing.T) {
	srv, sock := startServer(t, Config{})
	cfg := srv.cfg
	c := dial(t, sock, ptyclient.Options{Name: "page"})
	type stream struct {
		mu       sync.Mutex
		received int64
		text     strings.Builder
	}
	sub := func(id string) (*stream, *ptyclient.Subscription) {
		st := &stream{}
		s, err := c.Subscribe(context.Background(), id, ptyclient.SubscribeOptions{OnData: func(p []byte) {
			st.mu.Lock()
			st.received += int64(len(p))
			if st.text.Len() < 4096 {
				st.text.Write(p)
			}
			st.mu.Unlock()
		}})
		if err != nil {
			t.Fatal(err)
		}
		return st, s
	}
	got := func(st *stream) int64 {
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.received
	}
	text := func(st *stream) string {
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.text.String()
	}
	// settle waits until nothing more arrives for 300 ms (the reader is held
	// at the window, as nothing is acknowledged).
	settle := func(st *stream) int64 {
		n := got(st)
		for {
			time.Sleep(300 * time.Millisecond)
			if m := got(st); m != n {
				n = m
				continue
			}
			return n
		}
	}

	open(t, c, "t_new", "/bin/sh", "-c", "stty -echo; read x; exec yes")
	// The daemon's reader waits for output before anyone subscribed (its
	// read was sized for no subscriber: the whole 64 KiB buffer); the
	// subscriber comes during that wait, and the first output after it is
	// yes's (no echo of the line typed).
	time.Sleep(200 * time.Millisecond)
	fresh, _ := sub("t_new")
	if err := c.Input("t_new", []byte("\n")); err != nil {
		t.Fatal(err)
	}
	if n := settle(fresh); n > cfg.StartWindow || n < cfg.StartWindow/2 {
		t.Fatalf("a new subscriber's first burst let out %d bytes before any ack, want at most StartWindow %d (and most of it)", n, cfg.StartWindow)
	}

	open(t, c, "t_again", "/bin/sh", "-c", "echo rea''dy; read x; exec yes")
	again, s := sub("t_again")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(text(again), "ready"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no ready from the shell")
		}
	}
	ss, _ := srv.session("t_again")
	ss.mu.Lock()
	for _, b := range ss.subs {
		b.window = cfg.HighWater
	}
	ss.mu.Unlock()
	before := settle(again)
	if err := s.Ack(before); err != nil { // caught up: nothing left to draw
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the ack reaches the daemon
	if err := c.Input("t_again", []byte("\n")); err != nil {
		t.Fatal(err)
	}
	if n := settle(again) - before; n > cfg.StartWindow+2 { // + the echoed line feed
		t.Fatalf("a burst after the reader caught up let out %d bytes before its first ack, want at most StartWindow %d", n, cfg.StartWindow)
	}
}

// A read that waited for output takes the room again when the output comes:
// the room it was sized by was taken before the wait, and meanwhile a
// subscriber may have come (with none, it was the whole 64 KiB buffer) or a
// window may have started again from StartWindow. TestReadBoundedByWindow
// saw 64 KiB in flight against a 20 KiB window about once in 30 runs.
func TestReadAfterWaitTakesTheRoomAgain(t *testing.T) {
	// The master as the daemon opens it (non-blocking, polled by Go).
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	ptmx := os.NewFile(uintptr(mfd), "/dev/ptmx")
	defer ptmx.Close()
	tty, err := peer(ptmx)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	ss := &session{ptmx: ptmx}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	asked := make(chan int, 4)
	go func() {
		n, err := ss.readBatch(make([]byte, 64<<10), func(limit int) int {
			asked <- limit
			return 3
		})
		done <- result{n, err}
	}()
	time.Sleep(100 * time.Millisecond) // the read is waiting for output
	if _, err := tty.Write([]byte("hello, room\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.n != 3 {
			t.Fatalf("read %d bytes (%v) after the wait, want the 3 the room allows now", r.n, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read never returned")
	}
	if got := <-asked; got != 64<<10 {
		t.Fatalf("the room was asked with limit %d, want the buffer's 65536", got)
	}
}
