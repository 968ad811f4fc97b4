package host

import (
	"context"
	"fmt"
	"slices"
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
	// The agent states pushed on the binding events, repeats folded.
	var pushed []string
	collect := func() {
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
				return
			}
		}
	}
	// state is stored, then its push: wait for both before the next step.
	// The kill below must not come before the push of the state it ends: a
	// push is built from what is stored when it goes out, so a state that
	// was already over by then is never pushed (the page is never told
	// "working" for a process that is gone).
	waitStatePushed := func(want string) api.AgentState {
		t.Helper()
		st := waitState(t, h, res.TerminalID, want)
		deadline := time.Now().Add(8 * time.Second)
		for collect(); len(pushed) == 0 || pushed[len(pushed)-1] != want; collect() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for the push of %s; pushed %v", want, pushed)
			}
			time.Sleep(20 * time.Millisecond)
		}
		return st
	}
	v := h.NewViewer()
	defer v.Close()
	s := attach(t, v, res.TerminalID)
	waitText(t, s, "? for shortcuts")
	waitBinding(t, h, res.TerminalID, "session start", func(b api.Binding) bool { return b.LastEvent == "session-start" })
	// Up and at its prompt: idle ("ready"), not "starting" for as long as
	// nobody types.
	st := waitStatePushed(api.AgentIdle)
	if st.PaneID == "" || st.AgentID != "claude" || st.SessionID != res.SessionID {
		t.Fatalf("state %+v, want claude's session %s in a pane", st, res.SessionID)
	}

	v.Input(ctx, res.TerminalID, []byte("hold on KIWI-1\r"))
	waitText(t, s, "● holding")
	waitStatePushed(api.AgentWorking)
	v.Input(ctx, res.TerminalID, []byte("go\r"))
	waitText(t, s, "ack: hold on KIWI-1")
	waitStatePushed(api.AgentIdle)

	v.Input(ctx, res.TerminalID, []byte("ask to run ls\r"))
	waitText(t, s, "Do you want to proceed?")
	waitStatePushed(api.AgentNeedsInput)
	v.Input(ctx, res.TerminalID, []byte("y\r"))
	waitText(t, s, "● ran Bash")
	waitStatePushed(api.AgentWorking)

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
	// one state behind), and nothing after the death says otherwise.
	// ("ask" is a prompt, working, before its permission prompt.)
	want := []string{api.AgentStarting, api.AgentIdle, api.AgentWorking, api.AgentIdle, api.AgentWorking, api.AgentNeedsInput, api.AgentWorking, api.AgentInterrupted}
	waitStatePushed(api.AgentInterrupted)
	if !slices.Equal(pushed, want) {
		t.Errorf("pushed %v, want %v", pushed, want)
	}
}

// A push of a binding change that goes out late — built by the inbox drain
// for a hook event, then overtaken by the terminal's death and its push —
// must not tell the page an older truth than the store holds: the last
// push about a dead agent says it ended, interrupted.
func TestLatePushSaysTheStoredTruth(t *testing.T) {
	h := startHost(t, newHome(t))
	defer h.Close()
	ctx := context.Background()
	term, err := h.createTerminal(ctx, newTerminal{cwd: "/", argv: []string{"/bin/sh", "-c", "exec sleep 600"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) {
		l2, _, err := builder.AddTab(l, term.ID)
		return l2, err
	}); err != nil {
		t.Fatal(err)
	}
	live, _, err := h.applyBinding(ctx, term.ID, bindings.Input{Kind: bindings.KindLaunch, AgentID: "claude", SessionID: "s-late", Cwd: "/", At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	killTerminal(t, h, term.ID)
	waitBinding(t, h, term.ID, "the death recorded", func(b api.Binding) bool { return b.EndReason == bindings.TerminalExited })
	events := h.Subscribe()
	defer h.Unsubscribe(events)
	h.publishBinding(ctx, live) // the late push of the change before the death
	var last api.Binding
	for {
		select {
		case ev := <-events:
			if a, ok := ev.Data.(api.Binding); ok && ev.Kind == api.EventBinding && a.TerminalID == term.ID {
				last = a
				continue
			}
			continue
		default:
		}
		break
	}
	if last.TerminalID == "" {
		t.Fatal("nothing pushed")
	}
	if last.EndReason != bindings.TerminalExited || last.AgentState != api.AgentInterrupted {
		t.Fatalf("last push: end reason %q, state %q; want terminal-exited, interrupted (what is stored)", last.EndReason, last.AgentState)
	}
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
