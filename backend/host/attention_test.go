package host

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/store"
)

func agentState(t *testing.T, h *Host, tid string) (api.AgentState, bool) {
	t.Helper()
	states, err := h.AgentStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range states {
		if s.TerminalID == tid {
			return s, true
		}
	}
	return api.AgentState{}, false
}

func waitState(t *testing.T, h *Host, tid, want string) api.AgentState {
	t.Helper()
	var last api.AgentState
	waitFor(t, "agent state "+want, func() bool {
		s, ok := agentState(t, h, tid)
		last = s
		return ok && s.State == want
	})
	return last
}

// The fake Claude, launched by the host with its per-launch hooks, through
// every live state: starting → working (a held turn) → idle → needs-input
// (a permission prompt) → working (answered: PostToolUse) → idle, then
// killed mid-turn → interrupted, never "working" for a dead process.
func TestAgentStatesFollowTheFakeClaude(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	events := h.Subscribe()
	defer h.Unsubscribe(events)
	res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	v := h.NewViewer()
	defer v.Close()
	s := attach(t, v, res.TerminalID)
	waitText(t, s, "? for shortcuts")
	waitBinding(t, h, res.TerminalID, "session start", func(b api.Binding) bool { return b.LastEvent == "session-start" })
	// Up and at its prompt: idle ("ready"), not "starting" for as long as
	// nobody types.
	st := waitState(t, h, res.TerminalID, api.AgentIdle)
	if st.PaneID == "" || st.AgentID != "claude" || st.SessionID != res.SessionID {
		t.Fatalf("state %+v, want claude's session %s in a pane", st, res.SessionID)
	}

	v.Input(ctx, res.TerminalID, []byte("hold on KIWI-1\r"))
	waitText(t, s, "● holding")
	waitState(t, h, res.TerminalID, api.AgentWorking)
	v.Input(ctx, res.TerminalID, []byte("go\r"))
	waitText(t, s, "ack: hold on KIWI-1")
	waitState(t, h, res.TerminalID, api.AgentIdle)

	v.Input(ctx, res.TerminalID, []byte("ask to run ls\r"))
	waitText(t, s, "Do you want to proceed?")
	waitState(t, h, res.TerminalID, api.AgentNeedsInput)
	v.Input(ctx, res.TerminalID, []byte("y\r"))
	waitText(t, s, "● ran Bash")
	waitState(t, h, res.TerminalID, api.AgentWorking)

	killTerminal(t, h, res.TerminalID) // mid-turn
	st = waitState(t, h, res.TerminalID, api.AgentInterrupted)
	if st.EndReason != "terminal-exited" && st.EndReason != "" {
		t.Fatalf("interrupted with end reason %q", st.EndReason)
	}
	waitBinding(t, h, res.TerminalID, "ended", func(b api.Binding) bool { return b.EndReason != "" })
	if st, _ := agentState(t, h, res.TerminalID); st.State != api.AgentInterrupted || st.EndReason != "terminal-exited" {
		t.Fatalf("after the kill: %+v, want interrupted (terminal-exited)", st)
	}

	// The same changes were pushed on the binding events, in order, each
	// with its activity already stored (a push made before it would lag
	// one state behind).
	var pushed []string
	want := []string{api.AgentStarting, api.AgentIdle, api.AgentWorking, api.AgentIdle, api.AgentNeedsInput, api.AgentWorking, api.AgentInterrupted}
	waitFor(t, "pushed agent states", func() bool {
		for {
			select {
			case ev, open := <-events:
				if !open {
					t.Fatal("the host cut the subscriber off")
				}
				if a, ok := ev.Data.(api.Binding); ok && ev.Kind == api.EventBinding && a.TerminalID == res.TerminalID && a.AgentState != "" {
					if n := len(pushed); n == 0 || pushed[n-1] != a.AgentState {
						pushed = append(pushed, a.AgentState)
					}
				}
			default:
				return subsequence(want, pushed)
			}
		}
	})
	if pushed[0] != api.AgentStarting {
		t.Errorf("pushed %v, want it to begin with starting", pushed)
	}
}

// subsequence reports whether want appears in got in order.
func subsequence(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// Ended bindings of terminals no pane shows are history, not state; a live
// agent in a terminal no pane shows is still listed.
func TestAgentStatesSkipHistory(t *testing.T) {
	h := startHost(t, newHome(t))
	defer h.Close()
	ctx := context.Background()
	now := time.Now()
	bind := func(tid, status string, kinds ...string) {
		t.Helper()
		if _, err := h.store.CreateTerminal(ctx, store.Terminal{ID: tid, Argv: []string{"sh"}, Status: status}); err != nil {
			t.Fatal(err)
		}
		for _, k := range kinds {
			if _, _, err := h.applyBinding(ctx, tid, bindings.Input{Kind: k, AgentID: "claude", SessionID: "s-" + tid, At: now}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < 200; i++ {
		bind(fmt.Sprintf("t_%016x", i), api.StatusClosed, bindings.KindLaunch, bindings.KindDispose)
	}
	// The store says its terminal exited; the truth table has not heard.
	bind("t_live000000000000", api.StatusExited, bindings.KindLaunch)
	states, err := h.AgentStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 1 || states[0].TerminalID != "t_live000000000000" || states[0].PaneID != "" {
		t.Fatalf("states %+v, want only the live agent (no pane)", states)
	}
	// Its terminal is not running: not "starting" but interrupted.
	if states[0].State != api.AgentInterrupted {
		t.Fatalf("state %s for a terminal that is not running, want interrupted", states[0].State)
	}
}
