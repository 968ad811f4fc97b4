// Package attention derives what an agent in a pane is doing — starting,
// working, waiting for the user, idle, failed, interrupted, exited — from
// what Reprise already records: the binding the truth table keeps
// (backend/bindings), the last activity its hooks reported
// (payload.Activity*) and whether the terminal's process still runs. Derive
// is one pure function; the host calls it on read, so a state is never
// stored and can never outlive the facts it comes from.
package attention

import (
	"fmt"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/hooks/payload"
)

// States, as the API names them.
const (
	Starting    = api.AgentStarting    // launched; no hook event yet
	Working     = api.AgentWorking     // a prompt was submitted or a tool ran, and the turn has not ended
	NeedsInput  = api.AgentNeedsInput  // a permission or question prompt is open
	Idle        = api.AgentIdle        // waiting for a prompt: the turn finished, or the session started (or resumed) and none was sent yet
	FailedTurn  = api.AgentFailedTurn  // the turn failed (API error, out of quota)
	Interrupted = api.AgentInterrupted // the terminal died under the agent (a kill, a crash, a reboot)
	Exited      = api.AgentExited      // the agent ended on purpose: it said goodbye, the pane was closed, or its conversation moved
)

// StaleAfter is how long a turn may go without any hook event before
// "working" is qualified as "no activity for N min": hook agents report every
// tool call, so a turn that says nothing for this long is most likely stuck
// (out of quota, a hung network call) rather than busy. The state stays
// Working — Reprise does not know the turn ended — but Stale is set.
const StaleAfter = 10 * time.Minute

// Input is everything Derive looks at.
type Input struct {
	Binding bindings.Binding
	// Activity is the binding's last activity (payload.Activity*) and when it
	// was reported; "" when none was.
	Activity   string
	ActivityAt time.Time
	// Running: the terminal's process is still alive (the daemon has it).
	Running bool
	Now     time.Time
}

// State is an agent's attention state.
type State struct {
	State string
	// Since is when the state began: the activity's time, the end's time, or
	// the binding's start.
	Since time.Time
	// Stale: Working with no hook event for StaleAfter or more.
	Stale bool
	// QuietFor is how long no hook event arrived (set when Stale).
	QuietFor time.Duration
	// Detail is the state in words, e.g. "working — no activity for 12 min".
	Detail string
}

// Derive computes an agent's state.
func Derive(in Input) State {
	b := in.Binding
	if b.Ended() {
		since := b.LastEventAt
		if b.EndedAt != nil {
			since = *b.EndedAt
		}
		status := ""
		if b.ExitStatus != nil {
			status = fmt.Sprintf(", exit status %d", *b.ExitStatus)
		}
		if b.EndReason == bindings.TerminalExited {
			return State{State: Interrupted, Since: since, Detail: "interrupted: the agent was killed or its terminal ended" + status}
		}
		return State{State: Exited, Since: since, Detail: "exited (" + b.EndReason + status + ")"}
	}
	if !in.Running {
		// The process is gone and the truth table has not caught up yet (the
		// host records the terminal's death within a second): never claim a
		// live state for a dead process.
		return State{State: Interrupted, Since: in.Now, Detail: "interrupted: the terminal is no longer running"}
	}
	activity, at := in.Activity, in.ActivityAt
	if at.Before(b.StartedAt) {
		// Reported for an earlier agent session in this terminal (the
		// binding was revived since).
		activity, at = "", time.Time{}
	}
	var s State
	switch activity {
	case payload.ActivityPrompt, payload.ActivityTool:
		s = State{State: Working, Since: at, Detail: "working"}
	case payload.ActivityNeedsInput:
		s = State{State: NeedsInput, Since: at, Detail: "waiting for your input"}
	case payload.ActivityStop:
		s = State{State: Idle, Since: at, Detail: "idle: the turn finished"}
	case payload.ActivityFailed:
		s = State{State: FailedTurn, Since: at, Detail: "the turn failed"}
	case payload.ActivityStart:
		// SessionStart fires once the agent is up and at its prompt (Claude,
		// Gemini at launch; a resumed conversation too): it waits for the
		// user, so "starting" would be false for as long as nobody types.
		s = State{State: Idle, Since: at, Detail: "ready: waiting for a prompt"}
	default: // no event yet
		since := at
		if since.IsZero() {
			since = b.StartedAt
		}
		s = State{State: Starting, Since: since, Detail: "starting"}
	}
	if s.State == Working {
		last := at
		if b.LastEventAt.After(last) {
			last = b.LastEventAt // any hook event proves the agent is alive
		}
		if quiet := in.Now.Sub(last); quiet >= StaleAfter {
			s.Stale, s.QuietFor = true, quiet
			s.Detail = fmt.Sprintf("working — no activity for %d min", int(quiet/time.Minute))
		}
	}
	return s
}

// Next is the activity to store on a binding after a hook event, given the
// activity stored before (prev); ok is false when the event changes
// nothing. An event counts when it has an activity, comes from the agent
// itself (a subagent's Stop or Notification is never the parent's — the
// host drops those events before the truth table too), and the truth table
// took it for a live binding (changed; a straggler after an end changes
// nothing). A "waiting" reminder (Claude's idle_prompt) means the turn is
// over — it also ends a turn the user cancelled with Esc, which runs no
// Stop — unless a permission or question prompt is what it waits on.
func Next(prev string, ev payload.Event, b bindings.Binding, changed bool) (activity string, ok bool) {
	if ev.Activity == "" || ev.Subagent || !changed || b.Ended() {
		return "", false
	}
	if ev.Activity == payload.ActivityWaiting {
		if prev == payload.ActivityNeedsInput {
			return "", false
		}
		return payload.ActivityStop, true
	}
	return ev.Activity, true
}
