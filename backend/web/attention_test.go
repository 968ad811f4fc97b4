package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/backend/paths"
)

// runHook runs `reprise hook <agent> <event>` as an agent in the pane
// would: the real binary, the payload on stdin, the pane's environment.
func runHook(tb testing.TB, home paths.Home, tid, agent, event, payload string) {
	tb.Helper()
	cmd := exec.Command(reprise, "hook", agent, event)
	cmd.Env = []string{"REPRISE_TERMINAL_ID=" + tid, "REPRISE_HOME=" + home.Dir, "REPRISE_HOST_SOCKET=" + home.HostSocket(), "PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader(payload)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		tb.Fatalf("hook %s: %v, printed %q", event, err, out)
	}
}

// stateWatch collects, per terminal, the agentState of every binding event
// a page receives.
type stateWatch struct {
	ch chan string
}

func watchAgentState(p *page, tid string) *stateWatch {
	w := &stateWatch{ch: make(chan string, 64)}
	p.mu.Lock()
	p.onEvent = func(event string, data json.RawMessage) {
		if event != api.EventBinding {
			return
		}
		var b api.Binding
		if json.Unmarshal(data, &b) == nil && b.TerminalID == tid && b.AgentState != "" {
			w.ch <- b.AgentState
		}
	}
	p.mu.Unlock()
	return w
}

// next waits for the page to receive want.
func (w *stateWatch) next(tb testing.TB, want string) {
	tb.Helper()
	deadline := time.After(10 * time.Second)
	var seen []string
	for {
		select {
		case s := <-w.ch:
			if s == want {
				return
			}
			seen = append(seen, s)
		case <-deadline:
			tb.Fatalf("the page never got agentState %q (got %v)", want, seen)
		}
	}
}

// attentionRig is `reprise serve` in-process: the host, its local API (where
// hooks report, as in the app) and the web server, with a fake Claude in a
// pane and a page attached to it.
func attentionRig(tb testing.TB) (*page, paths.Home, string) {
	s, h, home := startServerHost(tb)
	a, err := localapi.Listen(h, home.HostSocket(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close(context.Background()) })
	ctx := context.Background()
	res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Cwd: home.Dir})
	if err != nil {
		tb.Fatal(err)
	}
	p := connect(tb, s, "")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := h.Binding(ctx, res.TerminalID); err == nil && b.SessionID != "" {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatal("the fake claude never reported its session")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return p, home, res.TerminalID
}

const (
	needsInputPayload = `{"session_id":"%s","hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`
	stopPayload       = `{"session_id":"%s","hook_event_name":"Stop"}`
)

// A hook's state reaches a page over the WebSocket, in order: a permission
// prompt → needs-input, the Stop → idle, as the pill shows them.
func TestHookStateReachesPage(t *testing.T) {
	p, home, tid := attentionRig(t)
	sid := sessionOf(t, p, tid)
	w := watchAgentState(p, tid)
	for i := 0; i < 3; i++ {
		runHook(t, home, tid, "claude", "Notification", fmt.Sprintf(needsInputPayload, sid))
		w.next(t, api.AgentNeedsInput)
		runHook(t, home, tid, "claude", "Stop", fmt.Sprintf(stopPayload, sid))
		w.next(t, api.AgentIdle)
	}
}

// BenchmarkHookToPageState: from `reprise hook` starting (the agent runs
// its hook) to the agentState arriving at a WebSocket client — what the
// pane's pill waits for. Alternates needs-input and idle so every hook is a
// state change.
func BenchmarkHookToPageState(b *testing.B) {
	p, home, tid := attentionRig(b)
	sid := sessionOf(b, p, tid)
	w := watchAgentState(p, tid)
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		event, payload, want := "Notification", needsInputPayload, api.AgentNeedsInput
		if i%2 == 1 {
			event, payload, want = "Stop", stopPayload, api.AgentIdle
		}
		start := time.Now()
		runHook(b, home, tid, "claude", event, fmt.Sprintf(payload, sid))
		w.next(b, want)
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

// sessionOf is the agent session id the page's host has for tid.
func sessionOf(tb testing.TB, p *page, tid string) string {
	tb.Helper()
	var ss []api.AgentState
	if err := p.call("agents.states", nil, &ss); err != nil {
		tb.Fatal(err)
	}
	for _, s := range ss {
		if s.TerminalID == tid && s.SessionID != "" {
			return s.SessionID
		}
	}
	tb.Fatalf("agents.states has no session for %s: %+v", tid, ss)
	return ""
}
