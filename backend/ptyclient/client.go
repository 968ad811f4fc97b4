// Package ptyclient is the host's side of the pty daemon protocol: a typed
// client over one connection, and Ensure, which finds the daemon of a
// REPRISE_HOME or starts one.
package ptyclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reprise-dev/reprise/backend/ptyproto"
)

// SessionInfo is the daemon's description of a session.
type SessionInfo = ptyproto.SessionInfo

// ErrClosed is returned by calls on a client whose connection has ended.
var ErrClosed = errors.New("pty daemon connection closed")

// Options configure a Client.
type Options struct {
	// Name identifies the client in the daemon's log.
	Name string
	// OnExit is called, on the client's reader goroutine, for every exit of
	// a session this connection is not subscribed to. Keep it short.
	OnExit func(SessionInfo)
	// MeasureLink, when positive, has the client measure the round-trip
	// time of its link with pings (three at once, then one every
	// MeasureLink) and tell the daemon (ptyproto TLink), which sizes the
	// flow-control windows of this connection to cover it. For a link with
	// latency (ssh); a local socket needs none.
	MeasureLink time.Duration
}

// Client is one connection to the daemon. Safe for concurrent use.
type Client struct {
	conn      net.Conn
	br        *bufio.Reader
	opts      Options
	DaemonPID int
	// binary: the daemon speaks ptyproto.FeatureBinary (acks go binary).
	binary bool
	// ackRate: the daemon takes the reader's rate with an ack
	// (ptyproto.FeatureAckRate).
	ackRate bool
	// ackQueue: the daemon takes the reader's queued bytes with an ack
	// (ptyproto.FeatureAckQueue).
	ackQueue bool

	wmu sync.Mutex // serialises frame writes

	mu      sync.Mutex // guards the fields below
	nextReq uint64
	pending map[uint64]chan *ptyproto.Frame
	subs    map[string]*Subscription
	err     error
	linkRTT time.Duration // last reported to the daemon (MeasureLink)

	done chan struct{}
}

// Dial connects to the daemon socket and performs the handshake.
func Dial(ctx context.Context, sock string, opts Options) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, fmt.Errorf("connect to pty daemon: %w", err)
	}
	// The handshake waits for the daemon's hello: a daemon that accepts
	// and never answers (stopped, wedged) held Dial past ctx, and
	// `reprise terminals list` hung for good. ctx ending unblocks it.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	c, err := NewClient(conn, opts)
	if !stop() {
		if err == nil {
			c.Close()
		}
		conn.Close()
		return nil, fmt.Errorf("pty daemon handshake: %w", ctx.Err())
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// NewClient performs the handshake on conn and starts reading.
func NewClient(conn net.Conn, opts Options) (*Client, error) {
	if err := ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.THello, Version: ptyproto.Version, Client: opts.Name, Features: []string{ptyproto.FeatureBinary}}, nil); err != nil {
		return nil, fmt.Errorf("pty daemon handshake: %w", err)
	}
	// Buffered: small frames (echoes, replies) cost one read, not two.
	br := bufio.NewReaderSize(conn, 64<<10)
	f, err := ptyproto.ReadFrame(br)
	if err != nil {
		return nil, fmt.Errorf("pty daemon handshake: %w", err)
	}
	if f.Header.Type == ptyproto.TError {
		return nil, fmt.Errorf("pty daemon refused connection: %s", f.Header.Error)
	}
	if f.Header.Type != ptyproto.THello || f.Header.Version != ptyproto.Version {
		return nil, errors.New(ptyproto.VersionMismatch(f.Header.Version, ptyproto.Version))
	}
	c := &Client{
		conn: conn, br: br, opts: opts, DaemonPID: f.Header.PID, binary: f.Header.Has(ptyproto.FeatureBinary),
		ackRate: f.Header.Has(ptyproto.FeatureAckRate), ackQueue: f.Header.Has(ptyproto.FeatureAckQueue),
		pending: map[uint64]chan *ptyproto.Frame{}, subs: map[string]*Subscription{},
		done: make(chan struct{}),
	}
	go c.readLoop()
	if opts.MeasureLink > 0 {
		go c.measureLink(opts.MeasureLink)
	}
	return c, nil
}

// linkSamples is how many recent round trips the link's RTT is the
// smallest of: a ping answered behind a burst of output measures the
// queue, not the link (and a window sized by the queue would grow it).
const linkSamples = 8

// measureLink pings the daemon and reports the link's round-trip time,
// the smallest of the last linkSamples pings, whenever it moves by more
// than a tenth.
func (c *Client) measureLink(every time.Duration) {
	var recent []time.Duration
	var sent time.Duration
	for i := 0; ; i++ {
		if i >= 3 {
			select {
			case <-c.done:
				return
			case <-time.After(every):
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		t0 := time.Now()
		err := c.Ping(ctx)
		d := time.Since(t0)
		cancel()
		if errors.Is(err, ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		recent = append(recent, d)
		if len(recent) > linkSamples {
			recent = recent[1:]
		}
		m := slices.Min(recent)
		if sent == 0 || m > sent+sent/10 || m < sent-sent/10 {
			if c.send(&ptyproto.Header{Type: ptyproto.TLink, RTT: max(1, m.Microseconds())}, nil) != nil {
				return
			}
			sent = m
			c.mu.Lock()
			c.linkRTT = m
			c.mu.Unlock()
		}
	}
}

// LinkRTT is the round-trip time last reported to the daemon (0: none yet,
// or MeasureLink is off).
func (c *Client) LinkRTT() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.linkRTT
}

// Done is closed when the connection ends (the daemon died or Close).
func (c *Client) Done() <-chan struct{} { return c.done }

// Err reports why the connection ended.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection. Sessions keep running in the daemon.
func (c *Client) Close() error { return c.conn.Close() }

func (c *Client) readLoop() {
	var err error
	defer func() {
		c.mu.Lock()
		if err == nil {
			err = ErrClosed
		}
		c.err = err
		for id, ch := range c.pending {
			close(ch)
			delete(c.pending, id)
		}
		subs := c.subs
		c.subs = map[string]*Subscription{}
		c.mu.Unlock()
		for _, s := range subs {
			s.end()
		}
		close(c.done)
		c.conn.Close()
	}()
	for {
		var f *ptyproto.Frame
		f, err = ptyproto.ReadFrame(c.br)
		if err != nil {
			return
		}
		h := &f.Header
		switch h.Type {
		case ptyproto.TOutput:
			c.mu.Lock()
			s := c.subs[h.Session]
			c.mu.Unlock()
			if s != nil && s.onData != nil {
				s.onData(f.Payload)
			}
		case ptyproto.TExit:
			c.mu.Lock()
			s := c.subs[h.Session]
			c.mu.Unlock()
			if h.Info == nil {
				continue
			}
			if s != nil {
				if s.onExit != nil {
					s.onExit(*h.Info)
				}
			} else if c.opts.OnExit != nil {
				c.opts.OnExit(*h.Info)
			}
		default:
			if h.Req == 0 {
				continue
			}
			c.mu.Lock()
			ch := c.pending[h.Req]
			delete(c.pending, h.Req)
			c.mu.Unlock()
			if ch != nil {
				ch <- f
			}
		}
	}
}

func (c *Client) send(h *ptyproto.Header, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	if err := ptyproto.WriteFrame(c.conn, h, payload); err != nil {
		return fmt.Errorf("send %s: %w", h.Type, err)
	}
	return nil
}

// call sends a request and waits for its reply.
func (c *Client) call(ctx context.Context, h *ptyproto.Header, payload []byte) (*ptyproto.Frame, error) {
	ch := make(chan *ptyproto.Frame, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.nextReq++
	h.Req = c.nextReq
	c.pending[h.Req] = ch
	c.mu.Unlock()
	if err := c.send(h, payload); err != nil {
		c.mu.Lock()
		delete(c.pending, h.Req)
		c.mu.Unlock()
		return nil, err
	}
	select {
	case f, ok := <-ch:
		if !ok {
			return nil, ErrClosed
		}
		if f.Header.Type == ptyproto.TError {
			return nil, errors.New(f.Header.Error)
		}
		return f, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, h.Req)
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

// OpenRequest describes a new session.
type OpenRequest struct {
	ID         string
	Argv       []string
	Cwd        string
	Env        []string
	Cols, Rows uint16
	Log        bool   // keep a scrollback log on disk
	Preamble   []byte // shown before the process's output (restored scrollback)
}

// Open starts a process in a new pty.
func (c *Client) Open(ctx context.Context, r OpenRequest) (SessionInfo, error) {
	f, err := c.call(ctx, &ptyproto.Header{
		Type: ptyproto.TOpen, Session: r.ID, Argv: r.Argv, Cwd: r.Cwd, Env: r.Env,
		Cols: r.Cols, Rows: r.Rows, Log: r.Log,
	}, r.Preamble)
	if err != nil {
		return SessionInfo{}, err
	}
	if f.Header.Info == nil {
		return SessionInfo{}, errors.New("open: daemon sent no session info")
	}
	return *f.Header.Info, nil
}

// Input writes bytes to a session's pty. Writes from one client arrive in
// the order they were made.
func (c *Client) Input(id string, p []byte) error {
	for len(p) > 0 {
		n := min(len(p), ptyproto.MaxChunk)
		if err := c.send(&ptyproto.Header{Type: ptyproto.TInput, Session: id}, p[:n]); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// Resize sets a session's window size.
func (c *Client) Resize(ctx context.Context, id string, cols, rows uint16) error {
	_, err := c.call(ctx, &ptyproto.Header{Type: ptyproto.TResize, Session: id, Cols: cols, Rows: rows}, nil)
	return err
}

// Signal sends a signal ("KILL", "TERM", "HUP", …) to a session's process group.
func (c *Client) Signal(ctx context.Context, id, sig string) error {
	_, err := c.call(ctx, &ptyproto.Header{Type: ptyproto.TSignal, Session: id, Signal: sig}, nil)
	return err
}

// CloseSession hangs up a session and forgets it once its process is gone;
// its scrollback log is deleted unless keepLog.
func (c *Client) CloseSession(ctx context.Context, id string, keepLog bool) error {
	_, err := c.call(ctx, &ptyproto.Header{Type: ptyproto.TClose, Session: id, KeepLog: keepLog}, nil)
	return err
}

// Collect tells the daemon an exited session's status has been recorded.
func (c *Client) Collect(ctx context.Context, id string) error {
	_, err := c.call(ctx, &ptyproto.Header{Type: ptyproto.TCollect, Session: id}, nil)
	return err
}

// List returns every session the daemon holds, running or awaiting collection.
func (c *Client) List(ctx context.Context) ([]SessionInfo, error) {
	f, err := c.call(ctx, &ptyproto.Header{Type: ptyproto.TList}, nil)
	if err != nil {
		return nil, err
	}
	return f.Header.Sessions, nil
}

// Ping checks the daemon answers.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.call(ctx, &ptyproto.Header{Type: ptyproto.TPing}, nil)
	return err
}

// Subscription streams one session's output: first its replay buffer, then
// live output. The consumer acknowledges bytes it has consumed; the daemon
// stops sending past its high watermark.
type Subscription struct {
	c      *Client
	id     string
	onData func([]byte)
	onExit func(SessionInfo)
	once   sync.Once
	onEnd  func()
	Replay int64 // bytes of replay that precede live output
	// Offset is the absolute output offset of the first replayed byte, so
	// Offset+bytes received is where a resumed subscription continues.
	Offset int64
}

func (s *Subscription) end() {
	s.once.Do(func() {
		if s.onEnd != nil {
			s.onEnd()
		}
	})
}

// SubscribeOptions are the callbacks of a subscription. They run on the
// client's reader goroutine, in order.
type SubscribeOptions struct {
	OnData func([]byte)
	OnExit func(SessionInfo)
	OnEnd  func() // the connection ended or Unsubscribe was called
	// ReplayLines: replay at most the last this many lines (0: the whole
	// replay buffer). A viewer that keeps N lines of scrollback needs no more.
	ReplayLines int
	// Resume replays from absolute output offset From (see
	// ptyproto.Header.Resume) instead of the last ReplayLines.
	Resume bool
	From   int64
}

// Subscribe starts streaming a session. Only one subscription per session
// per client.
func (c *Client) Subscribe(ctx context.Context, id string, o SubscribeOptions) (*Subscription, error) {
	s := &Subscription{c: c, id: id, onData: o.OnData, onExit: o.OnExit, onEnd: o.OnEnd}
	c.mu.Lock()
	if _, dup := c.subs[id]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("subscribe %s: already subscribed on this connection", id)
	}
	// Registered before the request: output may arrive before the reply.
	c.subs[id] = s
	c.mu.Unlock()
	f, err := c.call(ctx, &ptyproto.Header{Type: ptyproto.TSubscribe, Session: id, Lines: o.ReplayLines, Resume: o.Resume, Offset: o.From}, nil)
	if err != nil {
		c.mu.Lock()
		if c.subs[id] == s {
			delete(c.subs, id)
		}
		c.mu.Unlock()
		return nil, err
	}
	s.Replay = f.Header.Replay
	s.Offset = f.Header.Offset
	return s, nil
}

// Ack acknowledges n bytes of output as consumed.
func (s *Subscription) Ack(n int64) error { return s.AckRate(n, 0) }

// AckRate acknowledges n bytes of output as consumed, with the rate
// (bytes/s) at which the reader consumes while it has output to consume, so
// the daemon can size the window from it (ptyproto.FeatureAckRate); rate 0,
// or a daemon without the feature: a plain ack.
func (s *Subscription) AckRate(n int64, rate float64) error { return s.AckQueue(n, rate, -1) }

// AckQueue is AckRate with the bytes the reader has received and not yet
// consumed (queued < 0: not known), with which the daemon keeps that queue
// near its target (ptyproto.FeatureAckQueue); a daemon without the feature
// gets AckRate's ack.
func (s *Subscription) AckQueue(n int64, rate float64, queued int64) error {
	if n <= 0 {
		return nil
	}
	r := int64(0)
	if s.c.ackRate && rate >= 1 {
		r = int64(min(rate, 1e12))
	}
	q := int64(-1)
	if s.c.ackQueue && r > 0 && queued >= 0 {
		q = queued
	}
	if s.c.binary {
		return s.c.sendAck(s.id, n, r, q)
	}
	h := &ptyproto.Header{Type: ptyproto.TAck, Session: s.id, Bytes: n, Rate: r}
	if q >= 0 {
		h.Queued = &q
	}
	return s.c.send(h, nil)
}

func (c *Client) sendAck(id string, n, rate, queued int64) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	if err := ptyproto.WriteAckQueue(c.conn, id, n, rate, queued); err != nil {
		return fmt.Errorf("send ack: %w", err)
	}
	return nil
}

// Unsubscribe stops the stream.
func (s *Subscription) Unsubscribe(ctx context.Context) error {
	s.c.mu.Lock()
	if s.c.subs[s.id] == s {
		delete(s.c.subs, s.id)
	}
	s.c.mu.Unlock()
	defer s.end()
	_, err := s.c.call(ctx, &ptyproto.Header{Type: ptyproto.TUnsubscribe, Session: s.id}, nil)
	return err
}

// Facts is what a daemon tells about its machine.
type Facts = ptyproto.Facts

// PathStat is one path's answer in Facts.
type PathStat = ptyproto.PathStat

// ErrOldDaemon reports a request the daemon does not know: it was started
// by an older Reprise and keeps running (an upgrade does not kill it).
var ErrOldDaemon = errors.New("the pty daemon there was started by an older Reprise and does not answer this; it will once it restarts")

// older maps a daemon's answer to a request type it predates: it looked
// for a session named "" (its catch-all for session requests).
func older(err error) error {
	if err != nil && strings.HasSuffix(err.Error(), `: no session ""`) {
		return ErrOldDaemon
	}
	return err
}

// Cwds reports the current directory of each live session on the daemon's
// machine (with id: that session only).
func (c *Client) Cwds(ctx context.Context, id string) (map[string]string, error) {
	f, err := c.call(ctx, &ptyproto.Header{Type: ptyproto.TCwd, Session: id}, nil)
	if id == "" {
		err = older(err)
	}
	if err != nil {
		return nil, err
	}
	return f.Header.Cwds, nil
}

// Facts asks the daemon about its machine: with login, the user's login
// shell and environment; for each of paths, whether it exists (stat only).
// At most ptyproto.MaxFactPaths paths per call.
func (c *Client) Facts(ctx context.Context, login bool, paths []string) (*Facts, error) {
	return c.facts(ctx, &ptyproto.Header{Type: ptyproto.TFacts, Login: login, Paths: paths})
}

// Look asks the daemon, in one request, whether each of paths exists (stat
// only), which paths each of globs names (readdir and stat only, bounded)
// and whether each file of contains holds its named pattern (a bounded,
// read-only scan): docs/wire.md "Daemon facts". At most
// ptyproto.MaxFactPaths paths, ptyproto.MaxFactGlobs globs and
// ptyproto.MaxFactContains contains. A daemon that predates globs or
// contains answers the rest, and each of those comes back with Err saying
// so (ErrOldDaemon).
func (c *Client) Look(ctx context.Context, paths []string, globs []ptyproto.Glob, contains ...ptyproto.Contains) (*Facts, error) {
	return c.facts(ctx, &ptyproto.Header{Type: ptyproto.TFacts, Paths: paths, Globs: globs, Contains: contains})
}

func (c *Client) facts(ctx context.Context, h *ptyproto.Header) (*Facts, error) {
	f, err := c.call(ctx, h, nil)
	if err = older(err); err != nil {
		return nil, err
	}
	ff := f.Header.Facts
	if ff == nil {
		return nil, errors.New("facts: daemon sent no answer")
	}
	if len(ff.Paths) != len(h.Paths) {
		return nil, fmt.Errorf("facts: daemon answered %d of %d paths", len(ff.Paths), len(h.Paths))
	}
	if ff.Globs, err = answered("globs", h.Globs, ff.Globs, func(g ptyproto.Glob) ptyproto.GlobResult {
		return ptyproto.GlobResult{Root: g.Root, Pattern: g.Pattern, Err: ErrOldDaemon.Error()}
	}); err != nil {
		return nil, err
	}
	if ff.Contains, err = answered("contains", h.Contains, ff.Contains, func(q ptyproto.Contains) ptyproto.ContainsResult {
		return ptyproto.ContainsResult{Path: q.Path, Pattern: q.Pattern, Err: ErrOldDaemon.Error()}
	}); err != nil {
		return nil, err
	}
	return ff, nil
}

// answered checks a facts reply's answers to one field's questions: one
// per question, or none from a daemon that predates the field (it ignores
// what it does not know), each then unknown as older says.
func answered[Q, A any](field string, asked []Q, got []A, older func(Q) A) ([]A, error) {
	switch {
	case len(got) == len(asked):
		return got, nil
	case len(got) == 0:
		out := make([]A, 0, len(asked))
		for _, q := range asked {
			out = append(out, older(q))
		}
		return out, nil
	}
	return nil, fmt.Errorf("facts: daemon answered %d of %d %s", len(got), len(asked), field)
}

// LogTail is the end of the scrollback log a session left on the daemon's
// disk when the daemon no longer holds it (see ptyproto.TLogTail): at most
// max bytes, size the whole log's, mod its last write (unix ms); ok is
// false when there is no log.
type LogTail struct {
	Data []byte
	Size int64
	Mod  int64
	OK   bool
}

// LogTail reads a dead session's log from the daemon's disk.
func (c *Client) LogTail(ctx context.Context, id string, max int64) (LogTail, error) {
	f, err := c.call(ctx, &ptyproto.Header{Type: ptyproto.TLogTail, Session: id, Bytes: max}, nil)
	if err != nil {
		return LogTail{}, err
	}
	return LogTail{Data: f.Payload, Size: f.Header.Bytes, Mod: f.Header.Mod, OK: f.Header.Log}, nil
}

// RemoveLog deletes a dead session's log from the daemon's disk.
func (c *Client) RemoveLog(ctx context.Context, id string) error {
	_, err := c.call(ctx, &ptyproto.Header{Type: ptyproto.TLogRemove, Session: id}, nil)
	return err
}
