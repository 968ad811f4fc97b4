package ptyd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reprise-dev/reprise/backend/ptyproto"
)

// client is one connection. Responses and events go through ctrl; pty
// output goes through each subscription's pending buffer, so a client that
// stops reading holds back only the sessions it subscribed to.
type client struct {
	srv  *Server
	conn net.Conn
	br   *bufio.Reader // reads conn (nil: unbuffered)
	name string
	// binary: the client's hello listed ptyproto.FeatureBinary, so output
	// goes to it in binary frames.
	binary bool

	mu     sync.Mutex // guards the fields below
	cond   *sync.Cond
	ctrl   []ctrlFrame
	ready  []*sub
	inList map[*sub]bool // subs already queued in ready
	subs   map[*sub]bool
	closed bool
	facts  int // facts requests in flight

	// rtt is the round-trip time of the client's link in microseconds, as
	// it reported it (ptyproto TLink); 0 for a local socket.
	rtt atomic.Int64
}

// linkRTT is the client's link round-trip time, capped at MaxLinkRTT. A
// nil client (tests of the window alone) is local.
func (c *client) linkRTT(cfg *Config) time.Duration {
	if c == nil {
		return 0
	}
	return min(time.Duration(c.rtt.Load())*time.Microsecond, cfg.MaxLinkRTT)
}

type ctrlFrame struct {
	h       *ptyproto.Header
	payload []byte
}

func newClient(s *Server, conn net.Conn, name string) *client {
	c := &client{srv: s, conn: conn, name: name, inList: map[*sub]bool{}, subs: map[*sub]bool{}}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *client) sendCtrl(h *ptyproto.Header, payload []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.ctrl = append(c.ctrl, ctrlFrame{h, payload})
	c.cond.Signal()
}

func (c *client) markReady(b *sub) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.inList[b] {
		return
	}
	c.inList[b] = true
	c.ready = append(c.ready, b)
	c.cond.Signal()
}

func (c *client) addSub(b *sub) {
	c.mu.Lock()
	c.subs[b] = true
	c.mu.Unlock()
}

func (c *client) removeSub(b *sub) {
	c.mu.Lock()
	delete(c.subs, b)
	c.mu.Unlock()
}

// writeLoop sends control frames first, then output round-robin across
// ready subscriptions, at most MaxChunk per frame. Output that piles up
// while a write is in flight goes out together in the next frame: batching
// that adds no delay.
func (c *client) writeLoop() {
	for {
		c.mu.Lock()
		for len(c.ctrl) == 0 && len(c.ready) == 0 && !c.closed {
			c.cond.Wait()
		}
		if c.closed {
			c.mu.Unlock()
			return
		}
		ctrl := c.ctrl
		c.ctrl = nil
		ready := c.ready
		c.ready = nil
		for _, b := range ready {
			delete(c.inList, b)
		}
		c.mu.Unlock()

		for _, f := range ctrl {
			if err := ptyproto.WriteFrame(c.conn, f.h, f.payload); err != nil {
				c.conn.Close()
				return
			}
		}
		for _, b := range ready {
			chunk, exit, more := b.s.take(b, ptyproto.MaxChunk)
			if len(chunk) > 0 {
				var err error
				if c.binary {
					err = ptyproto.WriteOutput(c.conn, b.s.id, chunk)
				} else {
					err = ptyproto.WriteFrame(c.conn, &ptyproto.Header{Type: ptyproto.TOutput, Session: b.s.id}, chunk)
				}
				if err != nil {
					c.conn.Close()
					return
				}
			}
			if exit != nil {
				if err := ptyproto.WriteFrame(c.conn, &ptyproto.Header{Type: ptyproto.TExit, Session: b.s.id, Info: exit}, nil); err != nil {
					c.conn.Close()
					return
				}
			}
			if more {
				c.markReady(b)
			}
		}
	}
}

func (c *client) readLoop() error {
	var r io.Reader = c.conn
	if c.br != nil {
		r = c.br
	}
	for {
		f, err := ptyproto.ReadFrame(r)
		if err != nil {
			return err
		}
		c.handle(f)
	}
}

func (c *client) reply(req uint64, h *ptyproto.Header, err error) {
	if err != nil {
		h = &ptyproto.Header{Type: ptyproto.TError, Error: err.Error()}
	} else if h == nil {
		h = &ptyproto.Header{Type: ptyproto.TOK}
	}
	h.Req = req
	c.sendCtrl(h, nil)
}

func (c *client) handle(f *ptyproto.Frame) {
	h := &f.Header
	s := c.srv
	switch h.Type {
	case ptyproto.TPing:
		c.reply(h.Req, nil, nil)
	case ptyproto.TOpen:
		info, err := s.open(h, f.Payload)
		c.reply(h.Req, &ptyproto.Header{Type: ptyproto.TOpened, Session: h.Session, Info: &info}, err)
	case ptyproto.TList:
		c.reply(h.Req, &ptyproto.Header{Type: ptyproto.TList, Sessions: s.list()}, nil)
	case ptyproto.TCwd:
		cwds, err := s.cwds(h.Session)
		c.reply(h.Req, &ptyproto.Header{Type: ptyproto.TCwd, Cwds: cwds}, err)
	case ptyproto.TFacts:
		c.mu.Lock()
		busy := c.facts >= maxFactsInFlight
		if !busy {
			c.facts++
		}
		c.mu.Unlock()
		if busy {
			c.reply(h.Req, nil, fmt.Errorf("facts: %d requests already running on this connection", maxFactsInFlight))
			return
		}
		req, login, paths, globs, contains := h.Req, h.Login, h.Paths, h.Globs, h.Contains
		go func() {
			f, err := s.facts(context.Background(), login, paths, globs, contains, func() {
				c.mu.Lock()
				c.facts--
				c.mu.Unlock()
			})
			c.reply(req, &ptyproto.Header{Type: ptyproto.TFacts, Facts: f}, err)
		}()
	case ptyproto.TInput:
		// Input has no reply: keystrokes are fire-and-forget and ordered by
		// the connection. Input for a vanished session is dropped.
		if ss, err := s.session(h.Session); err == nil {
			if err := ss.input(f.Payload); err != nil {
				s.log.Debug("input dropped", "session", h.Session, "err", err)
			}
		}
	case ptyproto.TAck:
		if ss, err := s.session(h.Session); err == nil {
			q := int64(-1)
			if h.Queued != nil && *h.Queued >= 0 {
				q = *h.Queued
			}
			ss.ack(c, h.Bytes, float64(h.Rate), q)
		}
	case ptyproto.TLogTail:
		r, tail, err := s.logTail(h.Session, h.Bytes)
		if err != nil {
			c.reply(h.Req, nil, err)
			return
		}
		r.Req = h.Req
		c.sendCtrl(r, tail)
	case ptyproto.TLogRemove:
		c.reply(h.Req, nil, s.logRemove(h.Session))
	case ptyproto.TLink:
		// Taken at the next window update of each subscription (the next
		// ack while the reader waits on it).
		if h.RTT >= 0 {
			c.rtt.Store(h.RTT)
		}
	default:
		ss, err := s.session(h.Session)
		if err != nil {
			c.reply(h.Req, nil, fmt.Errorf("%s: %w", h.Type, err))
			return
		}
		switch h.Type {
		case ptyproto.TResize:
			c.reply(h.Req, nil, ss.resize(h.Cols, h.Rows))
		case ptyproto.TSignal:
			c.reply(h.Req, nil, ss.signal(h.Signal))
		case ptyproto.TClose:
			ss.close(h.KeepLog)
			c.reply(h.Req, nil, nil)
		case ptyproto.TCollect:
			ss.mu.Lock()
			exited := ss.exited
			ss.mu.Unlock()
			if !exited {
				c.reply(h.Req, nil, errors.New("collect: session is still running"))
				return
			}
			s.forget(ss.id)
			c.reply(h.Req, nil, nil)
		case ptyproto.TSubscribe:
			n, off, err := ss.subscribe(c, h.Lines, h.Resume, h.Offset)
			c.reply(h.Req, &ptyproto.Header{Type: ptyproto.TSubscribed, Session: ss.id, Replay: n, Offset: off}, err)
		case ptyproto.TUnsubscribe:
			ss.unsubscribe(c)
			c.reply(h.Req, nil, nil)
		default:
			c.reply(h.Req, nil, fmt.Errorf("unknown frame type %q", h.Type))
		}
	}
}

// shutdown drops the client's subscriptions so no session waits on it.
func (c *client) shutdown() {
	c.mu.Lock()
	c.closed = true
	subs := make([]*sub, 0, len(c.subs))
	for b := range c.subs {
		subs = append(subs, b)
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	for _, b := range subs {
		b.s.unsubscribe(c)
	}
	c.conn.Close()
}
