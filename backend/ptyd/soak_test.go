package ptyd

// The 1 GiB soak: a deterministic stream of ASCII lines, multi-byte UTF-8
// text and SGR colour escapes, written by a real program in a real pty,
// carried by a real daemon process over its Unix socket to a ptyclient
// subscriber, which checks every byte.
//
// Both helper processes are this test binary re-executed (TestMain picks
// the role from REPRISE_SOAK_ROLE): the daemon runs ptyd.Run, the very
// function `reprise ptyd` runs, and the generator writes the stream. A
// generator process instead of a file keeps disk use flat at any size.
//
// The pty is left in its default (cooked) output mode, as every terminal
// program sees it: OPOST|ONLCR turns each "\n" into "\r\n", so the
// expected stream is the generated one with that translation applied (the
// generator writes no other byte that output processing changes).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyclient"
)

const (
	soakRoleEnv  = "REPRISE_SOAK_ROLE"
	soakBytesEnv = "REPRISE_SOAK_BYTES"
	soakHomeEnv  = "REPRISE_SOAK_HOME"
	// soakReady is printed by the generator once its echo is off; it then
	// waits for a line on stdin before writing the stream.
	soakReady = "SOAK-READY\n"
)

func TestMain(m *testing.M) {
	switch os.Getenv(soakRoleEnv) {
	case "ptyd":
		os.Exit(soakDaemon())
	case "gen":
		os.Exit(soakGenerator())
	}
	os.Exit(m.Run())
}

func soakDaemon() int {
	home := paths.Home{Dir: os.Getenv(soakHomeEnv)}
	if err := Run(context.Background(), home, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		fmt.Fprintln(os.Stderr, "soak daemon:", err)
		return 1
	}
	return 0
}

func soakGenerator() int {
	n, err := strconv.ParseInt(os.Getenv(soakBytesEnv), 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak generator:", err)
		return 2
	}
	// Echo off, so the go-ahead typed below is not part of the output.
	t, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak generator: stdin is not a terminal:", err)
		return 2
	}
	t.Lflag &^= unix.ECHO
	if err := unix.IoctlSetTermios(0, unix.TCSETS, t); err != nil {
		return 2
	}
	os.Stdout.WriteString(soakReady)
	var b [1]byte
	for b[0] != '\n' {
		if _, err := os.Stdin.Read(b[:]); err != nil {
			return 2
		}
	}
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	if _, err := genSoak(w, n); err != nil {
		return 1
	}
	if err := w.Flush(); err != nil {
		return 1
	}
	return 0
}

// soakLine appends line i of the stream to dst. Five kinds rotate: plain
// ASCII, multi-byte UTF-8 (2-, 3- and 4-byte characters), SGR colours
// (16, 256 and true colour), lines of varying length that move every
// multi-byte character across read boundaries, and \r progress updates.
func soakLine(dst []byte, i int64) []byte {
	switch i % 5 {
	case 0:
		dst = strconv.AppendInt(dst, i, 10)
		dst = append(dst, " the quick brown fox jumps over the lazy dog; 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ\n"...)
	case 1:
		dst = append(dst, "naïve café 日本語 🙂 ünïcödé — “quotes” ✓ № "...)
		dst = strconv.AppendInt(dst, i, 10)
		dst = append(dst, '\n')
	case 2:
		dst = append(dst, "\x1b[3"...)
		dst = strconv.AppendInt(dst, i%8, 10)
		dst = append(dst, "mcolour\x1b[0m \x1b[1;38;5;"...)
		dst = strconv.AppendInt(dst, i%256, 10)
		dst = append(dst, "mbold 256 é\x1b[0m \x1b[38;2;"...)
		dst = strconv.AppendInt(dst, i%256, 10)
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, (i/3)%256, 10)
		dst = append(dst, ";200mtrue colour 🙂\x1b[0m\n"...)
	case 3:
		for k := int64(0); k < i%37; k++ {
			dst = append(dst, "日本語🙂é "...)
		}
		dst = append(dst, '\n')
	default:
		dst = append(dst, "\x1b[2Kprogress "...)
		dst = strconv.AppendInt(dst, i%100, 10)
		dst = append(dst, "%\rprogress done ✓\n"...)
	}
	return dst
}

// genSoak writes whole lines of the stream to w until at least n bytes are
// written, and returns how many were.
func genSoak(w io.Writer, n int64) (int64, error) {
	buf := make([]byte, 0, 72<<10)
	var total int64
	for i := int64(0); total < n; {
		buf = buf[:0]
		for len(buf) < 64<<10 && total+int64(len(buf)) < n {
			buf = soakLine(buf, i)
			i++
		}
		m, err := w.Write(buf)
		total += int64(m)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// onlcr applies the pty's output translation to what it forwards.
type onlcr struct {
	w   io.Writer
	buf []byte
}

func (o *onlcr) Write(p []byte) (int, error) {
	n := len(p)
	o.buf = o.buf[:0]
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			o.buf = append(o.buf, p...)
			break
		}
		o.buf = append(append(o.buf, p[:i]...), '\r', '\n')
		p = p[i+1:]
	}
	_, err := o.w.Write(o.buf)
	return n, err
}

// expectedSoak is the byte count and SHA-256 of the stream of size n as a
// terminal receives it.
func expectedSoak(n int64) (int64, string) {
	h := sha256.New()
	cw := &countWriter{w: h}
	if _, err := genSoak(&onlcr{w: cw}, n); err != nil {
		panic(err)
	}
	return cw.n, hex.EncodeToString(h.Sum(nil))
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}

// streamCheck is what the subscriber does with every byte: count it, hash
// it and decode it as UTF-8, carrying a character split across chunks, and
// count the U+FFFD the decoding yields (invalid bytes or a replacement
// character in the stream, which the generator never writes).
type streamCheck struct {
	h     hash.Hash
	n     int64
	bad   int64
	carry []byte
}

func newStreamCheck() *streamCheck { return &streamCheck{h: sha256.New()} }

var replacement = []byte(string(utf8.RuneError))

func (c *streamCheck) Write(p []byte) {
	c.n += int64(len(p))
	c.h.Write(p)
	if lc := len(c.carry); lc > 0 {
		tmp := append(append([]byte(nil), c.carry...), p[:min(len(p), utf8.UTFMax-lc)]...)
		if !utf8.FullRune(tmp) {
			c.carry = tmp
			return
		}
		r, size := utf8.DecodeRune(tmp)
		c.carry = nil
		if r == utf8.RuneError || size <= lc {
			c.bad++
		} else {
			p = p[size-lc:] // the rest of the carried character
		}
	}
	// Hold back a trailing incomplete character for the next chunk.
	tail := len(p)
	for j := len(p) - 1; j >= 0 && j >= len(p)-utf8.UTFMax+1; j-- {
		if utf8.RuneStart(p[j]) {
			if !utf8.FullRune(p[j:]) {
				tail = j
			}
			break
		}
	}
	body := p[:tail]
	if !utf8.Valid(body) || bytes.Contains(body, replacement) {
		for len(body) > 0 {
			r, size := utf8.DecodeRune(body)
			if r == utf8.RuneError {
				c.bad++
			}
			body = body[size:]
		}
	}
	c.carry = append(c.carry[:0], p[tail:]...)
}

// Finish reports the stream's count, hash and U+FFFD count.
func (c *streamCheck) Finish() (int64, string, int64) {
	bad := c.bad
	if len(c.carry) > 0 {
		bad++ // the stream ended inside a character
	}
	return c.n, hex.EncodeToString(c.h.Sum(nil)), bad
}

func (c *streamCheck) verify(size int64) error {
	n, sum, bad := c.Finish()
	wantN, wantSum := expectedSoak(size)
	var errs []error
	if n != wantN {
		errs = append(errs, fmt.Errorf("received %d bytes, want %d (%+d)", n, wantN, n-wantN))
	}
	if sum != wantSum {
		errs = append(errs, fmt.Errorf("sha256 %s, want %s", sum, wantSum))
	}
	if bad != 0 {
		errs = append(errs, fmt.Errorf("%d U+FFFD after UTF-8 decoding", bad))
	}
	return errors.Join(errs...)
}

func procStatusKiB(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field+":" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

func genEnv(size int64) []string {
	return []string{soakRoleEnv + "=gen", soakBytesEnv + "=" + strconv.FormatInt(size, 10), "PATH=/usr/bin:/bin"}
}

type soakResult struct {
	bytes                        int64 // received, after the marker
	elapsed                      time.Duration
	rssBefore, rssPeak, rssAfter int64 // KiB, VmRSS of the daemon
	hwm                          int64 // KiB, VmHWM of the daemon at the end
}

// runSoak streams size bytes (rounded up to a whole line) from a generator
// in a daemon session to a subscriber, and checks them.
func runSoak(tb testing.TB, size int64) soakResult {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	home, err := os.MkdirTemp("", "rsk") // short: Unix socket paths are limited
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(home)
	d := exec.Command(exe)
	d.Env = append(os.Environ(), soakRoleEnv+"=ptyd", soakHomeEnv+"="+home)
	if err := d.Start(); err != nil {
		tb.Fatal(err)
	}
	defer func() { d.Process.Signal(syscall.SIGTERM); d.Wait() }()
	sock := paths.Home{Dir: home}.PtydSocket()
	var c *ptyclient.Client
	for j := 0; j < 250; j++ {
		if c, err = ptyclient.Dial(context.Background(), sock, ptyclient.Options{Name: "soak"}); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	if c.DaemonPID != d.Process.Pid {
		tb.Fatalf("daemon pid %d, started %d", c.DaemonPID, d.Process.Pid)
	}
	time.Sleep(200 * time.Millisecond)
	var r soakResult
	r.rssBefore = procStatusKiB(d.Process.Pid, "VmRSS")

	chk := newStreamCheck()
	ready := make(chan struct{})
	done := make(chan struct{})
	var pre []byte // output before the stream: exactly the marker
	started := false
	var sub atomic.Pointer[ptyclient.Subscription]
	var early atomic.Int64
	ack := func(n int64) {
		if s := sub.Load(); s != nil {
			s.Ack(n)
		} else {
			early.Add(n)
		}
	}
	const id = "soak"
	if _, err := c.Open(context.Background(), ptyclient.OpenRequest{ID: id, Argv: []string{exe}, Cwd: home,
		Env: genEnv(size), Cols: 200, Rows: 50, Log: true}); err != nil {
		tb.Fatal(err)
	}
	s, err := c.Subscribe(context.Background(), id, ptyclient.SubscribeOptions{
		OnData: func(p []byte) { // on the client's reader goroutine, in order
			if !started {
				pre = append(pre, p...)
				marker := strings.ReplaceAll(soakReady, "\n", "\r\n")
				i := bytes.Index(pre, []byte(marker))
				if i < 0 {
					ack(int64(len(p)))
					return
				}
				started = true
				rest := pre[i+len(marker):]
				pre = pre[:i+len(marker)]
				chk.Write(rest)
				close(ready)
			} else {
				chk.Write(p)
			}
			ack(int64(len(p)))
		},
		OnExit: func(ptyclient.SessionInfo) { close(done) },
	})
	if err != nil {
		tb.Fatal(err)
	}
	sub.Store(s)
	s.Ack(early.Swap(0))
	select {
	case <-ready:
	case <-done:
		tb.Fatalf("generator exited before it was ready; output %q", pre)
	case <-time.After(20 * time.Second):
		tb.Fatalf("generator not ready; output %q", pre)
	}
	if string(pre) != strings.ReplaceAll(soakReady, "\n", "\r\n") {
		tb.Fatalf("output before the stream: %q", pre)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the daemon's memory while it carries the stream
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if v := procStatusKiB(d.Process.Pid, "VmRSS"); v > r.rssPeak {
				r.rssPeak = v
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	if err := c.Input(id, []byte("go\n")); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(time.Duration(size>>20)*time.Second + 60*time.Second):
		tb.Fatalf("stream did not finish: %d bytes so far", chk.n)
	}
	r.elapsed = time.Since(start)
	close(stop)
	wg.Wait()
	r.hwm = procStatusKiB(d.Process.Pid, "VmHWM")
	if err := c.Collect(context.Background(), id); err != nil {
		tb.Fatal(err)
	}
	time.Sleep(time.Second)
	r.rssAfter = procStatusKiB(d.Process.Pid, "VmRSS")
	if err := chk.verify(size); err != nil {
		tb.Fatal(err)
	}
	r.bytes = chk.n
	return r
}

// rawSoak is the anchor: the same generator in a pty read directly, with
// the same checks, no daemon in between.
func rawSoak(tb testing.TB, size int64) (int64, time.Duration) {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = genEnv(size)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 200, Rows: 50})
	if err != nil {
		tb.Fatal(err)
	}
	defer cmd.Wait()
	defer f.Close() // first: a generator still writing gets a hangup
	marker := []byte(strings.ReplaceAll(soakReady, "\n", "\r\n"))
	got := make([]byte, 0, len(marker))
	for !bytes.Equal(got, marker) {
		var b [1]byte
		if _, err := f.Read(b[:]); err != nil {
			tb.Fatalf("generator not ready: %v, output %q", err, got)
		}
		got = append(got, b[0])
		if !bytes.HasPrefix(marker, got) {
			tb.Fatalf("output before the stream: %q", got)
		}
	}
	chk := newStreamCheck()
	buf := make([]byte, 64<<10)
	start := time.Now()
	if _, err := f.Write([]byte("go\n")); err != nil {
		tb.Fatal(err)
	}
	for {
		n, err := f.Read(buf)
		chk.Write(buf[:n])
		if err != nil {
			break
		}
	}
	elapsed := time.Since(start)
	if err := chk.verify(size); err != nil {
		tb.Fatal(err)
	}
	return chk.n, elapsed
}

func soakMiB(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil && v > 0 {
		return v
	}
	return def
}

// TestSoakSmall runs the soak's logic on 8 MiB.
func TestSoakSmall(t *testing.T) {
	const size = 8 << 20
	r := runSoak(t, size)
	if r.bytes < size {
		t.Fatalf("received %d bytes", r.bytes)
	}
	if n, _ := rawSoak(t, 1<<20); n < 1<<20 {
		t.Fatalf("raw: received %d bytes", n)
	}
	// The checker itself: a character split at every offset decodes
	// cleanly; a broken one is caught.
	line := soakLine(soakLine(nil, 1), 3)
	for cut := 0; cut <= len(line); cut++ {
		c := newStreamCheck()
		c.Write(line[:cut])
		c.Write(line[cut:])
		if _, _, bad := c.Finish(); bad != 0 {
			t.Fatalf("cut at %d: %d U+FFFD", cut, bad)
		}
	}
	cut := line[:bytes.LastIndex(line, []byte("🙂"))+2] // ends inside a character
	for _, broken := range [][]byte{cut, append([]byte("a\xffb"), line...), []byte("x\uFFFDy")} {
		c := newStreamCheck()
		c.Write(broken[:3])
		c.Write(broken[3:])
		if _, _, bad := c.Finish(); bad == 0 {
			t.Fatalf("%q: no U+FFFD counted", broken)
		}
	}
}

// BenchmarkSoak streams REPRISE_BENCH_SOAK_MIB (default 1024) MiB through
// the daemon and checks it (count, SHA-256, no U+FFFD); the anchor is the
// same generator read straight from a pty (REPRISE_BENCH_SOAK_ANCHOR_MIB,
// default 256, or the soak size if smaller). Memory is the daemon's VmRSS
// before, at peak (sampled every 20 ms) and 1 s after the stream, and its
// VmHWM.
func BenchmarkSoak(b *testing.B) {
	size := soakMiB("REPRISE_BENCH_SOAK_MIB", 1024) << 20
	anchor := min(size, soakMiB("REPRISE_BENCH_SOAK_ANCHOR_MIB", 256)<<20)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		an, at := rawSoak(b, anchor)
		b.StartTimer()
		r := runSoak(b, size)
		b.StopTimer()
		mbps := float64(r.bytes) / r.elapsed.Seconds() / 1e6
		raw := float64(an) / at.Seconds() / 1e6
		b.ReportMetric(float64(r.bytes)/(1<<20), "MiB")
		b.ReportMetric(mbps, "MB/s")
		b.ReportMetric(raw, "raw-MB/s")
		b.ReportMetric(mbps/raw, "ratio")
		b.ReportMetric(float64(r.rssBefore)/1024, "rss-before-MiB")
		b.ReportMetric(float64(r.rssPeak)/1024, "rss-peak-MiB")
		b.ReportMetric(float64(r.rssAfter)/1024, "rss-after-MiB")
		b.ReportMetric(float64(r.hwm)/1024, "hwm-MiB")
	}
}
