package remote

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/internal/testenv"
)

// A link with real latency, built without tc netem (this machine's kernel
// has no sch_netem, and many CI kernels do not either): sshd runs in a
// network namespace of the test's own, reached over a veth pair, and the
// ssh client connects through delayLine, a userspace TCP relay in this
// process that holds every byte for oneWay in each direction. It is a
// delay line, not stop-and-wait: it keeps reading while earlier bytes wait
// out their delay, so bandwidth is preserved and only latency is added
// (its buffer is not bounded like a real router's; what is measured is the
// protocol's reaction to the round trip, which is what the flow-control
// window has to cover).

// netnsSSHD starts sshd in a fresh network namespace and returns it with
// the client config pointing at a delay line of oneWay each way in front
// of it. It skips the benchmark where namespaces are not allowed.
func netnsSSHD(b testing.TB, oneWay time.Duration, extra ...string) *testenv.SSHD {
	b.Helper()
	if _, err := exec.LookPath("ip"); err != nil {
		b.Skip("no ip command (iproute2): the delayed-link benchmark needs a network namespace")
	}
	id := os.Getpid() % 10000
	ns := fmt.Sprintf("rlink%d", id)
	hostIf, nsIf := fmt.Sprintf("rlh%d", id), fmt.Sprintf("rln%d", id)
	// 10.213.x.y/30 pairs, one per process, from the pid.
	x, y := (id/64)%256, (id%64)*4
	hostAddr, nsAddr := fmt.Sprintf("10.213.%d.%d", x, y+1), fmt.Sprintf("10.213.%d.%d", x, y+2)
	run := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	_ = run("netns", "del", ns) // a leftover of a killed run
	if err := run("netns", "add", ns); err != nil {
		b.Skipf("network namespaces are not allowed here (%v): the delayed-link benchmark needs one", err)
	}
	b.Cleanup(func() {
		_ = run("link", "del", hostIf) // takes its peer with it
		_ = run("netns", "del", ns)
	})
	for _, step := range [][]string{
		{"link", "add", hostIf, "type", "veth", "peer", "name", nsIf},
		{"link", "set", nsIf, "netns", ns},
		{"addr", "add", hostAddr + "/30", "dev", hostIf},
		{"link", "set", hostIf, "up"},
		{"-n", ns, "addr", "add", nsAddr + "/30", "dev", nsIf},
		{"-n", ns, "link", "set", nsIf, "up"},
		{"-n", ns, "link", "set", "lo", "up"},
	} {
		if err := run(step...); err != nil {
			b.Skipf("cannot set up the namespace's veth pair (%v)", err)
		}
	}
	s := testenv.StartSSHDAt(b, ns, nsAddr, extra...)
	dl, err := startDelayLine(net.JoinHostPort(nsAddr, fmt.Sprint(s.Port)), oneWay)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(dl.Close)
	s.ReachVia(b, "127.0.0.1", dl.Port())
	return s
}

// delayLine relays TCP connections from a loopback listener to target,
// delivering each chunk read oneWay after it was read, in order, in both
// directions.
type delayLine struct {
	ln     net.Listener
	target string
	delay  time.Duration
	mu     sync.Mutex
	conns  []net.Conn
}

func startDelayLine(target string, oneWay time.Duration) (*delayLine, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &delayLine{ln: ln, target: target, delay: oneWay}
	go d.serve()
	return d, nil
}

func (d *delayLine) Port() int { return d.ln.Addr().(*net.TCPAddr).Port }

func (d *delayLine) Close() {
	d.ln.Close()
	d.mu.Lock()
	for _, c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
}

func (d *delayLine) serve() {
	for {
		c, err := d.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", d.target)
		if err != nil {
			c.Close()
			continue
		}
		d.mu.Lock()
		d.conns = append(d.conns, c, u)
		d.mu.Unlock()
		go d.line(u.(*net.TCPConn), c)
		go d.line(c.(*net.TCPConn), u)
	}
}

type delayed struct {
	due time.Time
	b   []byte
}

// line copies src to dst, each chunk oneWay late. The reader never waits
// for the writer (up to 64 MiB in the line), so the link's bandwidth is
// not reduced by its latency.
func (d *delayLine) line(dst *net.TCPConn, src net.Conn) {
	q := make(chan delayed, 1024)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 64<<10)
			n, err := src.Read(buf)
			if n > 0 {
				q <- delayed{due: time.Now().Add(d.delay), b: buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		if w := time.Until(c.due); w > 0 {
			time.Sleep(w)
		}
		if _, err := dst.Write(c.b); err != nil {
			src.Close()
			for range q {
			}
			return
		}
	}
	_ = dst.CloseWrite()
}

// The delay line adds its latency to a round trip and nothing else: bytes
// come through unchanged and in order, and a request/reply takes at least
// two delays.
func TestDelayLine(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	const oneWay = 25 * time.Millisecond
	dl, err := startDelayLine(echo.Addr().String(), oneWay)
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", dl.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := make([]byte, 4<<20)
	for i := range want {
		want[i] = byte(i * 7)
	}
	t0 := time.Now()
	go func() { _, _ = c.Write(want); c.(*net.TCPConn).CloseWrite() }()
	got, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%d bytes came back, want the %d sent, unchanged", len(got), len(want))
	}
	// A lower bound, not a timing assertion: nothing can come back before
	// it has waited out both directions.
	if el := time.Since(t0); el < 2*oneWay {
		t.Fatalf("the echo came back after %v, under the round trip of %v", el, 2*oneWay)
	}
}
