package ptyd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/internal/testenv"
)

const catSize = 64 << 20

func catFile(b *testing.B) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), "data.txt")
	line := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog ", 2) + "\n")
	var buf bytes.Buffer
	for buf.Len() < catSize {
		buf.Write(line)
	}
	if err := os.WriteFile(p, buf.Bytes()[:catSize], 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

// selfCPU is this process's user+system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the CPU this process spent per MiB moved: less sensitive to
// a busy machine than MB/s, since waiting for a core costs no CPU.
func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64(selfCPU()-since)/float64(time.Millisecond)/float64(b.N*catSize>>20), "cpu-ms/MiB")
}

// BenchmarkCat64MiB compares `cat` of 64 MiB read straight from a pty with
// the same output delivered through the daemon to a client over its Unix
// socket (with flow control and the scrollback log on). The ratio of the
// two is the daemon's cost.
func BenchmarkCat64MiB(b *testing.B) {
	file := catFile(b)
	b.Run("raw-pty", func(b *testing.B) {
		b.SetBytes(catSize)
		buf := make([]byte, 64<<10)
		cpu0 := selfCPU()
		defer func() { reportCPU(b, cpu0) }()
		for i := 0; i < b.N; i++ {
			cmd := exec.Command("cat", file)
			f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 200, Rows: 50})
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for {
				m, err := f.Read(buf)
				n += int64(m)
				if err != nil {
					break
				}
			}
			cmd.Wait()
			f.Close()
			if n < catSize {
				b.Fatalf("read %d bytes", n)
			}
		}
	})
	b.Run("daemon", func(b *testing.B) {
		dir := b.TempDir()
		sock := filepath.Join(dir, "s")
		ln, err := netListen(sock)
		if err != nil {
			b.Fatal(err)
		}
		srv := New(Config{ScrollbackDir: filepath.Join(dir, "sb")})
		go srv.Serve(ln)
		defer func() { ln.Close(); srv.Shutdown() }()
		c, err := ptyclient.Dial(context.Background(), sock, ptyclient.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		b.SetBytes(catSize)
		// The daemon and its client both run in this process: their CPU per
		// MiB (the shell and cat are children, not counted).
		cpu0 := selfCPU()
		defer func() { reportCPU(b, cpu0) }()
		for i := 0; i < b.N; i++ {
			b.StopTimer() // setup: an idle shell, subscribed
			id := "bench" + strconv.Itoa(i)
			var got atomic.Int64
			done := make(chan struct{})
			// The reader goroutine must never block: output that comes
			// before Subscribe returns is acknowledged once it has.
			var sub atomic.Pointer[ptyclient.Subscription]
			var early atomic.Int64
			// Subscribe first (to an idle shell), then start cat in it, so
			// no output is missed and none comes from the replay buffer.
			if _, err := c.Open(context.Background(), ptyclient.OpenRequest{ID: id, Argv: []string{"/bin/sh"}, Cwd: dir, Cols: 200, Rows: 50, Log: true,
				Env: []string{"PATH=/usr/bin:/bin", "PS1="}}); err != nil {
				b.Fatal(err)
			}
			s, err := c.Subscribe(context.Background(), id, ptyclient.SubscribeOptions{
				OnData: func(p []byte) {
					got.Add(int64(len(p)))
					if sb := sub.Load(); sb != nil {
						sb.Ack(int64(len(p)))
					} else {
						early.Add(int64(len(p)))
					}
				},
				OnExit: func(ptyclient.SessionInfo) { close(done) },
			})
			if err != nil {
				b.Fatal(err)
			}
			sub.Store(s)
			s.Ack(early.Swap(0))
			time.Sleep(50 * time.Millisecond)
			start := got.Load()
			b.StartTimer()
			c.Input(id, []byte("exec cat "+file+"\n"))
			<-done
			b.StopTimer()
			if got.Load()-start < catSize {
				b.Fatalf("received %d bytes", got.Load()-start)
			}
			c.Collect(context.Background(), id)
		}
	})
}

// BenchmarkDaemonMemory measures the real daemon process's resident memory
// idle and with 50 idle shells, reported as MiB and KiB per session.
func BenchmarkDaemonMemory(b *testing.B) {
	bin, err := testenv.Reprise(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("daemon binary: %s", bin)
	for i := 0; i < b.N; i++ {
		home, _ := os.MkdirTemp("", "rbm")
		cmd := exec.Command(bin, "ptyd", "--home", home)
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sock := filepath.Join(home, "run", "ptyd.sock")
		var c *ptyclient.Client
		for j := 0; j < 100; j++ {
			if c, err = ptyclient.Dial(context.Background(), sock, ptyclient.Options{}); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		base := rssKiB(cmd.Process.Pid)
		for j := 0; j < 50; j++ {
			if _, err := c.Open(context.Background(), ptyclient.OpenRequest{ID: "m" + strconv.Itoa(j), Argv: []string{"/bin/sh"}, Cwd: home, Log: true, Env: []string{"PATH=/usr/bin:/bin"}}); err != nil {
				b.Fatal(err)
			}
		}
		time.Sleep(500 * time.Millisecond)
		with50 := rssKiB(cmd.Process.Pid)
		b.ReportMetric(float64(base)/1024, "idle-MiB")
		b.ReportMetric(float64(with50)/1024, "50sessions-MiB")
		b.ReportMetric(float64(with50-base)/50, "KiB/session")
		c.Close()
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		os.RemoveAll(home)
	}
}

func rssKiB(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}
