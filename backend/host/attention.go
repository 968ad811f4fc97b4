package host

import (
	"context"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/attention"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/hooks/payload"
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/backend/store"
)

// AgentStates lists what each pane's agent is doing: one entry per pane
// (its latest binding; a cold-respawned pane's agent is found through
// restored_from), plus live agents in terminals no pane shows. Bindings of
// terminals that are no longer in the layout are history (Sessions), not
// state. States are derived on each call (attention.Derive), never stored,
// so one cannot outlive the facts: no "working" once the process is gone.
func (h *Host) AgentStates(ctx context.Context) ([]api.AgentState, error) {
	bs, err := h.store.ListBindings(ctx)
	if err != nil {
		return nil, err
	}
	acts, err := h.store.Activities(ctx)
	if err != nil {
		return nil, err
	}
	shown, err := h.shownTerminals(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	out := []api.AgentState{}
	byPane := map[string]int{} // pane → index in out
	for _, b := range bs {     // oldest first: a later binding of a pane replaces an earlier one
		if b.Ended() && !shown[b.TerminalID] {
			continue // history: skipped without a query per binding
		}
		a, ok := h.agentStateOf(ctx, b, acts[b.TerminalID], now)
		if !ok {
			continue
		}
		if i, ok := byPane[a.PaneID]; ok && a.PaneID != "" {
			out[i] = a
			continue
		}
		if a.PaneID != "" {
			byPane[a.PaneID] = len(out)
		}
		out = append(out, a)
	}
	return out, nil
}

// recordActivity stores what a hook event said about the turn, for
// AgentStates.
func (h *Host) recordActivity(ctx context.Context, rec HookRecord, b bindings.Binding, changed bool) {
	var prev store.Activity
	if rec.Event.Activity == payload.ActivityWaiting {
		var err error
		if prev, err = h.store.ActivityOf(ctx, rec.TerminalID); err != nil {
			h.log.Warn("read agent activity", "terminal", rec.TerminalID, "err", err)
			return
		}
		if prev.At.Before(b.StartedAt) {
			prev = store.Activity{} // an earlier session's
		}
	}
	activity, ok := attention.Next(prev.Activity, rec.Event, b, changed)
	if !ok {
		return
	}
	at := rec.At
	if at.IsZero() {
		at = b.LastEventAt
	}
	if err := h.store.SetActivity(ctx, rec.TerminalID, activity, at); err != nil {
		h.log.Warn("record agent activity", "terminal", rec.TerminalID, "err", err)
	}
}

// shownTerminals is the set of terminals a pane may show an agent state
// for: each pane's terminal and the terminals it was cold-respawned from
// (as far back as paneForResume looks). Ended bindings outside it are
// history, so AgentStates skips them without a query each: a home that ran
// thousands of agents keeps thousands of ended bindings.
func (h *Host) shownTerminals(ctx context.Context) (map[string]bool, error) {
	l, err := h.store.LoadLayout(ctx)
	if err != nil {
		return nil, err
	}
	shown := map[string]bool{}
	for _, p := range layout.Panes(l) {
		id := p.TerminalID
		for i := 0; i < 8 && id != "" && !shown[id]; i++ {
			shown[id] = true
			t, err := h.store.GetTerminal(ctx, id)
			if err != nil {
				break
			}
			id = t.RestoredFrom
		}
	}
	return shown, nil
}

// agentStateOf is one binding's state; ok is false for an ended binding no
// pane shows (history).
func (h *Host) agentStateOf(ctx context.Context, b bindings.Binding, act store.Activity, now time.Time) (api.AgentState, bool) {
	pane := h.paneForResume(ctx, b.TerminalID)
	if pane == "" && b.Ended() {
		return api.AgentState{}, false
	}
	running := false
	if t, err := h.store.GetTerminal(ctx, b.TerminalID); err == nil {
		running = t.Status == api.StatusRunning
	}
	s := attention.Derive(attention.Input{Binding: b, Activity: act.Activity, ActivityAt: act.At, Running: running, Now: now})
	_, label := h.canResume(ctx, b.AgentID)
	return api.AgentState{
		TerminalID: b.TerminalID, PaneID: pane, AgentID: b.AgentID, AgentLabel: label, SessionID: b.SessionID,
		Cwd: b.Cwd, State: s.State, Since: s.Since, Stale: s.Stale, QuietForSec: int64(s.QuietFor.Seconds()),
		Detail: s.Detail, EndReason: b.EndReason, ExitStatus: b.ExitStatus,
	}, true
}

// agentStateNow is a binding's state for its pushed binding event ("" for
// history). It rides on that event rather than an event of its own: one
// more message per hook event (every tool call) for every page was over
// the wire budget (backend/web/budget_test.go).
func (h *Host) agentStateNow(ctx context.Context, b bindings.Binding) string {
	act, err := h.store.ActivityOf(ctx, b.TerminalID)
	if err != nil {
		h.log.Warn("read agent activity", "terminal", b.TerminalID, "err", err)
		return ""
	}
	a, _ := h.agentStateOf(ctx, b, act, time.Now())
	return a.State
}
