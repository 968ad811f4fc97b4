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
	"time"

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

// What may wait in one page's send queue. JSON (events and responses) has
// no flow control of its own, so a page that stops reading would grow it
// without end; past these the page is disconnected with overflowReason and
// its queue dropped (it reconnects and reloads the whole state). Output is
// already bounded by the daemon's flow control (per attachment: the replay,
// at most 1 MiB, plus a window of at most 1 MiB unacknowledged);
// maxQueuedOutput is only the backstop.
const (
	maxQueuedMessages = 4096
	maxQueuedBytes    = 8 << 20
	maxQueuedOutput   = 128 << 20
	overflowReason    = "events overflowed; reconnect"
)

// queueStats is what the server's tests read: the largest queue any page
// had, and how many pages overflowed.
type queueStats struct {
	peakMsgs, peakBytes int
	overflows           int
}

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
	qMsgs      int // JSON messages in queue
	qBytes     int // their bytes
	qOutput    int // output bytes in queue
	peak       queueStats
	closed     bool
	overflowed bool
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
	go s.keepalive()
	go func() {
		for e := range events {
			s.sendJSON(eventMsg{Event: e.Kind, Data: e.Data})
		}
		if s.ctx.Err() != nil {
			return // the page went away
		}
		// Closed under us: this page fell too far behind the host.
		s.mu.Lock()
		s.overflowLocked("host event buffer")
		s.mu.Unlock()
	}()
	err := s.readLoop()
	s.cancel()
	s.mu.Lock()
	s.closed = true
	s.queue = nil
	s.cond.Broadcast()
	s.foldStatsLocked()
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
				Handle uint32  `json:"handle"`
				Bytes  int64   `json:"bytes"`
				Rate   float64 `json:"rate"` // bytes/s the page draws while busy; 0: not measured
				// Bytes the page has received and not yet drawn; absent: not reported.
				Queued *int64 `json:"queued"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				q := int64(-1)
				if p.Queued != nil && *p.Queued >= 0 {
					q = *p.Queued
				}
				s.ack(p.Handle, p.Bytes, p.Rate, q)
			}
			continue
		}
		if req.Method == "debug.marks" { // the page's own start phases, for benchmarks: kept, never answered
			s.viewer.SetStartMarks(req.Params)
			continue
		}
		if req.Method == "askpass.answer" || req.Method == "askpass.pending" {
			// Answers what a queued request may be waiting for (a new tab
			// on a host whose ssh asks for a passphrase): behind it in the
			// queue it would wait for itself. Both are quick and never block.
			res, _, err := s.dispatch(req)
			s.reply(req.ID, res, err)
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
		s.inputLost(h, "", len(data)-5, "that terminal is no longer attached")
		return
	}
	if err := s.viewer.Input(s.ctx, a.terminalID, data[5:]); err != nil {
		s.inputLost(h, a.terminalID, len(data)-5, err.Error())
	}
}

// InputLost is the inputLost event: keys the page sent that never reached
// the terminal (its handle was detached, or the daemon was gone in the
// instant before the page learned of it). The page says so in the pane and
// refuses the rest of the line, so no cut command runs; nothing typed is
// dropped without a word.
type InputLost struct {
	Handle     uint32 `json:"handle"`
	TerminalID string `json:"terminalId,omitempty"`
	Bytes      int    `json:"bytes"`
	Reason     string `json:"reason"`
}

func (s *session) inputLost(handle uint32, terminalID string, n int, reason string) {
	s.log.Warn("input not delivered", "handle", handle, "terminal", terminalID, "bytes", n, "err", reason)
	s.sendJSON(eventMsg{Event: "inputLost", Data: InputLost{Handle: handle, TerminalID: terminalID, Bytes: n, Reason: reason}})
}

func (s *session) ack(handle uint32, n int64, rate float64, queued int64) {
	s.mu.Lock()
	a := s.byHandle[handle]
	s.mu.Unlock()
	if a != nil {
		_ = s.viewer.AckQueue(a.terminalID, n, rate, queued)
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
	if s.closed || s.overflowed {
		return
	}
	if m.text != nil {
		if s.qMsgs+1 > maxQueuedMessages || s.qBytes+len(m.text) > maxQueuedBytes {
			s.overflowLocked("messages")
			return
		}
		s.qMsgs++
		s.qBytes += len(m.text)
		s.peak.peakMsgs = max(s.peak.peakMsgs, s.qMsgs)
		s.peak.peakBytes = max(s.peak.peakBytes, s.qBytes)
	} else {
		if s.qOutput+len(m.data) > maxQueuedOutput {
			s.overflowLocked("output")
			return
		}
		s.qOutput += len(m.data)
	}
	s.queue = append(s.queue, m)
	s.cond.Signal()
}

// overflowLocked drops the page's queue and disconnects it with
// overflowReason. The close frame goes out after the write in flight, if
// the page reads it within the library's 5 s; otherwise the connection is
// simply closed. Either way the memory is freed now.
func (s *session) overflowLocked(what string) {
	if s.overflowed || s.closed {
		return
	}
	s.overflowed = true
	s.log.Warn("page is not reading; closing its connection", "queue", what, "messages", s.qMsgs, "bytes", s.qBytes, "output_bytes", s.qOutput)
	s.queue, s.qMsgs, s.qBytes, s.qOutput = nil, 0, 0, 0
	s.peak.overflows++
	s.foldStatsLocked()
	s.cond.Broadcast()
	go s.c.Close(websocket.StatusTryAgainLater, overflowReason)
}

// foldStatsLocked adds this page's queue stats to the server's.
func (s *session) foldStatsLocked() {
	s.srv.statsMu.Lock()
	st := &s.srv.stats
	st.peakMsgs = max(st.peakMsgs, s.peak.peakMsgs)
	st.peakBytes = max(st.peakBytes, s.peak.peakBytes)
	st.overflows += s.peak.overflows
	s.srv.statsMu.Unlock()
	s.peak.overflows = 0
}

func (s *Server) queueStats() queueStats {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return s.stats
}

// keepalive pings the page: a peer that vanished without a FIN (a killed
// machine, a suspended laptop, a frozen client) is noticed within
// PingInterval+PingTimeout and its descriptor released. Browsers answer
// pings without the page's script.
func (s *session) keepalive() {
	t := time.NewTicker(s.srv.limits.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(s.ctx, s.srv.limits.PingTimeout)
		err := s.c.Ping(ctx)
		cancel()
		if err != nil {
			if s.ctx.Err() == nil {
				s.log.Info("page stopped answering pings; closing its connection", "err", err)
			}
			s.c.CloseNow()
			return
		}
	}
}

// writeLoop sends queued messages. Output for the same handle that queued
// up while a write was in flight is merged (up to 64 KiB): batching with no
// timer, so an echo goes out at once and a flood goes out in big messages.
//
// A message leaves the queue (and its count) only as it is written, so the
// queue's bounds cover everything not yet handed to the socket.
func (s *session) writeLoop() {
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closed && !s.overflowed {
			s.cond.Wait()
		}
		if s.overflowed {
			// overflowLocked's Close owns the socket now; cancelling the
			// context would cut its close frame off.
			s.mu.Unlock()
			return
		}
		if s.closed {
			s.mu.Unlock()
			s.cancel()
			return
		}
		m := s.queue[0]
		s.queue[0] = outMsg{}
		s.queue = s.queue[1:]
		if m.text != nil {
			s.qMsgs--
			s.qBytes -= len(m.text)
			s.mu.Unlock()
			if err := s.c.Write(s.ctx, websocket.MessageText, m.text); err != nil {
				s.cancel()
				return
			}
			continue
		}
		s.qOutput -= len(m.data)
		buf := make([]byte, 5, 5+len(m.data))
		buf[0] = kindOutput
		binary.BigEndian.PutUint32(buf[1:5], m.handle)
		buf = append(buf, m.data...)
		for len(s.queue) > 0 && s.queue[0].text == nil && s.queue[0].handle == m.handle && len(buf)+len(s.queue[0].data) <= maxMessage+5 {
			buf = append(buf, s.queue[0].data...)
			s.qOutput -= len(s.queue[0].data)
			s.queue[0] = outMsg{}
			s.queue = s.queue[1:]
		}
		s.mu.Unlock()
		if err := s.c.Write(s.ctx, websocket.MessageBinary, buf); err != nil {
			s.cancel()
			return
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
