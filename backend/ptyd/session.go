package ptyd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reprise-dev/reprise/backend/ptyproto"
	"github.com/reprise-dev/reprise/backend/scrollback"
)

// session is one pty and its process.
type session struct {
	srv     *Server
	id      string
	argv    []string
	cwd     string
	created time.Time
	cmd     *exec.Cmd
	ptmx    *os.File
	pid     int
	logw    *scrollback.Writer // nil when logging is off or failed
	logGap  bool               // the log is dropping output (a full disk); touched only by the writer of logw

	mu      sync.Mutex // guards everything below
	cond    *sync.Cond // on mu: signalled when a subscriber's backlog shrinks or it goes away
	ring    *ring
	subs    map[*client]*sub
	exited  bool
	exit    ptyproto.SessionInfo // valid when exited
	closing bool                 // close requested: forget on exit
	keepLog bool
	cols    uint16
	rows    uint16
}

// sub is one client's subscription to one session. Its fields are guarded
// by the session's mu.
type sub struct {
	c       *client
	s       *session
	pending []byte // read from the pty, not yet sent
	unacked int64  // sent, not yet acknowledged
	exit    *ptyproto.SessionInfo
	closed  bool

	// Flow control (Config.HighWater): the current window, and what it is
	// derived from: the subscriber's acknowledgement rate, sampled only while
	// the reader was held back by this subscriber (so the rate is how fast it
	// consumes, not how fast the program writes).
	window       int64
	rate         float64   // bytes/s, smoothed
	lastAck      time.Time // when the last acknowledgement came
	blockedSince time.Time // when the reader started waiting on this subscriber; zero if it has not since the last ack
	waiting      bool      // the reader is waiting on this subscriber now
}

func (b *sub) backlog() int64 { return b.unacked + int64(len(b.pending)) }

// acked records n bytes acknowledged at now and adapts the window to the
// rate at which the subscriber consumes output: the rate it reports
// (ptyproto.FeatureAckRate: the page measures how fast it draws while it
// has output to draw), or else the rate of its acks, sampled only while the
// reader was held back by it (so that a slow program is not a slow reader).
//
// A reported rate is what makes a small window safe. From ack timing, a
// window too small for the ack round trip leaves the reader idle part of
// the time, waiting for bytes the daemon holds back; the idle time reads as
// a slow reader, the window shrinks and the reader idles more, down to
// MinWindow per round trip (TestWindowGrowsFromMinimum). A reader that
// times only its busy time is not fooled by that.
//
// A reader that also reports its queue (ptyproto.FeatureAckQueue: bytes
// received and not yet consumed) has the window steered by it (steer): the
// rule above is then only the window's floor.
func (b *sub) acked(n int64, reported float64, queued int64, now time.Time, cfg *Config) {
	b.unacked = max(0, b.unacked-n)
	// Held: the reader waited on this subscriber since the last ack, so
	// bytes were held back that this subscriber could have had.
	held := b.waiting || !b.blockedSince.IsZero()
	if reported > 0 {
		b.rate = reported // the reader smooths it
		floor := windowFor(b.rate, b.c.linkRTT(cfg), cfg)
		if queued < 0 {
			b.window = floor
		} else {
			b.window = b.steer(floor, n, queued, held, cfg)
		}
	} else if !b.blockedSince.IsZero() {
		from := b.blockedSince
		if b.lastAck.After(from) {
			from = b.lastAck
		}
		if dt := now.Sub(from).Seconds(); dt > 0.001 {
			r := float64(n) / dt
			if b.rate == 0 {
				b.rate = r
			} else {
				b.rate = 0.7*b.rate + 0.3*r
			}
			b.window = windowFor(b.rate, b.c.linkRTT(cfg), cfg)
		}
	}
	if !held && b.backlog() == 0 && b.c.linkRTT(cfg) <= 0 {
		// Caught up, and the window was not the limit: the next burst starts
		// from StartWindow (Config.StartWindow). Over a link the window keeps
		// what the round trip holds (windowFor), which throughput needs from
		// the burst's first byte.
		b.window = min(b.window, cfg.StartWindow)
	}
	b.lastAck = now
	b.blockedSince = time.Time{}
	if b.waiting {
		b.blockedSince = now
	}
}

// steer moves the window so that the reader's queue (queued bytes, reported
// with an ack of n bytes) stays near WindowTime of its rate: what matters for
// a Ctrl+C is how long the reader takes to draw what it holds, and what
// matters for throughput is that it never runs dry while the daemon holds
// bytes back. A delay-based rule (as LEDBAT's): the window moves by half the
// queue's error per window's worth of acks, down when the queue is longer
// than the target, up when it is shorter while the daemon was held back by
// this reader (shorter because the program writes little says nothing). In
// the steady state the window is then the target plus what the round trip
// holds, rate × (WindowTime + RTT), however long the round trip is on a
// loaded machine, and the queue is about WindowTime of drawing. It stays
// between floor (the rate-only rule: the window for no round trip) and
// HighWater (LinkHighWater over a link).
func (b *sub) steer(floor, n, queued int64, held bool, cfg *Config) int64 {
	target := int64(b.rate * cfg.WindowTime.Seconds())
	e := queued - target
	if e < 0 && !held {
		e = 0
	}
	w := max(b.window, 1)
	w -= e * min(n, w) / w / 2
	hi := cfg.HighWater
	if b.c.linkRTT(cfg) > 0 {
		hi = cfg.LinkHighWater
	}
	return min(max(w, floor), max(hi, floor))
}

// windowFor is the window for a subscriber acknowledging at rate (bytes/s)
// over a link of round-trip time rtt (0: a local socket). Locally it is
// WindowTime of output at that rate, in [MinWindow, HighWater]: small
// enough that after Ctrl+C little is left to draw. Over a link the bytes in
// flight for one round trip are added (with LinkMargin), up to
// LinkHighWater, so throughput is not capped at window/RTT.
func windowFor(rate float64, rtt time.Duration, cfg *Config) int64 {
	local := min(max(int64(rate*cfg.WindowTime.Seconds()), cfg.MinWindow), cfg.HighWater)
	if rtt <= 0 {
		return local
	}
	w := int64(rate * (cfg.WindowTime.Seconds() + cfg.LinkMargin*rtt.Seconds()))
	return min(max(w, local), cfg.LinkHighWater)
}

// lookPath resolves argv[0] against the PATH the session will have, not the
// daemon's own.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		st, err := os.Stat(name)
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s: not an executable file", name)
		}
		return name, nil
	}
	path := os.Getenv("PATH")
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = p
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s was not found on PATH", name)
}

func (s *Server) open(h *ptyproto.Header, preamble []byte) (ptyproto.SessionInfo, error) {
	if _, _, err := scrollback.Paths("x", h.Session); err != nil {
		return ptyproto.SessionInfo{}, fmt.Errorf("open: %w", err)
	}
	if len(h.Argv) == 0 || h.Argv[0] == "" {
		return ptyproto.SessionInfo{}, errors.New("open: empty command")
	}
	st, err := os.Stat(h.Cwd)
	if err != nil || !st.IsDir() {
		return ptyproto.SessionInfo{}, fmt.Errorf("no such directory: %s", h.Cwd)
	}
	bin, err := lookPath(h.Argv[0], h.Env)
	if err != nil {
		return ptyproto.SessionInfo{}, err
	}
	cols, rows := h.Cols, h.Rows
	if cols == 0 {
		cols = 80
	}
	if rows == 0 {
		rows = 24
	}
	ss := &session{
		srv: s, id: h.Session, argv: h.Argv, cwd: h.Cwd, created: time.Now(),
		ring: newRing(s.cfg.ReplaySize), subs: make(map[*client]*sub), cols: cols, rows: rows,
	}
	ss.cond = sync.NewCond(&ss.mu)

	s.mu.Lock()
	if _, dup := s.sessions[h.Session]; dup {
		s.mu.Unlock()
		return ptyproto.SessionInfo{}, fmt.Errorf("open: session %q already exists", h.Session)
	}
	s.sessions[h.Session] = ss // reserve the id
	s.mu.Unlock()

	if h.Log && s.cfg.ScrollbackDir != "" {
		w, err := scrollback.Create(s.cfg.ScrollbackDir, h.Session, s.cfg.ScrollbackLimit)
		if err != nil {
			s.log.Warn("scrollback disabled for session", "session", h.Session, "err", err)
		} else {
			ss.logw = w
		}
	}
	if len(preamble) > 0 {
		ss.ring.Write(preamble)
		ss.writeLog(preamble)
	}

	cmd := exec.Command(bin, h.Argv[1:]...)
	cmd.Args[0] = h.Argv[0]
	cmd.Dir = h.Cwd
	cmd.Env = h.Env
	ptmx, err := startPty(cmd, cols, rows)
	if err != nil {
		s.forget(h.Session)
		if ss.logw != nil {
			ss.logw.Close()
			_ = scrollback.Remove(s.cfg.ScrollbackDir, h.Session)
		}
		return ptyproto.SessionInfo{}, fmt.Errorf("start %s: %w", h.Argv[0], err)
	}
	ss.cmd, ss.ptmx, ss.pid = cmd, ptmx, cmd.Process.Pid
	s.log.Info("session opened", "session", ss.id, "pid", ss.pid, "argv", h.Argv, "cwd", h.Cwd)
	go ss.run()
	return ss.info(false), nil
}

func (ss *session) writeLog(p []byte) {
	if ss.logw == nil {
		return
	}
	_, err := ss.logw.Write(p)
	switch {
	case errors.Is(err, os.ErrClosed):
		ss.logw = nil
	case err != nil && !ss.logGap:
		// The writer keeps trying on each write and labels the gap in the
		// log when it resumes (a full disk is often transient).
		ss.logGap = true
		ss.srv.log.Warn("scrollback write failed; output is not kept until the disk accepts writes again", "session", ss.id, "err", err)
	case err == nil && ss.logGap:
		ss.logGap = false
		ss.srv.log.Info("scrollback logging resumed; the gap is labelled in the log", "session", ss.id)
	}
}

// run pumps the pty until the process has exited and its output is drained,
// then records the exit.
func (ss *session) run() {
	waitDone := make(chan *os.ProcessState, 1)
	go func() {
		_ = ss.cmd.Wait() // the status is in ProcessState; an error here is the status
		waitDone <- ss.cmd.ProcessState
	}()
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 64<<10)
		for {
			// Read no more than every subscriber's window has room for:
			// what stays in the kernel is not yet in flight, and a Ctrl+C
			// discards it (the line discipline flushes the pty's output on
			// SIGINT), while what was read must all still be drawn.
			n, err := ss.readBatch(buf[:ss.room(len(buf))], ss.roomNow)
			if n > 0 {
				ss.deliver(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	st := <-waitDone
	select {
	case <-readDone:
	case <-time.After(300 * time.Millisecond):
		// Something else still holds the terminal open: the session is over
		// when its process is, so hang up on the stragglers.
		_ = ss.ptmx.Close()
		<-readDone
	}
	_ = ss.ptmx.Close()
	if ss.logw != nil {
		ss.logw.Close()
	}
	ss.markExited(st)
}

// readBatch waits until the pty has output, then takes everything it has
// ready, up to len(buf). The kernel hands over at most ~4 KiB per read; a
// program that floods the terminal has much more waiting, and passing it on
// in one piece cuts the per-chunk cost of every stage after this one. It
// never waits for more than is already there, so an echo is not delayed.
//
// room, called when output arrives after a wait, bounds len(buf) again: the
// room the caller sized buf by was taken before the wait, and meanwhile a
// subscriber may have come (with no subscriber at all, buf was the whole
// limit) or a window may have started again from StartWindow. 0: none now,
// nothing is read (the caller waits in session.room).
func (ss *session) readBatch(buf []byte, room func(limit int) int) (int, error) {
	rc, err := ss.ptmx.SyscallConn()
	if err != nil {
		return ss.ptmx.Read(buf)
	}
	off := 0
	waited := false
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		if waited && off == 0 && room != nil {
			if buf = buf[:room(len(buf))]; len(buf) == 0 {
				return true
			}
		}
		waited = true
		for off < len(buf) {
			n, err := unix.Read(int(fd), buf[off:])
			if n > 0 {
				off += n
				continue
			}
			if err == unix.EINTR {
				continue
			}
			if err == unix.EAGAIN {
				return off > 0 // nothing yet: wait for the poller; something: done
			}
			if err == nil {
				err = io.EOF
			}
			rerr = err
			return true
		}
		return true
	})
	if err != nil {
		return off, err
	}
	if off > 0 {
		return off, nil // report a read error after delivering what came before it
	}
	return 0, rerr
}

// room waits until every subscriber has at least a quarter of its window
// free, then returns how much may be read: the least free room of any
// subscriber, at most limit. So what a subscriber has unacknowledged or
// pending never exceeds its window (a replay aside), and the pty is read in
// pieces of at least a quarter window, not a byte at a time as acks trickle
// in.
func (ss *session) room(limit int) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for {
		room, full := ss.roomLocked(limit)
		if full == nil {
			return room
		}
		full.waiting = true
		if full.blockedSince.IsZero() {
			full.blockedSince = time.Now()
		}
		for full.backlog() > full.window-full.window/4 && !full.closed {
			ss.cond.Wait()
		}
		full.waiting = false
	}
}

// roomNow is room without the wait: how much may be read now, at most
// limit; 0 when a subscriber has less than a quarter of its window free.
// readBatch calls it after waiting for output, since the room taken before
// the wait may be out of date.
func (ss *session) roomNow(limit int) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	room, _ := ss.roomLocked(limit)
	return room
}

// roomLocked, with ss.mu held, returns the first subscriber with less than
// a quarter of its window free (room 0), or nil and how much may be read:
// the least free room of any subscriber, at most limit.
func (ss *session) roomLocked(limit int) (int, *sub) {
	room := int64(limit)
	for _, b := range ss.subs {
		if b.closed {
			continue
		}
		if b.backlog() > b.window-b.window/4 {
			return 0, b
		}
		room = min(room, b.window-b.backlog())
	}
	return int(room), nil
}

// deliver fans one chunk of pty output out to the replay ring, the log and
// every subscriber. It never waits: room bounded the read.
func (ss *session) deliver(p []byte) {
	ss.writeLog(p)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.ring.Write(p)
	for _, b := range ss.subs {
		if b.closed {
			continue
		}
		b.pending = append(b.pending, p...)
		b.c.markReady(b)
	}
}

func (ss *session) markExited(st *os.ProcessState) {
	info := ss.info(false)
	info.Alive = false
	info.Ended = time.Now().UnixMilli()
	if st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			info.ExitSignal = unix.SignalName(ws.Signal())
		} else {
			code := st.ExitCode()
			info.ExitCode = &code
		}
	}
	ss.mu.Lock()
	ss.exited, ss.exit = true, info
	skip := make(map[*client]bool, len(ss.subs))
	for c, b := range ss.subs {
		inf := info
		b.exit = &inf
		skip[c] = true
		c.markReady(b)
	}
	closing, keepLog := ss.closing, ss.keepLog
	ss.mu.Unlock()
	ss.srv.log.Info("session exited", "session", ss.id, "pid", ss.pid, "code", info.ExitCode, "signal", info.ExitSignal)
	if closing {
		ss.srv.forget(ss.id)
		if !keepLog && ss.srv.cfg.ScrollbackDir != "" {
			_ = scrollback.Remove(ss.srv.cfg.ScrollbackDir, ss.id)
		}
	}
	ss.srv.broadcastExit(info, skip)
}

func (ss *session) info(withForeground bool) ptyproto.SessionInfo {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.exited {
		return ss.exit
	}
	inf := ptyproto.SessionInfo{
		ID: ss.id, PID: ss.pid, Argv: ss.argv, Cwd: ss.cwd, Alive: true,
		Created: ss.created.UnixMilli(), Cols: ss.cols, Rows: ss.rows,
	}
	if withForeground && ss.ptmx != nil {
		inf.Foreground = ss.foregroundLocked()
	}
	return inf
}

// foregroundLocked names the terminal's foreground process group when it is
// not the session's own process (a program running in the shell).
func (ss *session) foregroundLocked() string {
	rc, err := ss.ptmx.SyscallConn()
	if err != nil {
		return ""
	}
	pgrp := 0
	_ = rc.Control(func(fd uintptr) {
		pgrp, _ = unix.IoctlGetInt(int(fd), unix.TIOCGPGRP)
	})
	if pgrp <= 0 || pgrp == ss.pid {
		return ""
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pgrp))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (ss *session) resize(cols, rows uint16) error {
	if cols == 0 || rows == 0 {
		return errors.New("resize: zero size")
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.exited {
		return errors.New("resize: session has exited")
	}
	ss.cols, ss.rows = cols, rows
	rc, err := ss.ptmx.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows})
	}); err != nil {
		return err
	}
	return ierr
}

func (ss *session) input(p []byte) error {
	ss.mu.Lock()
	exited := ss.exited
	ss.mu.Unlock()
	if exited {
		return errors.New("input: session has exited")
	}
	_, err := ss.ptmx.Write(p)
	return err
}

var signals = map[string]syscall.Signal{
	"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "QUIT": syscall.SIGQUIT, "TERM": syscall.SIGTERM,
	"KILL": syscall.SIGKILL, "USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2, "CONT": syscall.SIGCONT,
	"STOP": syscall.SIGSTOP, "WINCH": syscall.SIGWINCH,
}

// signal sends sig to the session's process group (the shell and the jobs
// it has not moved to other groups).
func (ss *session) signal(name string) error {
	sig, ok := signals[strings.TrimPrefix(strings.ToUpper(name), "SIG")]
	if !ok {
		return fmt.Errorf("signal: unknown signal %q", name)
	}
	ss.mu.Lock()
	exited := ss.exited
	ss.mu.Unlock()
	if exited {
		return errors.New("signal: session has exited")
	}
	if err := syscall.Kill(-ss.pid, sig); err != nil {
		return syscall.Kill(ss.pid, sig)
	}
	return nil
}

// hangup ends the session like a closed terminal window would: SIGHUP to the
// process group, SIGKILL after grace if it is still there.
func (ss *session) hangup(grace time.Duration) {
	ss.mu.Lock()
	exited := ss.exited
	ss.mu.Unlock()
	if exited {
		return
	}
	_ = syscall.Kill(-ss.pid, syscall.SIGHUP)
	_ = syscall.Kill(ss.pid, syscall.SIGHUP)
	// Closing the master is what a closing terminal window does: the
	// kernel hangs up the terminal, so a shell that ignores SIGHUP still
	// sees end-of-file.
	_ = ss.ptmx.Close()
	go func() {
		time.Sleep(grace)
		ss.mu.Lock()
		exited := ss.exited
		ss.mu.Unlock()
		if !exited {
			_ = syscall.Kill(-ss.pid, syscall.SIGKILL)
			_ = syscall.Kill(ss.pid, syscall.SIGKILL)
		}
	}()
}

// close ends the session at the client's request and forgets it once its
// process is gone.
func (ss *session) close(keepLog bool) {
	ss.mu.Lock()
	ss.closing, ss.keepLog = true, keepLog
	exited := ss.exited
	ss.mu.Unlock()
	if exited {
		ss.srv.forget(ss.id)
		if !keepLog && ss.srv.cfg.ScrollbackDir != "" {
			_ = scrollback.Remove(ss.srv.cfg.ScrollbackDir, ss.id)
		}
		return
	}
	ss.hangup(2 * time.Second)
}

// subscribe adds c as a subscriber. It returns how many bytes of replay
// precede live output and the absolute offset of the first of them. With
// resume, the replay starts at offset from (or the oldest byte the ring
// still holds, if that is later) instead of the last lines.
func (ss *session) subscribe(c *client, lines int, resume bool, from int64) (int64, int64, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if _, dup := ss.subs[c]; dup {
		return 0, 0, errors.New("subscribe: already subscribed")
	}
	var pending []byte
	var off int64
	if resume {
		pending, off = ss.ring.Since(from)
		pending = append([]byte(nil), pending...)
	} else {
		all := ss.ring.Bytes()
		pending = scrollback.LastLines(all, lines)
		off = ss.ring.total - int64(len(pending))
	}
	b := &sub{c: c, s: ss, pending: pending, window: ss.srv.cfg.StartWindow}
	n := int64(len(b.pending))
	if ss.exited {
		inf := ss.exit
		b.exit = &inf
	}
	ss.subs[c] = b
	c.addSub(b)
	if n > 0 || b.exit != nil {
		c.markReady(b)
	}
	return n, off, nil
}

func (ss *session) unsubscribe(c *client) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if b, ok := ss.subs[c]; ok {
		b.closed = true
		b.pending = nil
		delete(ss.subs, c)
		c.removeSub(b)
		ss.cond.Broadcast()
	}
}

func (ss *session) ack(c *client, n int64, rate float64, queued int64) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if b, ok := ss.subs[c]; ok {
		b.acked(n, rate, queued, time.Now(), &ss.srv.cfg)
		ss.cond.Broadcast()
	}
}

// take removes up to max pending bytes from b for sending, and the exit
// notice once nothing is pending. more reports whether b has more to send.
func (ss *session) take(b *sub, max int) (chunk []byte, exit *ptyproto.SessionInfo, more bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if b.closed {
		return nil, nil, false
	}
	if n := len(b.pending); n > 0 {
		if n > max {
			n = max
		}
		// No copy: deliver only appends past the end of pending, so the
		// bytes handed out here are never written again.
		chunk = b.pending[:n:n]
		b.pending = b.pending[n:]
		if len(b.pending) == 0 {
			b.pending = nil // the next deliver starts a new array
		}
		b.unacked += int64(n)
	}
	if len(b.pending) == 0 && b.exit != nil {
		exit, b.exit = b.exit, nil
	}
	return chunk, exit, len(b.pending) > 0 || b.exit != nil
}
