package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/scrollback"
)

// deadReplay is how much of an ended terminal's log a pane shows.
const deadReplay = 1 << 20

// Viewer streams terminals to one frontend connection. It has its own
// daemon connection, so a page that stops acknowledging output holds back
// only the terminals it shows.
type Viewer struct {
	h *Host

	id      int64
	created int64 // unix ms, for StreamStats

	mu     sync.Mutex // guards conn, subs, counts, rconns, rsubs
	conn   *ptyclient.Client
	subs   map[string]*ptyclient.Subscription
	counts map[string]*streamCount // for StreamStats
	firsts map[string]*streamCount // each terminal's first attach on this viewer, for StreamStats
	marks  json.RawMessage         // the page's report of its start (StartMarks)
	// A remote host's terminals stream over the viewer's own ssh channel
	// to that host (a ControlMaster session, so cheap), and survive a
	// dropped link: see remoteStream.
	rconns map[string]*ptyclient.Client
	rsubs  map[string]*remoteStream
	early  map[string]*earlyAcks // subscriptions being made: acks for their first bytes
	ctx    context.Context
	cancel context.CancelFunc

	// testHookSubscribed, when set (tests only, before Attach), runs
	// between Subscribe's return and the viewer storing the subscription:
	// the moment in which the replay's first acks can come
	// (TestEarlyAcksOfTheReplayAreNotLost). A field, not a package
	// variable, so tests in parallel cannot race on it.
	testHookSubscribed func()
}

// NewViewer starts a viewer; Close it when the frontend goes.
func (h *Host) NewViewer() *Viewer {
	v := &Viewer{h: h, id: viewerSeq.Add(1), created: time.Now().UnixMilli(), subs: map[string]*ptyclient.Subscription{}, counts: map[string]*streamCount{}, firsts: map[string]*streamCount{},
		rconns: map[string]*ptyclient.Client{}, rsubs: map[string]*remoteStream{}, early: map[string]*earlyAcks{}}
	v.ctx, v.cancel = context.WithCancel(h.ctx)
	h.addViewer(v)
	return v
}

func (v *Viewer) client(ctx context.Context) (*ptyclient.Client, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.conn != nil {
		select {
		case <-v.conn.Done():
			v.conn = nil
			v.subs = map[string]*ptyclient.Subscription{}
		default:
			return v.conn, nil
		}
	}
	c, err := ptyclient.Dial(ctx, v.h.cfg.Home.PtydSocket(), ptyclient.Options{Name: fmt.Sprintf("viewer-%d", os.Getpid())})
	if err != nil {
		return nil, fmt.Errorf("pty daemon unavailable: %w", err)
	}
	v.conn = c
	return c, nil
}

// Stream receives a terminal's bytes. OnData runs on one goroutine per
// viewer, in order; it must not block for long.
type Stream struct {
	OnData func([]byte)
	OnEnd  func() // the stream ended (detach, daemon connection lost)
	// ReplayLines: what the terminal showed is sent as at most this many
	// lines (0: all the daemon or the log has) — a page keeps no more.
	ReplayLines int
}

// Attach streams a terminal: what it showed (the daemon's replay buffer, or
// for an ended terminal its on-disk log) followed by live output. cols and
// rows, when set, resize a running terminal first so the replay is drawn at
// the right width.
func (v *Viewer) Attach(ctx context.Context, terminalID string, cols, rows uint16, s Stream) (api.Terminal, int64, error) {
	t, err := v.h.Terminal(ctx, terminalID)
	if err != nil {
		return api.Terminal{}, 0, err
	}
	if t.Status != api.StatusRunning {
		cnt := v.track(terminalID)
		s.OnData = cnt.wrap(s.OnData)
		tail, _, ok, err := scrollback.Tail(v.h.cfg.Home.ScrollbackDir(), terminalID, deadReplay)
		if err != nil {
			return t, 0, err
		}
		tail = scrollback.LastLines(tail, s.ReplayLines)
		if ok && len(tail) > 0 && s.OnData != nil {
			s.OnData(tail)
		}
		if s.OnEnd != nil {
			s.OnEnd()
		}
		cnt.setReplay(int64(len(tail)))
		return t, int64(len(tail)), nil
	}
	if cols > 0 && rows > 0 {
		if err := v.h.Resize(ctx, terminalID, cols, rows); err != nil {
			v.h.log.Debug("resize before attach", "terminal", terminalID, "err", err)
		}
	}
	var c *ptyclient.Client
	if v.h.hostOf(ctx, terminalID) == "" {
		if c, err = v.client(ctx); err != nil {
			return t, 0, err
		}
	}
	v.mu.Lock()
	if _, dup := v.subs[terminalID]; dup {
		v.mu.Unlock()
		return t, 0, fmt.Errorf("terminal %s is already attached on this connection", terminalID)
	}
	v.mu.Unlock()
	cnt := v.track(terminalID)
	s.OnData = cnt.wrap(s.OnData)
	if host := v.h.hostOf(ctx, terminalID); host != "" {
		return v.attachRemote(ctx, t, host, s)
	}
	ea := v.expectSub(terminalID)
	sub, err := c.Subscribe(ctx, terminalID, ptyclient.SubscribeOptions{OnData: ea.wrap(s.OnData), OnEnd: s.OnEnd, ReplayLines: s.ReplayLines})
	if err != nil {
		v.mu.Lock()
		v.takeEarly(terminalID, ea)
		v.mu.Unlock()
		return t, 0, err
	}
	if v.testHookSubscribed != nil {
		v.testHookSubscribed()
	}
	v.mu.Lock()
	v.subs[terminalID] = sub
	ack := v.takeEarly(terminalID, ea)
	v.mu.Unlock()
	ack.send(sub)
	cnt.setReplay(sub.Replay)
	return t, sub.Replay, nil
}

// Ack acknowledges n bytes of a terminal's output as rendered.
func (v *Viewer) Ack(terminalID string, n int64) error { return v.AckRate(terminalID, n, 0) }

// AckRate acknowledges n bytes of a terminal's output as rendered, with the
// rate (bytes/s) at which the page draws while it has output to draw (0:
// not measured), which sizes the daemon's window.
func (v *Viewer) AckRate(terminalID string, n int64, rate float64) error {
	return v.AckQueue(terminalID, n, rate, -1)
}

// AckQueue is AckRate with the bytes the page has received and not yet
// drawn (queued < 0: not known), by which the daemon keeps the page's queue
// near its target (docs/wire.md "Flow control").
func (v *Viewer) AckQueue(terminalID string, n int64, rate float64, queued int64) error {
	v.mu.Lock()
	sub := v.subs[terminalID]
	cnt := v.counts[terminalID]
	if ea := v.early[terminalID]; sub == nil && ea != nil {
		ea.hold(n, rate, queued)
	}
	v.mu.Unlock()
	if cnt != nil {
		cnt.ack(n)
	}
	if sub == nil {
		return nil // held for a subscription being made, or an ended terminal's stream from disk
	}
	return sub.AckQueue(n, rate, queued)
}

// earlyAcks holds what is acknowledged of a subscription's first bytes
// before Subscribe has returned: the daemon streams the replay as soon as
// it has the request, so OnData, and an ack made from it, can run before
// the viewer knows the subscription. Those acks used to be dropped; the
// daemon then counted the bytes in flight for good, and once they filled
// three quarters of the window it never read that terminal again (seen: a
// remote pane restored under a 512 KiB log never answered a command, its
// window started at 32 KiB). What is held is sent once the subscription is
// known, never more than the subscription has delivered (an ack for a
// dropped link's old subscription is not this one's).
type earlyAcks struct {
	// stored is set once takeEarly has run: nothing is held after it, so
	// OnData stops counting and pays one atomic load per chunk for the
	// rest of the subscription's life instead of an atomic add.
	stored    atomic.Bool
	delivered atomic.Int64
	n         int64 // guarded by Viewer.mu, as the rest
	rate      float64
	queued    int64
}

func (ea *earlyAcks) hold(n int64, rate float64, queued int64) {
	ea.n = min(ea.n+n, ea.delivered.Load())
	if rate > 0 {
		ea.rate, ea.queued = rate, queued
	}
}

// expectSub registers terminalID's subscription as being made; its OnData
// counts what it delivers (count, or wrap) until takeEarly.
func (v *Viewer) expectSub(terminalID string) *earlyAcks {
	ea := &earlyAcks{queued: -1}
	v.mu.Lock()
	v.early[terminalID] = ea
	v.mu.Unlock()
	return ea
}

// count adds n delivered bytes, while acks may still be held.
func (ea *earlyAcks) count(n int) {
	if !ea.stored.Load() {
		ea.delivered.Add(int64(n))
	}
}

// wrap returns onData counting what it delivers.
func (ea *earlyAcks) wrap(onData func([]byte)) func([]byte) {
	return func(p []byte) {
		ea.count(len(p))
		if onData != nil {
			onData(p)
		}
	}
}

// takeEarly ends expectSub's registration (v.mu held) and returns what was
// acknowledged meanwhile.
func (v *Viewer) takeEarly(terminalID string, ea *earlyAcks) heldAck {
	ea.stored.Store(true)
	if v.early[terminalID] == ea {
		delete(v.early, terminalID)
	}
	return heldAck{ea.n, ea.rate, ea.queued}
}

type heldAck struct {
	n      int64
	rate   float64
	queued int64
}

func (a heldAck) send(sub *ptyclient.Subscription) {
	if a.n > 0 {
		_ = sub.AckQueue(a.n, a.rate, a.queued)
	}
}

// Input sends keystrokes to a terminal, in call order.
func (v *Viewer) Input(ctx context.Context, terminalID string, p []byte) error {
	if host := v.h.hostOf(ctx, terminalID); host != "" {
		c, err := v.remoteInputClient(ctx, terminalID, host)
		if err != nil {
			return err
		}
		return c.Input(terminalID, p)
	}
	c, err := v.client(ctx)
	if err != nil {
		return err
	}
	return c.Input(terminalID, p)
}

// Detach stops streaming a terminal.
func (v *Viewer) Detach(ctx context.Context, terminalID string) error {
	v.mu.Lock()
	sub := v.subs[terminalID]
	delete(v.subs, terminalID)
	delete(v.counts, terminalID)
	if rs := v.rsubs[terminalID]; rs != nil {
		rs.detached = true
		delete(v.rsubs, terminalID)
		if !isReady(rs.ready) {
			close(rs.ready)
		}
	}
	v.mu.Unlock()
	if sub == nil {
		return nil
	}
	err := sub.Unsubscribe(ctx)
	if errors.Is(err, ptyclient.ErrClosed) {
		return nil
	}
	return err
}

// Close ends every stream of this viewer.
func (v *Viewer) Close() {
	v.h.removeViewer(v)
	v.cancel()
	v.mu.Lock()
	c := v.conn
	v.conn = nil
	v.subs = map[string]*ptyclient.Subscription{}
	rcs := v.rconns
	v.rconns = map[string]*ptyclient.Client{}
	for _, rs := range v.rsubs {
		rs.detached = true
	}
	v.rsubs = map[string]*remoteStream{}
	v.early = map[string]*earlyAcks{}
	v.mu.Unlock()
	if c != nil {
		c.Close()
	}
	for _, rc := range rcs {
		rc.Close()
	}
}
