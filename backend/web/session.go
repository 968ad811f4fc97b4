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

	"github.com/reprise-dev/reprise/backend/api"
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
	if err != nil && websocket.CloseStatus(err) == -1 && !errors.Is(err, context.Canceled) {
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
			res, err := s.dispatch(req)
			if req.Method == "attach" && err == nil {
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

func (s *session) dispatch(req request) (any, error) {
	ctx := s.ctx
	h := s.srv.host
	switch req.Method {
	case "hello":
		l, err := h.Layout(ctx)
		if err != nil {
			return nil, err
		}
		ts, err := h.Terminals(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]any{"version": api.Version, "layout": l, "terminals": ts, "daemon": h.DaemonStatus()}, nil
	case "attach":
		return s.attach(req)
	case "detach":
		p, err := decode[struct {
			Handle uint32 `json:"handle"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		a := s.byHandle[p.Handle]
		if a != nil {
			delete(s.byHandle, a.handle)
			delete(s.byTerminal, a.terminalID)
		}
		s.mu.Unlock()
		if a == nil {
			return nil, nil
		}
		return nil, s.viewer.Detach(ctx, a.terminalID)
	case "resize":
		p, err := decode[struct {
			TerminalID string `json:"terminalId"`
			Cols, Rows uint16
		}](req.Params)
		if err != nil {
			return nil, err
		}
		return nil, h.Resize(ctx, p.TerminalID, p.Cols, p.Rows)
	case "terminals.list":
		return h.Terminals(ctx)
	case "terminals.foreground":
		p, err := decode[struct {
			TerminalID string `json:"terminalId"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		busy, cmd, err := h.Foreground(ctx, p.TerminalID)
		return map[string]any{"busy": busy, "command": cmd}, err
	case "layout.get":
		return h.Layout(ctx)
	case "layout.newTab":
		p, err := decode[struct {
			Cwd string `json:"cwd"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		return h.NewTab(ctx, p.Cwd)
	case "layout.split":
		p, err := decode[struct {
			PaneID    string `json:"paneId"`
			Direction string `json:"direction"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		return h.Split(ctx, p.PaneID, p.Direction)
	case "layout.closePane", "layout.focus", "layout.restartPane":
		p, err := decode[struct {
			PaneID string `json:"paneId"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		switch req.Method {
		case "layout.closePane":
			return h.ClosePane(ctx, p.PaneID)
		case "layout.focus":
			return h.Focus(ctx, p.PaneID)
		default:
			return h.RestartPane(ctx, p.PaneID)
		}
	case "layout.closeTab", "layout.activateTab":
		p, err := decode[struct {
			TabID string `json:"tabId"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		if req.Method == "layout.closeTab" {
			return h.CloseTab(ctx, p.TabID)
		}
		return h.ActivateTab(ctx, p.TabID)
	case "layout.resize":
		p, err := decode[struct {
			SplitID string    `json:"splitId"`
			Sizes   []float64 `json:"sizes"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		return h.ResizeSplit(ctx, p.SplitID, p.Sizes)
	case "agents.list":
		return h.Agents(ctx)
	case "agents.save":
		a, err := decode[api.Agent](req.Params)
		if err != nil {
			return nil, err
		}
		return h.SaveAgent(ctx, a)
	case "agents.reset", "agents.delete", "agents.installHooks", "agents.removeHooks":
		p, err := decode[struct {
			ID string `json:"id"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		switch req.Method {
		case "agents.reset":
			return h.ResetAgent(ctx, p.ID)
		case "agents.delete":
			return nil, h.DeleteAgent(ctx, p.ID)
		case "agents.installHooks":
			return h.SetHooks(ctx, p.ID, true)
		default:
			return h.SetHooks(ctx, p.ID, false)
		}
	case "agents.run":
		p, err := decode[api.CreateAgentRequest](req.Params)
		if err != nil {
			return nil, err
		}
		return h.CreateAgent(ctx, p)
	case "bindings.list":
		p, err := decode[struct {
			Candidates bool `json:"candidates"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		return h.Bindings(ctx, p.Candidates)
	case "resume":
		p, err := decode[struct {
			TerminalID string `json:"terminalId"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		return h.Resume(ctx, p.TerminalID)
	case "sessions.list":
		p, err := decode[struct {
			All   bool   `json:"all"`
			Query string `json:"query"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		return h.Sessions(ctx, p.All, p.Query)
	case "restore.report":
		return h.LastRestore(), nil
	case "sessions.forget":
		p, err := decode[struct {
			AgentID   string `json:"agentId"`
			SessionID string `json:"sessionId"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		return nil, h.ForgetSession(ctx, p.AgentID, p.SessionID)
	case "settings.get":
		p, err := decode[struct {
			Key string `json:"key"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		v, err := h.Setting(ctx, p.Key)
		return map[string]string{"value": v}, err
	case "settings.set":
		p, err := decode[struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		}](req.Params)
		if err != nil {
			return nil, err
		}
		return nil, h.SetSetting(ctx, p.Key, p.Value)
	}
	return nil, fmt.Errorf("unknown method %q", req.Method)
}

func (s *session) attach(req request) (any, error) {
	p, err := decode[struct {
		TerminalID string `json:"terminalId"`
		Cols       uint16 `json:"cols"`
		Rows       uint16 `json:"rows"`
		Lines      int    `json:"lines"` // replay at most this many lines (the page's scrollback + rows); 0: all
	}](req.Params)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if _, dup := s.byTerminal[p.TerminalID]; dup {
		s.mu.Unlock()
		return nil, fmt.Errorf("terminal %s is already attached", p.TerminalID)
	}
	s.nextHandle++
	a := &attachment{handle: s.nextHandle, terminalID: p.TerminalID}
	s.byHandle[a.handle] = a
	s.byTerminal[a.terminalID] = a
	s.mu.Unlock()

	t, replay, err := s.viewer.Attach(s.ctx, p.TerminalID, p.Cols, p.Rows, host.Stream{
		OnData:      func(b []byte) { s.deliver(a, b) },
		ReplayLines: max(p.Lines, 0),
	})
	if err != nil {
		s.mu.Lock()
		delete(s.byHandle, a.handle)
		delete(s.byTerminal, a.terminalID)
		s.mu.Unlock()
		return nil, err
	}
	b, err := json.Marshal(response{ID: req.ID, Result: map[string]any{"handle": a.handle, "terminal": t, "replayBytes": replay}})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.enqueueLocked(outMsg{text: b})
	for _, p := range a.held {
		s.enqueueDataLocked(a, p)
	}
	a.held, a.ready = nil, true
	s.mu.Unlock()
	return nil, nil
}
