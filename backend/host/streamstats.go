package host

import (
	"encoding/json"
	"sort"
	"sync/atomic"
	"time"
)

// StreamStat is one frontend connection's stream of one terminal: bytes
// handed to the connection and bytes it acknowledged as rendered since the
// attach. For measuring (GET /v1/debug/streams, opt-in), not for the UI.
type StreamStat struct {
	Viewer     int64  `json:"viewer"` // one per frontend connection, in creation order
	TerminalID string `json:"terminalId"`
	Sent       int64  `json:"sent"`
	Acked      int64  `json:"acked"`
	// LastAckUnixMs is when the last acknowledgement arrived (0: none yet).
	LastAckUnixMs int64 `json:"lastAckUnixMs"`
	// Where a start-up's time goes: when the connection's viewer was made,
	// when this attach began and when its first byte went to the connection.
	ViewerUnixMs    int64 `json:"viewerUnixMs"`
	AttachUnixMs    int64 `json:"attachUnixMs"`
	FirstSentUnixMs int64 `json:"firstSentUnixMs"`
	// Replay is this attach's replay size; DrawnUnixMs is when the page had
	// acknowledged all of it (0: not yet). A page attaches a restored pane
	// twice (its screen, then everything): Attaches counts them and
	// FirstDrawnUnixMs is the first attach's DrawnUnixMs.
	Replay           int64 `json:"replay"`
	DrawnUnixMs      int64 `json:"drawnUnixMs"`
	Attaches         int   `json:"attaches"`
	FirstDrawnUnixMs int64 `json:"firstDrawnUnixMs"`
	// FirstAttachUnixMs is when the first attach began (the host had the request).
	FirstAttachUnixMs int64 `json:"firstAttachUnixMs"`
}

type streamCount struct {
	sent, acked, lastAck, firstSent atomic.Int64
	replay, drawn                   atomic.Int64 // replay -1: not known yet
	attachAt                        int64
	attaches                        int
	total                           int          // on an origin: attaches so far (guarded by Viewer.mu)
	origin                          *streamCount // the first attach of this terminal on this viewer
}

// setReplay records the replay's size once the attach knows it.
func (c *streamCount) setReplay(n int64) {
	c.replay.Store(n)
	if c.acked.Load() >= n {
		c.drawn.CompareAndSwap(0, time.Now().UnixMilli())
	}
}

func (c *streamCount) firstDrawn() int64 { return c.origin.drawn.Load() }

var viewerSeq atomic.Int64

func (c *streamCount) wrap(onData func([]byte)) func([]byte) {
	return func(p []byte) {
		if c.sent.Add(int64(len(p))) == int64(len(p)) && len(p) > 0 {
			c.firstSent.Store(time.Now().UnixMilli())
		}
		if onData != nil {
			onData(p)
		}
	}
}

func (c *streamCount) ack(n int64) {
	a := c.acked.Add(n)
	now := time.Now().UnixMilli()
	c.lastAck.Store(now)
	if r := c.replay.Load(); r >= 0 && a >= r {
		c.drawn.CompareAndSwap(0, now)
	}
}

// track starts counting a new attachment of terminalID.
func (v *Viewer) track(terminalID string) *streamCount {
	c := &streamCount{attachAt: time.Now().UnixMilli(), attaches: 1}
	c.replay.Store(-1)
	v.mu.Lock()
	// The first attach stays known across detaches (v.firsts: one per terminal shown).
	if o := v.firsts[terminalID]; o != nil {
		o.total++
		c.origin, c.attaches = o, o.total
	} else {
		c.origin, c.total = c, 1
		v.firsts[terminalID] = c
	}
	v.counts[terminalID] = c
	v.mu.Unlock()
	return c
}

// StartMarks is what a page reported of its own start (the "debug.marks"
// notification, docs/wire.md): its phases in unix ms, as the page measured
// them. For measuring (GET /v1/debug/marks, opt-in), not for the UI.
type StartMarks struct {
	Viewer int64           `json:"viewer"`
	Marks  json.RawMessage `json:"marks"`
}

// maxMarks bounds what one page may leave here.
const maxMarks = 64 << 10

// SetStartMarks keeps the page's report of its start (the last one, at most
// maxMarks bytes; a larger one is dropped).
func (v *Viewer) SetStartMarks(raw json.RawMessage) {
	if len(raw) > maxMarks || !json.Valid(raw) {
		return
	}
	v.mu.Lock()
	v.marks = append(json.RawMessage(nil), raw...)
	v.mu.Unlock()
}

// StartMarks lists the start reports of every open viewer that sent one, by viewer.
func (h *Host) StartMarks() []StartMarks {
	h.viewersMu.Lock()
	vs := make([]*Viewer, 0, len(h.viewers))
	for v := range h.viewers {
		vs = append(vs, v)
	}
	h.viewersMu.Unlock()
	out := []StartMarks{}
	for _, v := range vs {
		v.mu.Lock()
		if v.marks != nil {
			out = append(out, StartMarks{Viewer: v.id, Marks: v.marks})
		}
		v.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Viewer < out[j].Viewer })
	return out
}

func (h *Host) addViewer(v *Viewer) {
	h.viewersMu.Lock()
	defer h.viewersMu.Unlock()
	if h.viewers == nil {
		h.viewers = map[*Viewer]struct{}{}
	}
	h.viewers[v] = struct{}{}
}

func (h *Host) removeViewer(v *Viewer) {
	h.viewersMu.Lock()
	defer h.viewersMu.Unlock()
	delete(h.viewers, v)
}

// StreamStats lists the streams of every open viewer, by viewer then terminal.
func (h *Host) StreamStats() []StreamStat {
	h.viewersMu.Lock()
	vs := make([]*Viewer, 0, len(h.viewers))
	for v := range h.viewers {
		vs = append(vs, v)
	}
	h.viewersMu.Unlock()
	out := []StreamStat{}
	for _, v := range vs {
		v.mu.Lock()
		for tid, c := range v.counts {
			out = append(out, StreamStat{Viewer: v.id, TerminalID: tid, Sent: c.sent.Load(), Acked: c.acked.Load(), LastAckUnixMs: c.lastAck.Load(),
				ViewerUnixMs: v.created, AttachUnixMs: c.attachAt, FirstSentUnixMs: c.firstSent.Load(),
				Replay: c.replay.Load(), DrawnUnixMs: c.drawn.Load(), Attaches: c.attaches, FirstDrawnUnixMs: c.firstDrawn(), FirstAttachUnixMs: c.origin.attachAt})
		}
		v.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Viewer != out[j].Viewer {
			return out[i].Viewer < out[j].Viewer
		}
		return out[i].TerminalID < out[j].TerminalID
	})
	return out
}
