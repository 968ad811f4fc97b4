package web

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/coder/websocket"

	"github.com/reprise-dev/reprise/backend/host"
)

// Binary frame kinds (docs/wire.md).
const (
	kindOutput = 1
	kindInput  = 2
)

// maxMessage caps one outgoing binary message.
const maxMessage = 64 << 10

type request struct {
	ID     uint64          `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type response struct {
	ID     uint64 `json:"id"`
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

type eventMsg struct {
	Event string `json:"event"`
	Data  any    `json:"data"`
}

type outMsg struct {
	text   []byte // JSON, or nil for output
	handle uint32
	data   []byte
}

// attachment is one terminal streamed to this page under a handle. Output
// that arrives before the attach response is queued is held back, so the
// page always learns the handle before its first byte.
type attachment struct {
	handle     uint32
	terminalID string
	ready      bool
	held       [][]byte
}

// session is one WebSocket connection: one page.
type session struct {
	srv    *Server
	c      *websocket.Conn
	viewer *host.Viewer
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	reqs   chan request

	mu         sync.Mutex // guards the fields below
	cond       *sync.Cond
	queue      []outMsg
	closed     bool
	nextHandle uint32
	byHandle   map[uint32]*attachment
	byTerminal map[string]*attachment
}

func newSession(s *Server, c *websocket.Conn) *session {
	ss := &session{
		srv: s, c: c, viewer: s.host.NewViewer(), log: s.log,
		reqs: make(chan request, 256), byHandle: map[uint32]*attachment{}, byTerminal: map[string]*attachment{},
	}
	ss.cond = sync.NewCond(&ss.mu)
	return ss
}

func (s *session) run(parent context.Context) {
	s.ctx, s.cancel = context.WithCancel(context.Background())
	defer s.cancel()
	events := s.srv.host.Subscribe()
	defer s.srv.host.Unsubscribe(events)
	defer s.viewer.Close()

	go s.writeLoop()
	go s.worker()
	go func() {
		for e := range events {
			s.sendJSON(eventMsg{Event: e.Kind, Data: e.Data})
		}
		if s.ctx.Err() != nil {
			return // the page went away
		}
		// Closed under us: this page fell too far behind. Drop it; it
		// reconnects and reloads the whole state.
		s.log.Warn("page fell behind on events; closing its connection")
		s.c.Close(websocket.StatusTryAgainLater, "events overflowed; reconnect")
	}()
	err := s.readLoop()
	s.cancel()
	s.mu.Lock()
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	close(s.reqs)
	if websocket.CloseStatus(err) == -1 && !errors.Is(err, context.Canceled) {
		s.log.Debug("websocket ended", "err", err)
	}
}

func (s *session) readLoop() error {
	for {
		typ, data, err := s.c.Read(s.ctx)
		if err != nil {
			return err
		}
		if typ == websocket.MessageBinary {
			s.handleBinary(data)
			continue
		}
		var req request
		if err := json.Unmarshal(data, &req); err != nil || req.Method == "" {
			s.log.Warn("malformed message from page", "err", err, "bytes", len(data))
			continue
		}
		if req.Method == "ack" { // frequent and cheap: handled inline
			var p struct {
				Handle uint32 `json:"handle"`
				Bytes  int64  `json:"bytes"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				s.ack(p.Handle, p.Bytes)
			}
			continue
		}
		s.reqs <- req
	}
}

func (s *session) handleBinary(data []byte) {
	if len(data) < 5 || data[0] != kindInput {
		s.log.Warn("malformed binary frame from page", "bytes", len(data))
		return
	}
	h := binary.BigEndian.Uint32(data[1:5])
	s.mu.Lock()
	a := s.byHandle[h]
	s.mu.Unlock()
	if a == nil {
		return
	}
	if err := s.viewer.Input(s.ctx, a.terminalID, data[5:]); err != nil {
		s.log.Debug("input not delivered", "terminal", a.terminalID, "err", err)
	}
}

func (s *session) ack(handle uint32, n int64) {
	s.mu.Lock()
	a := s.byHandle[handle]
	s.mu.Unlock()
	if a != nil {
		_ = s.viewer.Ack(a.terminalID, n)
	}
}

// worker runs requests one at a time, in arrival order.
func (s *session) worker() {
	for req := range s.reqs {
		func() {
			defer func() {
				if r := recover(); r != nil {
					s.log.Error("request handler panicked", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
					s.reply(req.ID, nil, errors.New("internal error"))
				}
			}()
			res, selfReply, err := s.dispatch(req)
			if selfReply && err == nil {
				return // attach replies itself, before releasing held output
			}
			s.reply(req.ID, res, err)
		}()
	}
}

func (s *session) reply(id uint64, res any, err error) {
	if id == 0 {
		return
	}
	r := response{ID: id, Result: res}
	if err != nil {
		r.Result, r.Error = nil, err.Error()
	} else if res == nil {
		r.Result = struct{}{}
	}
	s.sendJSON(r)
}

func (s *session) sendJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encode message", "err", err)
		return
	}
	s.mu.Lock()
	s.enqueueLocked(outMsg{text: b})
	s.mu.Unlock()
}

func (s *session) enqueueLocked(m outMsg) {
	if s.closed {
		return
	}
	s.queue = append(s.queue, m)
	s.cond.Signal()
}

// writeLoop sends queued messages. Output for the same handle that queued
// up while a write was in flight is merged (up to 64 KiB): batching with no
// timer, so an echo goes out at once and a flood goes out in big messages.
func (s *session) writeLoop() {
	defer s.cancel()
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closed {
			s.cond.Wait()
		}
		if s.closed {
			s.mu.Unlock()
			return
		}
		q := s.queue
		s.queue = nil
		s.mu.Unlock()
		for i := 0; i < len(q); i++ {
			m := q[i]
			if m.text != nil {
				if err := s.c.Write(s.ctx, websocket.MessageText, m.text); err != nil {
					return
				}
				continue
			}
			buf := make([]byte, 5, 5+len(m.data))
			buf[0] = kindOutput
			binary.BigEndian.PutUint32(buf[1:5], m.handle)
			buf = append(buf, m.data...)
			for i+1 < len(q) && q[i+1].text == nil && q[i+1].handle == m.handle && len(buf)+len(q[i+1].data) <= maxMessage+5 {
				i++
				buf = append(buf, q[i].data...)
			}
			if err := s.c.Write(s.ctx, websocket.MessageBinary, buf); err != nil {
				return
			}
		}
	}
}

func (s *session) deliver(a *attachment, p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !a.ready {
		a.held = append(a.held, p)
		return
	}
	s.enqueueDataLocked(a, p)
}

func (s *session) enqueueDataLocked(a *attachment, p []byte) {
	for len(p) > 0 {
		n := min(len(p), maxMessage)
		s.enqueueLocked(outMsg{handle: a.handle, data: p[:n]})
		p = p[n:]
	}
}

func decode[T any](raw json.RawMessage) (T, error) {
	var v T
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("bad params: %w", err)
	}
	return v, nil
}

// dispatch runs one request by the method table (methods.go).
func (s *session) dispatch(req request) (res any, selfReply bool, err error) {
	m := methodByName[req.Method]
	if m == nil {
		return nil, false, fmt.Errorf("unknown method %q", req.Method)
	}
	res, err = m.call(s.ctx, call{s, req.ID}, req.Params)
	return res, m.selfReply, err
}

func (s *session) detach(ctx context.Context, handle uint32) error {
	s.mu.Lock()
	a := s.byHandle[handle]
	if a != nil {
		delete(s.byHandle, a.handle)
		delete(s.byTerminal, a.terminalID)
	}
	s.mu.Unlock()
	if a == nil {
		return nil
	}
	return s.viewer.Detach(ctx, a.terminalID)
}

// attach streams a terminal to the page and queues the response itself
// (id), before the output it held back meanwhile.
func (s *session) attach(ctx context.Context, id uint64, p AttachParams) error {
	s.mu.Lock()
	if _, dup := s.byTerminal[p.TerminalID]; dup {
		s.mu.Unlock()
		return fmt.Errorf("terminal %s is already attached", p.TerminalID)
	}
	s.nextHandle++
	a := &attachment{handle: s.nextHandle, terminalID: p.TerminalID}
	s.byHandle[a.handle] = a
	s.byTerminal[a.terminalID] = a
	s.mu.Unlock()

	t, replay, err := s.viewer.Attach(ctx, p.TerminalID, p.Cols, p.Rows, host.Stream{
		OnData:      func(b []byte) { s.deliver(a, b) },
		ReplayLines: max(p.Lines, 0),
	})
	if err != nil {
		s.mu.Lock()
		delete(s.byHandle, a.handle)
		delete(s.byTerminal, a.terminalID)
		s.mu.Unlock()
		return err
	}
	b, err := json.Marshal(response{ID: id, Result: AttachResult{Handle: a.handle, Terminal: t, ReplayBytes: replay}})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.enqueueLocked(outMsg{text: b})
	for _, p := range a.held {
		s.enqueueDataLocked(a, p)
	}
	a.held, a.ready = nil, true
	s.mu.Unlock()
	return nil
}
