// Package bindings records which agent runs in which terminal, under which
// of the agent's own session ids, and how it ended. The whole truth table of
// DESIGN §3 — death gasp, sticky reasons, stragglers, revival, claim and
// un-claim — lives in Decide, one pure function; the Service applies its
// decisions to the store as compare-and-set updates.
package bindings

import (
	"time"
)

// End reasons.
const (
	Live           = ""                // the agent is (as far as we know) running
	Detached       = "detached"        // the agent said goodbye itself
	TerminalExited = "terminal-exited" // the terminal died under the agent
	Disposed       = "disposed"        // the user closed the pane or killed it on purpose
	Resumed        = "resumed"         // the candidate was consumed by a resume
)

// Input kinds: the hook payload kinds plus what the host observes.
const (
	KindSessionStart = "session-start"
	KindPrompt       = "prompt"
	KindStop         = "stop"
	KindSessionEnd   = "session-end"
	KindProcessExit  = "process-exit"  // the launch wrapper saw the agent exit with Status
	KindTerminalExit = "terminal-exit" // the terminal died: pty exit, daemon death, reboot
	KindDispose      = "dispose"       // the user closed the pane; stamped before the kill
	KindLaunch       = "launch"        // Reprise started the agent (pre-assigned or resumed id)
	KindClaim        = "claim"         // a resume takes the candidate (needs CanResume)
	KindUnclaim      = "unclaim"       // the resume's launch failed: give the candidate back
	KindOther        = "other"
)

// Window is how long after an end a late event counts as a straggler, and
// within which a terminal death turns a goodbye into a kill (death gasp).
const Window = 30 * time.Second

// Binding is one terminal's agent.
type Binding struct {
	TerminalID  string
	AgentID     string
	SessionID   string
	Cwd         string
	StartedAt   time.Time
	LastEventAt time.Time
	LastEvent   string
	Prompted    bool
	EndedAt     *time.Time
	EndReason   string
	// ExitStatus is the agent's own exit status as its launch wrapper
	// reported it (nil: not reported, e.g. the wrapper died with the
	// terminal). A clean one (< 128) is the ground truth for a goodbye.
	ExitStatus *int
	// Unconfirmed: Reprise launched a resume of a session id it had never
	// seen, and the agent has not yet reported that id itself. Such a
	// session is neither history nor resumable until the agent confirms it.
	Unconfirmed bool
	Version     int64 // compare-and-set token, managed by the store
}

// Ended reports whether the binding has an end reason.
func (b *Binding) Ended() bool { return b.EndReason != Live }

// Input is one observation about a terminal's agent.
type Input struct {
	Kind      string
	AgentID   string
	SessionID string
	Source    string // SessionStart source
	Reason    string // SessionEnd reason
	Status    *int   // KindProcessExit: the agent's exit status as the shell saw it (128+n for signal n)
	Prompted  bool   // the event proves a turn happened (prompt, stop, turn-complete)
	CanResume bool   // KindClaim: the agent's config has resume args
	// Unconfirmed (KindLaunch): the resumed session id is one Reprise never
	// saw, so it is not yet known to exist.
	Unconfirmed bool
	Cwd         string
	At          time.Time
	// Wrapped is the agent the terminal's launch wrapper runs (Reprise
	// started the terminal for it; the wrapper reports its exit), "" for a
	// terminal Reprise did not start for an agent.
	Wrapped string
}

// Outcome says what Decide did, for logs and tests.
type Outcome string

const (
	Created Outcome = "created"
	Updated Outcome = "updated"
	Ended   Outcome = "ended"
	Gasp    Outcome = "death-gasp" // detached → terminal-exited, keeping ended_at
	Goodbye Outcome = "clean-exit" // terminal-exited → detached: the agent's clean exit status arrived after the death
	Revived Outcome = "revived"
	Dropped Outcome = "dropped"  // a straggler, or an event with nothing to say
	Sticky  Outcome = "sticky"   // an end event for a row whose reason never changes
	NoAgent Outcome = "no-agent" // a terminal event for a terminal without a binding
	Claimed Outcome = "claimed"
	Refused Outcome = "refused" // a claim of something that is not a candidate, an un-claim of something not claimed
)

// killedStatus reports whether an exit status means the agent was killed:
// a status of 128 or more is how a shell reports death by a signal.
func killedStatus(s *int) bool { return s != nil && *s >= 128 }

// cleanStatus reports whether an exit status says the agent exited by
// itself (< 128), whatever happened to its terminal afterwards.
func cleanStatus(s *int) bool { return s != nil && *s < 128 }

// Decide computes a binding's next state from its current state (nil when
// the terminal has none) and one input. It never mutates cur. changed is
// false when the input must not change the row.
func Decide(cur *Binding, in Input) (next Binding, out Outcome, changed bool) {
	switch in.Kind {
	case KindClaim:
		if !Candidate(cur, in.CanResume) {
			return Binding{}, Refused, false
		}
		b := *cur
		b.EndReason = Resumed
		return b, Claimed, true
	case KindUnclaim:
		if cur == nil || cur.EndReason != Resumed {
			return Binding{}, Refused, false
		}
		b := *cur
		b.EndReason = TerminalExited
		return b, Updated, true
	}
	if cur == nil {
		switch in.Kind {
		case KindTerminalExit, KindDispose:
			return Binding{}, NoAgent, false
		case KindProcessExit:
			// An agent that exits before any hook reported it: nothing to
			// bind (the launch path pre-creates bindings it cares about).
			return Binding{}, NoAgent, false
		}
		b := Binding{AgentID: in.AgentID, StartedAt: in.At}
		applyLive(&b, in)
		if in.Kind == KindLaunch {
			b.Prompted = in.Prompted // a resumed conversation already has a transcript
			b.Unconfirmed = in.Unconfirmed && b.SessionID != ""
		}
		if in.Kind == KindSessionEnd {
			b.EndReason, b.EndedAt = Detached, ptr(in.At)
		}
		return b, Created, true
	}
	b := *cur
	if !b.Ended() {
		return decideLive(b, in)
	}
	return decideEnded(b, in)
}

func decideLive(b Binding, in Input) (Binding, Outcome, bool) {
	if nested(b, in) {
		return b, Dropped, false
	}
	switch in.Kind {
	case KindTerminalExit:
		return end(b, TerminalExited, in.At), Ended, true
	case KindDispose:
		return end(b, Disposed, in.At), Ended, true
	case KindProcessExit:
		b.ExitStatus = in.Status
		if killedStatus(in.Status) {
			return end(b, TerminalExited, in.At), Ended, true
		}
		return end(b, Detached, in.At), Ended, true
	case KindSessionEnd:
		if in.Reason == "clear" || in.Reason == "resume" {
			// Not a goodbye: a new session follows in the same process.
			touch(&b, in)
			return b, Updated, true
		}
		touch(&b, in)
		return end(b, Detached, in.At), Ended, true
	}
	applyLive(&b, in)
	return b, Updated, true
}

func decideEnded(b Binding, in Input) (Binding, Outcome, bool) {
	within := b.EndedAt != nil && in.At.Sub(*b.EndedAt) <= Window

	switch in.Kind {
	case KindTerminalExit, KindDispose, KindProcessExit, KindSessionEnd:
		if b.EndReason == TerminalExited && in.Kind == KindProcessExit && b.ExitStatus == nil && cleanStatus(in.Status) && within {
			// The agent exited by itself, and its report arrived after the
			// terminal's death was noticed: exit status is the ground truth.
			b.EndReason, b.ExitStatus = Detached, in.Status
			if in.At.Before(*b.EndedAt) {
				b.EndedAt = ptr(in.At)
			}
			return b, Goodbye, true
		}
		if b.EndReason != Detached {
			return b, Sticky, false
		}
		if in.Kind == KindProcessExit && b.ExitStatus == nil && !killedStatus(in.Status) && in.Status != nil {
			// The exit status of the agent that said goodbye: clean, so the
			// goodbye stands whatever happens to the terminal afterwards.
			b.ExitStatus = in.Status
			return b, Updated, true
		}
		// Detached. A death soon after the goodbye means the goodbye was
		// the agent being killed (Claude runs SessionEnd on SIGHUP) —
		// unless the agent's own exit status already said it exited cleanly.
		gasp := (in.Kind == KindTerminalExit && !cleanStatus(b.ExitStatus)) || (in.Kind == KindProcessExit && killedStatus(in.Status))
		if gasp && within {
			b.EndReason = TerminalExited // keeps the original ended_at
			if in.Kind == KindProcessExit {
				b.ExitStatus = in.Status
			}
			return b, Gasp, true
		}
		if in.Kind == KindDispose && within {
			return b, Dropped, false
		}
		if !within && in.Kind == KindSessionEnd && in.SessionID != "" && in.SessionID != b.SessionID {
			break // a goodbye from a different, later session: revive then end below
		}
		return b, Dropped, false
	}

	if b.EndReason == Disposed || b.EndReason == Resumed {
		// The user closed this terminal, or its conversation moved to
		// another one: no agent session can start in it any more, so a
		// late event (even a SessionStart) is a straggler.
		return b, Dropped, false
	}
	if b.EndedAt != nil && in.At.Before(*b.EndedAt) {
		return b, Dropped, false // it happened before the end we recorded
	}
	sameOrNone := in.SessionID == "" || in.SessionID == b.SessionID
	if within && sameOrNone && in.Kind != KindSessionStart {
		return b, Dropped, false // a straggler of the session that ended
	}
	// Revival: a SessionStart, a different session id, or anything after
	// the window is a new live session in this terminal.
	nb := Binding{TerminalID: b.TerminalID, AgentID: b.AgentID, Cwd: b.Cwd, StartedAt: in.At, Version: b.Version}
	if in.AgentID != "" {
		nb.AgentID = in.AgentID
	}
	applyLive(&nb, in)
	if in.Kind == KindSessionEnd {
		nb = end(nb, Detached, in.At)
	}
	return nb, Revived, true
}

// nested reports whether a hook event comes from another agent running
// inside the live agent Reprise launched in this terminal (Claude's Bash
// tool running `codex exec`, say): it inherits the pane's environment, so
// its hooks name this terminal, but the pane's agent is still the launched
// one until its wrapper reports its exit. Such an event used to take the
// binding over, and the nested agent's goodbye then ended it: the launched
// agent's death offered the nested agent's session, or no banner at all.
func nested(b Binding, in Input) bool {
	switch in.Kind {
	case KindSessionStart, KindPrompt, KindStop, KindSessionEnd, KindOther:
	default:
		return false
	}
	// The launched agent must have reported an event itself (LastEvent is
	// no longer the launch): a user's own agent without hooks that wraps
	// Claude gets its session tracked through Claude's hooks, as before.
	return in.Wrapped != "" && b.AgentID == in.Wrapped && b.LastEvent != KindLaunch && in.AgentID != "" && in.AgentID != b.AgentID
}

// applyLive folds a non-ending event into a live binding: it (re)captures
// the session id — ids rotate on /clear, /resume and forks — and notes
// whether the session has been prompted.
func applyLive(b *Binding, in Input) {
	if in.SessionID != "" && in.SessionID != b.SessionID {
		if b.SessionID != "" {
			b.Prompted = false // a new session: its transcript starts empty
		}
		b.SessionID = in.SessionID
	}
	if in.SessionID != "" && in.Kind != KindLaunch {
		b.Unconfirmed = false // the agent itself reported the id it runs
	}
	if in.Kind == KindSessionStart && in.Source == "resume" {
		b.Prompted = true // resumed from a transcript that exists
	}
	if in.Kind == KindPrompt || in.Kind == KindStop || in.Prompted {
		b.Prompted = true
	}
	if in.AgentID != "" {
		b.AgentID = in.AgentID
	}
	touch(b, in)
}

func touch(b *Binding, in Input) {
	if in.Cwd != "" {
		b.Cwd = in.Cwd
	}
	b.LastEventAt = in.At
	b.LastEvent = in.Kind
}

func end(b Binding, reason string, at time.Time) Binding {
	b.EndReason, b.EndedAt = reason, ptr(at)
	if b.LastEventAt.Before(at) {
		b.LastEventAt = at
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// Resumable reports whether a binding's conversation can be resumed by id:
// its session id is known (and, for a resume of an id Reprise never saw,
// confirmed by the agent) and the user prompted it (a session that only saw
// SessionStart has no transcript), given the agent's config can resume.
func Resumable(b *Binding, canResume bool) bool {
	return b != nil && b.SessionID != "" && b.Prompted && !b.Unconfirmed && canResume
}

// Candidate reports whether a binding should show the resume banner.
func Candidate(b *Binding, canResume bool) bool {
	return b != nil && b.EndReason == TerminalExited && Resumable(b, canResume)
}
