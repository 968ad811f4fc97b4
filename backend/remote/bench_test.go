package remote

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// endpoints gives the local daemon (Unix socket) and a remote one (over a
// loopback sshd), the same binary on both sides, so their ratio is the
// cost of the ssh link.
func endpoints(b *testing.B) map[string]*ptyclient.Client {
	b.Helper()
	local := localEndpoint(b)
	rc := remoteEndpoint(b, testenv.StartSSHD(b), ptyclient.Options{Name: "bench"})
	return map[string]*ptyclient.Client{"local": local, "ssh": rc}
}

// localEndpoint is a daemon of a home of its own on this machine.
func localEndpoint(b *testing.B) *ptyclient.Client {
	b.Helper()
	dir, err := os.MkdirTemp("", "rl")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		testenv.StopInstance(dir)
		os.RemoveAll(dir)
	})
	ctx := context.Background()
	local, err := ptyclient.Ensure(ctx, paths.Home{Dir: dir}, reprise, ptyclient.Options{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { local.Close() })
	return local
}

// remoteEndpoint bootstraps the remote of sshd s and dials its daemon.
func remoteEndpoint(b *testing.B, s *testenv.SSHD, opts ptyclient.Options) *ptyclient.Client {
	b.Helper()
	ctx := context.Background()
	rh, err := os.MkdirTemp("", "rr")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		testenv.StopInstance(rh)
		os.RemoveAll(rh)
	})
	tg := Target{Name: "box", Dest: s.Alias, SSHConfig: s.Config, RemoteHome: rh, ControlDir: filepath.Join(s.Dir, "cm")}
	if _, _, err := tg.Bootstrap(ctx, reprise); err != nil {
		b.Fatal(err)
	}
	rc, _, err := tg.Dial(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		rc.Close()
		if pid := tg.ControlPID(context.Background()); pid > 0 {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	})
	return rc
}

var benchSeq atomic.Int64

// BenchmarkLinkCat streams 32 MiB of text from `head -c` through each
// daemon to this client, acknowledging as it reads (flow control on).
func BenchmarkLinkCat(b *testing.B) {
	const size = 32 << 20
	eps := endpoints(b)
	for _, name := range []string{"local", "ssh"} {
		c := eps[name]
		b.Run(name, func(b *testing.B) { catThrough(b, c, size) })
	}
}

// BenchmarkLinkCatPaired is BenchmarkLinkCat with the two endpoints taking
// turns: each iteration streams size bytes locally, then over ssh, and the
// ratio reported is the median of the iterations' ssh/local throughput
// ratios. On a machine shared with other jobs the load drifts by the second;
// BenchmarkLinkCat's ratio compares the local runs of one stretch with the
// ssh runs of the next, this one each ssh run with the local run just
// before it.
func BenchmarkLinkCatPaired(b *testing.B) {
	const size = 32 << 20
	eps := endpoints(b)
	var ratios []float64
	var tl, ts time.Duration
	b.SetBytes(2 * size)
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		catOnce(b, eps["local"], size)
		t1 := time.Now()
		catOnce(b, eps["ssh"], size)
		dl, ds := t1.Sub(t0), time.Since(t1)
		tl += dl
		ts += ds
		ratios = append(ratios, dl.Seconds()/ds.Seconds())
	}
	sort.Float64s(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "ssh/local")
	b.ReportMetric(ratios[0], "min-ssh/local")
	b.ReportMetric(float64(b.N)*size/tl.Seconds()/1e6, "local-MB/s")
	b.ReportMetric(float64(b.N)*size/ts.Seconds()/1e6, "ssh-MB/s")
}

// BenchmarkLinkCat50ms is BenchmarkLinkCat over a link of 50 ms round trip
// (a network namespace behind a delay line, delayline_test.go; tc netem is
// not available on this machine): the daemon's window with the link's RTT
// reported ("ssh-50ms") and without it, the window sized for a local socket
// ("ssh-50ms-local-window", what every remote got before), each against the
// local daemon of the same run.
func BenchmarkLinkCat50ms(b *testing.B) {
	const size = 8 << 20
	s := netnsSSHD(b, 25*time.Millisecond)
	eps := map[string]*ptyclient.Client{
		"local":                 localEndpoint(b),
		"ssh-50ms-local-window": remoteEndpoint(b, s, ptyclient.Options{Name: "bench-old", MeasureLink: -1}),
		"ssh-50ms":              remoteEndpoint(b, s, ptyclient.Options{Name: "bench"}),
	}
	for _, name := range []string{"local", "ssh-50ms-local-window", "ssh-50ms"} {
		c := eps[name]
		b.Run(name, func(b *testing.B) {
			if name == "ssh-50ms" {
				// The first RTT report comes from three pings after the dial.
				for deadline := time.Now().Add(10 * time.Second); c.LinkRTT() == 0; time.Sleep(10 * time.Millisecond) {
					if time.Now().After(deadline) {
						b.Fatal("the link's RTT was never measured")
					}
				}
				b.ReportMetric(float64(c.LinkRTT().Microseconds())/1000, "rtt-ms")
			}
			catThrough(b, c, size)
		})
	}
}

// catThrough streams size bytes of text from `head -c` through c's daemon
// to this client b.N times, acknowledging as it reads (flow control on),
// and checks the count.
func catThrough(b *testing.B, c *ptyclient.Client, size int64) {
	b.SetBytes(size)
	for i := 0; i < b.N; i++ {
		catOnce(b, c, size)
	}
}

// catOnce streams size bytes through c's daemon once (see catThrough).
func catOnce(b *testing.B, c *ptyclient.Client, size int64) {
	id := fmt.Sprintf("t_cat%d", benchSeq.Add(1))
	var got atomic.Int64
	done := make(chan struct{})
	var sub *ptyclient.Subscription
	ready := make(chan struct{})
	// base64 of zeros: printable, no tty translation surprises. It
	// starts on a line of input sent once subscribed: output made
	// before the subscribe would be only as much as the replay ring
	// holds (over a slow link more than that is made meanwhile). The
	// echo of that line is at most 3 bytes more.
	script := fmt.Sprintf("stty -echo; read go; head -c %d /dev/zero | base64 -w 0 | head -c %d; sleep 600", size*3/4, size)
	if _, err := c.Open(context.Background(), ptyclient.OpenRequest{ID: id, Argv: []string{"/bin/sh", "-c", script}, Cwd: "/", Env: []string{"PATH=/usr/bin:/bin"}, Cols: 200, Rows: 50}); err != nil {
		b.Fatal(err)
	}
	sub, err := c.Subscribe(context.Background(), id, ptyclient.SubscribeOptions{OnData: func(p []byte) {
		<-ready
		if got.Add(int64(len(p))) >= size {
			select {
			case <-done:
			default:
				close(done)
			}
		}
		_ = sub.Ack(int64(len(p)))
	}})
	if err != nil {
		b.Fatal(err)
	}
	close(ready)
	if err := c.Input(id, []byte("go\n")); err != nil {
		b.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		b.Fatalf("got %d of %d bytes", got.Load(), size)
	}
	_ = c.CloseSession(context.Background(), id, false)
}

// BenchmarkLinkEcho types one key into `cat` in a pty and waits for the
// echo, through each daemon; it reports the median and p95 round trip.
func BenchmarkLinkEcho(b *testing.B) {
	eps := endpoints(b)
	for _, name := range []string{"local", "ssh"} {
		c := eps[name]
		b.Run(name, func(b *testing.B) {
			id := fmt.Sprintf("t_echo%d", benchSeq.Add(1))
			if _, err := c.Open(context.Background(), ptyclient.OpenRequest{ID: id, Argv: []string{"/bin/cat"}, Cwd: "/", Env: []string{"PATH=/usr/bin:/bin"}}); err != nil {
				b.Fatal(err)
			}
			defer c.CloseSession(context.Background(), id, false)
			echoed := make(chan struct{}, 16)
			var buf bytes.Buffer
			var sub *ptyclient.Subscription
			ready := make(chan struct{})
			sub, err := c.Subscribe(context.Background(), id, ptyclient.SubscribeOptions{OnData: func(p []byte) {
				<-ready
				buf.Write(p)
				_ = sub.Ack(int64(len(p)))
				for strings.Contains(buf.String(), "x") {
					rest := strings.Replace(buf.String(), "x", "", 1)
					buf.Reset()
					buf.WriteString(rest)
					echoed <- struct{}{}
				}
			}})
			if err != nil {
				b.Fatal(err)
			}
			close(ready)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if err := c.Input(id, []byte("x")); err != nil {
					b.Fatal(err)
				}
				select {
				case <-echoed:
				case <-time.After(10 * time.Second):
					b.Fatal("no echo")
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}
