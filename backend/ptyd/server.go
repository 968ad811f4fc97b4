// Package ptyd is the pty daemon: it owns the ptys and their child
// processes, a replay buffer per session and the on-disk scrollback log, and
// serves them to clients (the host) over the ptyproto protocol on a Unix
// socket. It is small and dumb on purpose — no database, no agent knowledge,
// no UI — because it is the part that must almost never die.
//
// Lock order: a session's mu may be held while taking a client's mu, never
// the reverse; Server.mu is never held together with a session's mu.
package ptyd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/reprise-dev/reprise/backend/ptyproto"
	"github.com/reprise-dev/reprise/backend/scrollback"
)

// Config holds the daemon's knobs. Zero values take the defaults.
type Config struct {
	ScrollbackDir   string // where per-session logs go; empty disables logging
	ScrollbackLimit int64  // bytes per session log pair
	ReplaySize      int    // bytes kept in memory per session for replay
	// Flow control, per subscriber (docs/wire.md "Flow control"): what a
	// subscriber has unacknowledged or pending never exceeds its window — the
	// daemon reads the pty only while every subscriber has a quarter of its
	// window free, and then at most the free part. The window follows how fast
	// the subscriber acknowledges: WindowTime of output at that rate, between
	// MinWindow and HighWater. A fast reader (plain text into xterm.js) gets
	// up to HighWater; a slow one (`yes`, a line per 4 bytes) a small window,
	// so that after Ctrl+C only WindowTime's worth is still to draw.
	HighWater  int64
	MinWindow  int64
	WindowTime time.Duration
	// StartWindow is a new subscriber's window, and the window a local
	// subscriber starts again from after an ack that leaves it nothing to
	// draw while the reader was not held back by it: the window was not
	// what limited the output, so nothing says how fast the next burst is
	// drawn (TCP's window validation after idle, RFC 2861, alike). What is
	// read must all be drawn, and the next burst may be slow text (`yes`: a
	// line feed per 4 bytes): a window left at a fast reader's HighWater,
	// or a new subscriber's, let up to a megabyte out before the first ack
	// of the burst, a second of drawing after a Ctrl+C. The window grows
	// from here with the burst's acks (acked, steer).
	StartWindow int64
	// Over a link with latency (a client that reported its round-trip time,
	// ptyproto TLink: a remote host over ssh) the window must also cover
	// what is in flight, or throughput is capped at window/RTT: the window
	// is then the ack rate × (WindowTime + LinkMargin × RTT), up to
	// LinkHighWater. The RTT a client claims is capped at MaxLinkRTT, so a
	// client cannot make the daemon hold more than LinkHighWater per
	// subscription (what is pending is bounded by the window).
	LinkHighWater int64
	LinkMargin    float64
	MaxLinkRTT    time.Duration
	// NoHandoff refuses ptyproto.FeatureHandoff, as a daemon that predates
	// it does (tests of the relay's fallback).
	NoHandoff bool
	Logger    *slog.Logger
}

func (c *Config) fill() {
	if c.ReplaySize <= 0 {
		c.ReplaySize = 1 << 20
	}
	if c.HighWater <= 0 {
		c.HighWater = 1 << 20
	}
	if c.MinWindow <= 0 {
		c.MinWindow = 8 << 10
	}
	c.MinWindow = min(c.MinWindow, c.HighWater)
	if c.StartWindow <= 0 {
		c.StartWindow = 32 << 10
	}
	c.StartWindow = min(max(c.StartWindow, c.MinWindow), c.HighWater)
	if c.WindowTime <= 0 {
		c.WindowTime = 10 * time.Millisecond
	}
	if c.LinkHighWater <= 0 {
		c.LinkHighWater = 4 << 20
	}
	c.LinkHighWater = max(c.LinkHighWater, c.HighWater)
	if c.LinkMargin <= 0 {
		// Twice the bytes of one round trip, as BBR's cwnd gain: the reader
		// resumes under 3/4 of the window, and the ack loop of a loaded
		// machine takes longer than the bare RTT the pings measure on an
		// idle link; a window that is the limit then still grows each
		// round trip until the link or the reader is. (1.5 settled at
		// about 1 MB at 50 ms on this machine, 9 MB/s; 2 gave 15 MB/s.)
		c.LinkMargin = 2
	}
	if c.MaxLinkRTT <= 0 {
		c.MaxLinkRTT = time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
}

// Server is the daemon's state: its sessions and connected clients.
type Server struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex // guards sessions, clients, closed
	sessions map[string]*session
	clients  map[*client]struct{}
	closed   bool

	dirsMu    sync.Mutex
	agentDirs []string // agents' directories a login environment named (globRoots)
}

// New returns a Server with no sessions.
func New(cfg Config) *Server {
	cfg.fill()
	return &Server{
		cfg:      cfg,
		log:      cfg.Logger.With("component", "ptyd"),
		sessions: make(map[string]*session),
		clients:  make(map[*client]struct{}),
	}
}

// Serve accepts clients on ln until ln is closed.
func (s *Server) Serve(ln net.Listener) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		go s.ServeConn(c)
	}
}

// ServeConn speaks the protocol on one connection until it closes.
func (s *Server) ServeConn(conn net.Conn) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("client handler panicked", "panic", r, "stack", string(debug.Stack()))
		}
		conn.Close()
	}()
	// Buffered: a flood's acks and keystrokes are small frames, two reads each unbuffered.
	br := bufio.NewReaderSize(conn, 64<<10)
	f, err := ptyproto.ReadFrame(br)
	if err != nil {
		s.log.Warn("handshake read failed", "err", err)
		return
	}
	if f.Header.Type != ptyproto.THello {
		_ = ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.TError, Error: "expected hello"}, nil)
		return
	}
	if f.Header.Version != ptyproto.Version {
		msg := ptyproto.VersionMismatch(ptyproto.Version, f.Header.Version)
		s.log.Warn("refused client", "reason", msg)
		_ = ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.TError, Version: ptyproto.Version, Error: msg}, nil)
		return
	}
	feats := []string{ptyproto.FeatureBinary, ptyproto.FeatureAckRate, ptyproto.FeatureAckQueue}
	uc, isUnix := conn.(*net.UnixConn)
	handoff := f.Header.Has(ptyproto.FeatureHandoff) && isUnix && !s.cfg.NoHandoff
	if handoff {
		feats = append(feats, ptyproto.FeatureHandoff)
	}
	if err := ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.THello, Version: ptyproto.Version, PID: os.Getpid(), Features: feats}, nil); err != nil {
		return
	}
	if handoff {
		s.serveHandoff(uc, br, f.Header.Client)
		return
	}
	c := newClient(s, conn, f.Header.Client)
	c.br = br
	c.binary = f.Header.Has(ptyproto.FeatureBinary)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.clients[c] = struct{}{}
	s.mu.Unlock()
	s.log.Info("client connected", "client", c.name)
	go c.writeLoop()
	err = c.readLoop()
	c.shutdown()
	s.mu.Lock()
	delete(s.clients, c)
	s.mu.Unlock()
	s.log.Info("client disconnected", "client", c.name, "err", err)
}

func (s *Server) session(id string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("no session %q", id)
	}
	return ss, nil
}

func (s *Server) list() []ptyproto.SessionInfo {
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	out := make([]ptyproto.SessionInfo, 0, len(all))
	for _, ss := range all {
		out = append(out, ss.info(true))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created < out[j].Created })
	return out
}

// broadcastExit tells every client that is not subscribed to ss (those get
// it in-stream, after the session's last output) that ss exited.
func (s *Server) broadcastExit(info ptyproto.SessionInfo, skip map[*client]bool) {
	s.mu.Lock()
	cs := make([]*client, 0, len(s.clients))
	for c := range s.clients {
		if !skip[c] {
			cs = append(cs, c)
		}
	}
	s.mu.Unlock()
	for _, c := range cs {
		inf := info
		c.sendCtrl(&ptyproto.Header{Type: ptyproto.TExit, Session: info.ID, Info: &inf}, nil)
	}
}

func (s *Server) forget(id string) {
	s.mu.Lock()
	delete(s.sessions, id)
	s.mu.Unlock()
}

// Shutdown hangs up every session and disconnects every client. Children
// get SIGHUP, as they would from a closing terminal window.
func (s *Server) Shutdown() {
	s.mu.Lock()
	s.closed = true
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	cs := make([]*client, 0, len(s.clients))
	for c := range s.clients {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, ss := range all {
		ss.hangup(500 * time.Millisecond)
	}
	for _, c := range cs {
		c.conn.Close()
	}
}

// SessionCount reports how many sessions (alive or awaiting collection) exist.
func (s *Server) SessionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// errLogOfLiveSession refuses the log requests for a session the daemon
// holds: its output comes through subscribe, and its log is still written.
var errLogOfLiveSession = errors.New("the session is held by this daemon; subscribe to it instead")

// logTail answers TLogTail: the end of the scrollback log a session left
// on disk when it is not one of this daemon's sessions (a killed daemon's,
// a rebooted machine's), at most limit bytes and the replay budget.
func (s *Server) logTail(id string, limit int64) (*ptyproto.Header, []byte, error) {
	if s.cfg.ScrollbackDir == "" {
		return nil, nil, errors.New("logtail: this daemon keeps no scrollback logs")
	}
	if _, _, err := scrollback.Paths(s.cfg.ScrollbackDir, id); err != nil {
		return nil, nil, fmt.Errorf("logtail: %w", err)
	}
	if _, err := s.session(id); err == nil {
		return nil, nil, fmt.Errorf("logtail %s: %w", id, errLogOfLiveSession)
	}
	budget := min(int64(s.cfg.ReplaySize), int64(ptyproto.MaxPayload))
	if limit <= 0 || limit > budget {
		limit = budget
	}
	tail, mod, ok, err := scrollback.Tail(s.cfg.ScrollbackDir, id, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("logtail %s: %w", id, err)
	}
	h := &ptyproto.Header{Type: ptyproto.TLogTail, Session: id, Log: ok, Mod: mod}
	if ok {
		// At least what was read: the log may have grown in between only
		// if something writes it, and nothing of this daemon does.
		h.Bytes = max(scrollback.Size(s.cfg.ScrollbackDir, id), int64(len(tail)))
	}
	s.log.Info("served the log of a session this daemon does not hold", "session", id, "found", ok, "bytes", len(tail), "size", h.Bytes)
	return h, tail, nil
}

// logRemove answers TLogRemove: the log of a session this daemon does not
// hold is deleted (the host restored it into a new session).
func (s *Server) logRemove(id string) error {
	if s.cfg.ScrollbackDir == "" {
		return nil
	}
	if _, _, err := scrollback.Paths(s.cfg.ScrollbackDir, id); err != nil {
		return fmt.Errorf("logrm: %w", err)
	}
	if _, err := s.session(id); err == nil {
		return fmt.Errorf("logrm %s: %w", id, errLogOfLiveSession)
	}
	return scrollback.Remove(s.cfg.ScrollbackDir, id)
}
