package ptyclient_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/ptyd"
)

// daemonHome runs an in-process daemon on the socket of a home of its own.
func daemonHome(t *testing.T, cfg ptyd.Config) paths.Home {
	t.Helper()
	dir, err := os.MkdirTemp("", "br") // short: a socket path is at most 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := paths.Home{Dir: dir}
	if err := home.Ensure(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", home.PtydSocket())
	if err != nil {
		t.Fatal(err)
	}
	srv := ptyd.New(cfg)
	go srv.Serve(ln)
	t.Cleanup(func() { ln.Close(); srv.Shutdown() })
	return home
}

// pipesConn is the host's end of an ssh channel: it writes the relay's
// stdin and reads its stdout.
type pipesConn struct {
	r, w *os.File
}

func (c pipesConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c pipesConn) Write(p []byte) (int, error)      { return c.w.Write(p) }
func (c pipesConn) Close() error                     { c.w.Close(); return c.r.Close() }
func (c pipesConn) LocalAddr() net.Addr              { return &net.UnixAddr{} }
func (c pipesConn) RemoteAddr() net.Addr             { return &net.UnixAddr{} }
func (c pipesConn) SetDeadline(time.Time) error      { return nil }
func (c pipesConn) SetReadDeadline(time.Time) error  { return nil }
func (c pipesConn) SetWriteDeadline(time.Time) error { return nil }

type channel struct {
	host       *ptyclient.Client
	hostIn     *os.File // the host's write end (closing it is the host hanging up)
	relayIn    *os.File // the relay's stdin, as sshd gives it: a pipe
	relayOut   *os.File // the relay's stdout
	inode      []uint64 // of the two pipes
	bridgeDone chan error
}

// bridge runs Bridge between pipes, as sshd runs `reprise ptyd connect`,
// and speaks the daemon protocol to it from the other ends.
func bridge(t *testing.T, home paths.Home) *channel {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ch := &channel{hostIn: inW, relayIn: inR, relayOut: outW, bridgeDone: make(chan error, 1)}
	for _, f := range []*os.File{inR, outW} {
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		ch.inode = append(ch.inode, st.Sys().(*syscall.Stat_t).Ino)
	}
	go func() { ch.bridgeDone <- ptyclient.Bridge(context.Background(), home, "", true, inR, outW) }()
	c, err := ptyclient.NewClient(pipesConn{r: outR, w: inW}, ptyclient.Options{Name: "host"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); outR.Close() })
	ch.host = c
	return ch
}

// echoes checks a session opened over the channel answers typed input.
func (ch *channel) echoes(t *testing.T, id string) ptyclient.SessionInfo {
	t.Helper()
	info, err := ch.host.Open(context.Background(), ptyclient.OpenRequest{ID: id, Argv: []string{"/bin/sh"}, Cwd: "/", Env: []string{"PATH=/usr/bin:/bin", "PS1=$ "}, Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 64)
	var sub *ptyclient.Subscription
	var mu sync.Mutex
	s0, err := ch.host.Subscribe(context.Background(), id, ptyclient.SubscribeOptions{OnData: func(p []byte) {
		got <- string(p)
		mu.Lock()
		s := sub
		mu.Unlock()
		if s != nil {
			_ = s.Ack(int64(len(p)))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	sub = s0 // what came before is acknowledged with the next bytes' ack
	mu.Unlock()
	if err := ch.host.Input(id, []byte("echo over-$((40+2))\n")); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	deadline := time.After(10 * time.Second)
	for !strings.Contains(all.String(), "over-42") {
		select {
		case s := <-got:
			all.WriteString(s)
		case <-deadline:
			t.Fatalf("no echo over the channel; got %q", all.String())
		}
	}
	return info
}

// hangUp closes the host's end and waits for the relay to end.
func (ch *channel) hangUp(t *testing.T) {
	t.Helper()
	ch.hostIn.Close()
	select {
	case err := <-ch.bridgeDone:
		if err != nil {
			t.Fatalf("relay ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the relay did not end after the host hung up")
	}
}

func closed(f *os.File) bool {
	_, err := f.Stat()
	return errors.Is(err, os.ErrClosed)
}

// The relay hands the channel's pipes to the daemon (FeatureHandoff) and
// keeps no copy: the daemon then serves the channel itself, no process
// copies its bytes in between; the terminals it starts do not inherit the
// pipes; when the host hangs up, the relay ends.
func TestBridgeHandsChannelToDaemon(t *testing.T) {
	home := daemonHome(t, ptyd.Config{})
	ch := bridge(t, home)
	deadline := time.Now().Add(10 * time.Second)
	for !closed(ch.relayIn) || !closed(ch.relayOut) {
		if time.Now().After(deadline) {
			t.Fatal("the relay still holds the channel's stdin and stdout: it was not handed to the daemon")
		}
		time.Sleep(10 * time.Millisecond)
	}
	info := ch.echoes(t, "t_handoff")
	// The daemon's copies are close-on-exec: the shell holds neither pipe
	// (it would keep the ssh channel open after the daemon let it go).
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", info.PID))
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", info.PID, fd.Name()))
		for _, ino := range ch.inode {
			if link == fmt.Sprintf("pipe:[%d]", ino) {
				t.Fatalf("the terminal's shell inherited a pipe of the channel (fd %s → %s)", fd.Name(), link)
			}
		}
	}
	ch.hangUp(t)
}

// A daemon that predates the handoff gets the bytes relayed, as before.
func TestBridgeRelaysForOlderDaemon(t *testing.T) {
	home := daemonHome(t, ptyd.Config{NoHandoff: true})
	ch := bridge(t, home)
	ch.echoes(t, "t_relay")
	if closed(ch.relayIn) || closed(ch.relayOut) {
		t.Fatal("the relay let go of the channel though the daemon did not take it")
	}
	ch.hangUp(t)
}

// TestDialSilentDaemonEndsWithContext: a socket that accepts but never
// answers the hello (a stopped or wedged daemon) fails Dial when its
// context ends. Before, Dial waited for the hello for good, and so did
// `reprise terminals list`.
func TestDialSilentDaemonEndsWithContext(t *testing.T) {
	dir, err := os.MkdirTemp("", "sd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("unix", dir+"/ptyd.sock")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // read nothing, answer nothing
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		c, err := ptyclient.Dial(ctx, dir+"/ptyd.sock", ptyclient.Options{Name: "test"})
		if c != nil {
			c.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Dial to a silent daemon: %v, want the context's deadline", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Dial to a silent daemon did not return when its context ended")
	}
}
