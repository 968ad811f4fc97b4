package host

import (
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
}

type streamCount struct {
	sent, acked, lastAck atomic.Int64
}

var viewerSeq atomic.Int64

func (c *streamCount) wrap(onData func([]byte)) func([]byte) {
	return func(p []byte) {
		c.sent.Add(int64(len(p)))
		if onData != nil {
			onData(p)
		}
	}
}

func (c *streamCount) ack(n int64) {
	c.acked.Add(n)
	c.lastAck.Store(time.Now().UnixMilli())
}

// track starts counting a new attachment of terminalID.
func (v *Viewer) track(terminalID string) *streamCount {
	c := &streamCount{}
	v.mu.Lock()
	v.counts[terminalID] = c
	v.mu.Unlock()
	return c
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
			out = append(out, StreamStat{Viewer: v.id, TerminalID: tid, Sent: c.sent.Load(), Acked: c.acked.Load(), LastAckUnixMs: c.lastAck.Load()})
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
