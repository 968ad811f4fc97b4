package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The page's "debug.marks" notification (its own start phases) is kept per connection for
// GET /v1/debug/marks, unanswered; one too large or not JSON is dropped, and the session goes on.
func TestDebugMarksKeptPerConnection(t *testing.T) {
	s, h, _ := startServerHost(t)
	p := connect(t, s, "")
	notify := func(raw string) {
		t.Helper()
		if err := p.c.Write(context.Background(), websocket.MessageText, []byte(`{"method":"debug.marks","params":`+raw+`}`)); err != nil {
			t.Fatal(err)
		}
	}
	notify(`{"marks":{"main":1},"painted":2}`)
	notify(`{"pad":"` + strings.Repeat("x", 70<<10) + `"}`) // over 64 KiB: dropped
	// Requests are answered after the notifications (one read loop): the session is alive.
	if err := p.call("hello", nil, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := h.StartMarks()
		if len(got) == 1 {
			var m struct {
				Painted int `json:"painted"`
			}
			if err := json.Unmarshal(got[0].Marks, &m); err != nil || m.Painted != 2 {
				t.Fatalf("marks = %s (%v), want the first report", got[0].Marks, err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("StartMarks = %+v, want one report", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
