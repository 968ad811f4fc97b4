package bindings

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
func code(n int) *int      { return &n }

func live(id string, prompted bool) *Binding {
	return &Binding{TerminalID: "t1", AgentID: "claude", SessionID: id, Prompted: prompted, StartedAt: at(0), LastEventAt: at(0)}
}

func exited(b *Binding, status int) *Binding {
	b.ExitStatus = code(status)
	return b
}

func ended(reason, id string, prompted bool, sec int) *Binding {
	b := live(id, prompted)
	b.EndReason, b.EndedAt = reason, ptr(at(sec))
	return b
}

// TestTruthTable walks every row of DESIGN §3.
func TestTruthTable(t *testing.T) {
	cases := []struct {
		name       string
		cur        *Binding
		in         Input
		out        Outcome
		changed    bool
		reason     string // expected end reason after
		session    string // expected session id after ("" = don't care)
		prompted   *bool
		endedAtSec *int // expected ended_at, seconds after t0
		candidate  *bool
		exitStatus *int // expected recorded exit status
	}{
		// Creation and capture.
		{name: "first SessionStart creates a live binding", in: Input{Kind: KindSessionStart, AgentID: "claude", SessionID: "A", Source: "startup", At: at(1)},
			out: Created, changed: true, reason: Live, session: "A", prompted: ptr(false)},
		{name: "terminal exit without a binding does nothing", in: Input{Kind: KindTerminalExit, At: at(1)}, out: NoAgent},
		{name: "prompt marks prompted", cur: live("A", false), in: Input{Kind: KindPrompt, SessionID: "A", At: at(2)},
			out: Updated, changed: true, reason: Live, prompted: ptr(true)},
		{name: "codex: session id arrives with the first prompt", cur: live("", false), in: Input{Kind: KindPrompt, SessionID: "C", At: at(2)},
			out: Updated, changed: true, session: "C", prompted: ptr(true)},
		{name: "re-capture on /clear: new id, not prompted", cur: live("A", true), in: Input{Kind: KindSessionStart, SessionID: "B", Source: "clear", At: at(3)},
			out: Updated, changed: true, reason: Live, session: "B", prompted: ptr(false)},
		{name: "SessionEnd clear is not a goodbye", cur: live("A", true), in: Input{Kind: KindSessionEnd, SessionID: "A", Reason: "clear", At: at(3)},
			out: Updated, changed: true, reason: Live},
		{name: "SessionStart resume makes a known transcript resumable", cur: live("", false), in: Input{Kind: KindSessionStart, SessionID: "R", Source: "resume", At: at(1)},
			out: Updated, changed: true, session: "R", prompted: ptr(true)},

		// Another agent inside the one Reprise launched here (its hooks name
		// this terminal): the pane's agent stays the launched one.
		{name: "nested agent's SessionStart does not take the launched agent's binding", cur: live("A", true), in: Input{Kind: KindSessionStart, AgentID: "codex", SessionID: "N", Source: "startup", Wrapped: "claude", At: at(3)},
			out: Dropped, reason: Live, session: "A", prompted: ptr(true)},
		{name: "nested agent's goodbye does not end the launched agent", cur: live("A", true), in: Input{Kind: KindSessionEnd, AgentID: "codex", SessionID: "N", Reason: "other", Wrapped: "claude", At: at(4)},
			out: Dropped, reason: Live, session: "A"},
		{name: "a launched agent without hooks of its own (a user's agent wrapping claude) is tracked through claude's", cur: &Binding{TerminalID: "t1", AgentID: "myclaude", StartedAt: at(0), LastEventAt: at(0), LastEvent: KindLaunch}, in: Input{Kind: KindSessionStart, AgentID: "claude", SessionID: "N", Source: "startup", Wrapped: "myclaude", At: at(1)},
			out: Updated, changed: true, reason: Live, session: "N"},
		{name: "an agent typed in a plain shell still takes the binding over", cur: live("A", true), in: Input{Kind: KindSessionStart, AgentID: "codex", SessionID: "N", Source: "startup", At: at(3)},
			out: Updated, changed: true, reason: Live, session: "N", prompted: ptr(false)},

		// Ends from a live binding.
		{name: "SessionEnd → detached, no banner", cur: live("A", true), in: Input{Kind: KindSessionEnd, SessionID: "A", Reason: "prompt_input_exit", At: at(5)},
			out: Ended, changed: true, reason: Detached, endedAtSec: ptr(5), candidate: ptr(false)},
		{name: "codex exit < 128 → detached", cur: live("A", true), in: Input{Kind: KindProcessExit, Status: code(0), At: at(5)},
			out: Ended, changed: true, reason: Detached, exitStatus: code(0), candidate: ptr(false)},
		{name: "agent killed (exit ≥ 128) while its shell lives → candidate", cur: live("A", true), in: Input{Kind: KindProcessExit, Status: code(137), At: at(5)},
			out: Ended, changed: true, reason: TerminalExited, candidate: ptr(true)},
		{name: "terminal died under a prompted agent → candidate", cur: live("A", true), in: Input{Kind: KindTerminalExit, At: at(5)},
			out: Ended, changed: true, reason: TerminalExited, endedAtSec: ptr(5), candidate: ptr(true)},
		{name: "never prompted, terminal died → no banner", cur: live("A", false), in: Input{Kind: KindTerminalExit, At: at(5)},
			out: Ended, changed: true, reason: TerminalExited, candidate: ptr(false)},
		{name: "no session id, terminal died → no banner", cur: live("", true), in: Input{Kind: KindTerminalExit, At: at(5)},
			out: Ended, changed: true, reason: TerminalExited, candidate: ptr(false)},
		{name: "user closed the pane → disposed", cur: live("A", true), in: Input{Kind: KindDispose, At: at(5)},
			out: Ended, changed: true, reason: Disposed, candidate: ptr(false)},

		// Death gasp.
		{name: "goodbye then terminal death within 30 s → terminal-exited, original ended_at", cur: ended(Detached, "A", true, 10), in: Input{Kind: KindTerminalExit, At: at(11)},
			out: Gasp, changed: true, reason: TerminalExited, endedAtSec: ptr(10), candidate: ptr(true)},
		{name: "goodbye then killed exit status within 30 s → terminal-exited", cur: ended(Detached, "A", true, 10), in: Input{Kind: KindProcessExit, Status: code(129), At: at(10)},
			out: Gasp, changed: true, reason: TerminalExited, endedAtSec: ptr(10)},
		{name: "goodbye then terminal death after 30 s stays detached", cur: ended(Detached, "A", true, 10), in: Input{Kind: KindTerminalExit, At: at(41)},
			out: Dropped, reason: Detached},
		{name: "gemini: goodbye then exit 0 stays detached, the status recorded", cur: ended(Detached, "A", true, 10), in: Input{Kind: KindProcessExit, Status: code(0), At: at(10)},
			out: Updated, changed: true, reason: Detached, exitStatus: code(0)},
		{name: "goodbye with a clean exit status, then terminal death within 30 s, stays detached", cur: exited(ended(Detached, "A", true, 10), 0), in: Input{Kind: KindTerminalExit, At: at(11)},
			out: Dropped, reason: Detached, candidate: ptr(false)},
		{name: "codex: exit 0 (detached), then terminal death within 30 s, stays detached", cur: exited(ended(Detached, "A", true, 10), 0), in: Input{Kind: KindTerminalExit, At: at(12)},
			out: Dropped, reason: Detached, endedAtSec: ptr(10), candidate: ptr(false)},
		{name: "clean exit status reported after the terminal's death was noticed → detached", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindProcessExit, Status: code(0), At: at(9)},
			out: Goodbye, changed: true, reason: Detached, endedAtSec: ptr(9), exitStatus: code(0), candidate: ptr(false)},
		{name: "killed exit status after the terminal's death stays terminal-exited", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindProcessExit, Status: code(137), At: at(9)},
			out: Sticky, reason: TerminalExited, candidate: ptr(true)},
		{name: "a clean exit never undoes a kill the status already told", cur: exited(ended(TerminalExited, "A", true, 10), 137), in: Input{Kind: KindProcessExit, Status: code(0), At: at(10)},
			out: Sticky, reason: TerminalExited},
		{name: "a clean exit long after the death is a straggler", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindProcessExit, Status: code(0), At: at(50)},
			out: Sticky, reason: TerminalExited},
		{name: "repeated SessionEnd from one process is one end", cur: ended(Detached, "A", true, 10), in: Input{Kind: KindSessionEnd, SessionID: "A", At: at(10)},
			out: Dropped, reason: Detached, endedAtSec: ptr(10)},

		// Sticky reasons.
		{name: "terminal-exited is sticky on a late SessionEnd", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindSessionEnd, SessionID: "A", At: at(11)},
			out: Sticky, reason: TerminalExited, candidate: ptr(true)},
		{name: "terminal-exited is sticky on dispose", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindDispose, At: at(50)},
			out: Sticky, reason: TerminalExited},
		{name: "disposed is sticky on terminal death", cur: ended(Disposed, "A", true, 10), in: Input{Kind: KindTerminalExit, At: at(10)},
			out: Sticky, reason: Disposed},
		{name: "resumed is sticky on terminal death", cur: ended(Resumed, "A", true, 10), in: Input{Kind: KindTerminalExit, At: at(12)},
			out: Sticky, reason: Resumed},

		// Stragglers and revival.
		{name: "late Stop with the same id within 30 s is dropped", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindStop, SessionID: "A", At: at(20)},
			out: Dropped, reason: TerminalExited},
		{name: "late event with no id within 30 s is dropped", cur: ended(Detached, "A", true, 10), in: Input{Kind: KindPrompt, At: at(20)},
			out: Dropped, reason: Detached},
		{name: "SessionStart within 30 s revives", cur: ended(Detached, "A", true, 10), in: Input{Kind: KindSessionStart, SessionID: "A", Source: "startup", At: at(12)},
			out: Revived, changed: true, reason: Live, session: "A", prompted: ptr(false)},
		{name: "a different session id within 30 s revives", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindPrompt, SessionID: "B", At: at(12)},
			out: Revived, changed: true, reason: Live, session: "B", prompted: ptr(true)},
		{name: "any event after 30 s revives", cur: ended(Detached, "A", true, 10), in: Input{Kind: KindStop, SessionID: "A", At: at(45)},
			out: Revived, changed: true, reason: Live, session: "A"},

		{name: "a closed pane never revives, even on SessionStart", cur: ended(Disposed, "A", true, 10), in: Input{Kind: KindSessionStart, SessionID: "B", Source: "startup", At: at(11)},
			out: Dropped, reason: Disposed},
		{name: "a resumed terminal never revives", cur: ended(Resumed, "A", true, 10), in: Input{Kind: KindStop, SessionID: "A", At: at(100)},
			out: Dropped, reason: Resumed},
		{name: "an event from before the recorded end is a straggler", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindSessionStart, SessionID: "B", At: at(9)},
			out: Dropped, reason: TerminalExited},

		// Claim and un-claim.
		{name: "claim a candidate", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindClaim, CanResume: true, At: at(60)},
			out: Claimed, changed: true, reason: Resumed, endedAtSec: ptr(10), candidate: ptr(false)},
		{name: "claim refused without resume args", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindClaim, CanResume: false, At: at(60)},
			out: Refused, reason: TerminalExited},
		{name: "claim refused for a never-prompted session", cur: ended(TerminalExited, "A", false, 10), in: Input{Kind: KindClaim, CanResume: true, At: at(60)},
			out: Refused, reason: TerminalExited},
		{name: "claim refused for a detached session", cur: ended(Detached, "A", true, 10), in: Input{Kind: KindClaim, CanResume: true, At: at(60)},
			out: Refused, reason: Detached},
		{name: "second claim loses", cur: ended(Resumed, "A", true, 10), in: Input{Kind: KindClaim, CanResume: true, At: at(60)},
			out: Refused, reason: Resumed},
		{name: "un-claim after a failed launch gives the candidate back", cur: ended(Resumed, "A", true, 10), in: Input{Kind: KindUnclaim, At: at(61)},
			out: Updated, changed: true, reason: TerminalExited, session: "A", candidate: ptr(true)},
		{name: "un-claim of something not claimed", cur: ended(TerminalExited, "A", true, 10), in: Input{Kind: KindUnclaim, At: at(61)},
			out: Refused, reason: TerminalExited},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before Binding
			if tc.cur != nil {
				before = *tc.cur
			}
			next, out, changed := Decide(tc.cur, tc.in)
			if tc.cur != nil && *tc.cur != before {
				t.Fatal("Decide mutated its input")
			}
			if out != tc.out || changed != tc.changed {
				t.Fatalf("outcome %s changed=%v, want %s changed=%v", out, changed, tc.out, tc.changed)
			}
			got := next
			if !changed {
				if tc.cur == nil {
					return
				}
				got = *tc.cur
			}
			if got.EndReason != tc.reason {
				t.Fatalf("end reason %q, want %q", got.EndReason, tc.reason)
			}
			if tc.session != "" && got.SessionID != tc.session {
				t.Fatalf("session %q, want %q", got.SessionID, tc.session)
			}
			if tc.prompted != nil && got.Prompted != *tc.prompted {
				t.Fatalf("prompted %v, want %v", got.Prompted, *tc.prompted)
			}
			if tc.endedAtSec != nil && (got.EndedAt == nil || !got.EndedAt.Equal(at(*tc.endedAtSec))) {
				t.Fatalf("ended_at %v, want %v", got.EndedAt, at(*tc.endedAtSec))
			}
			if tc.exitStatus != nil && (got.ExitStatus == nil || *got.ExitStatus != *tc.exitStatus) {
				t.Fatalf("exit status %v, want %d", got.ExitStatus, *tc.exitStatus)
			}
			if tc.candidate != nil && Candidate(&got, true) != *tc.candidate {
				t.Fatalf("candidate %v, want %v", Candidate(&got, true), *tc.candidate)
			}
		})
	}
}

// Claude killed by SIGHUP when the daemon dies: SessionEnd (other), then the
// terminal's death; in either arrival order the result is a candidate.
func TestDeathGaspEitherOrder(t *testing.T) {
	b := live("A", true)
	end := Input{Kind: KindSessionEnd, SessionID: "A", Reason: "other", At: at(10)}
	death := Input{Kind: KindTerminalExit, At: at(10).Add(300 * time.Millisecond)}
	for name, seq := range map[string][]Input{"goodbye first": {end, death}, "death first": {death, end}} {
		t.Run(name, func(t *testing.T) {
			cur := *b
			for _, in := range seq {
				if next, _, changed := Decide(&cur, in); changed {
					cur = next
				}
			}
			if !Candidate(&cur, true) {
				t.Fatalf("end reason %s: not a candidate", cur.EndReason)
			}
		})
	}
}

func TestLaunchCreatesBinding(t *testing.T) {
	b, out, changed := Decide(nil, Input{Kind: KindLaunch, AgentID: "claude", SessionID: "P", At: at(0)})
	if !changed || out != Created || b.SessionID != "P" || b.Prompted || b.Ended() {
		t.Fatalf("launch: %+v %s", b, out)
	}
	b, _, _ = Decide(nil, Input{Kind: KindLaunch, AgentID: "claude", SessionID: "R", Prompted: true, At: at(0)})
	if !b.Prompted {
		t.Fatal("a resumed launch must count as prompted")
	}
}

// A clean exit (Claude /exit: SessionEnd prompt_input_exit and status 0;
// Codex /quit: status 0) followed by the terminal's death within 30 s is a
// goodbye, in whichever order the exit status and the death arrive. A kill
// (Claude on SIGHUP: SessionEnd other, status 129) stays an interruption.
func TestExitStatusDecidesAfterTerminalDeath(t *testing.T) {
	goodbye := Input{Kind: KindSessionEnd, SessionID: "A", Reason: "prompt_input_exit", At: at(10)}
	clean := Input{Kind: KindProcessExit, Status: code(0), At: at(10).Add(50 * time.Millisecond)}
	hup := Input{Kind: KindSessionEnd, SessionID: "A", Reason: "other", At: at(10)}
	killed := Input{Kind: KindProcessExit, Status: code(129), At: at(10).Add(50 * time.Millisecond)}
	death := Input{Kind: KindTerminalExit, At: at(20)}
	for _, tc := range []struct {
		name      string
		seq       []Input
		candidate bool
	}{
		{"claude /exit, status, death", []Input{goodbye, clean, death}, false},
		{"claude /exit, death, status", []Input{goodbye, death, clean}, false},
		{"codex status, death", []Input{clean, death}, false},
		{"codex death, status", []Input{death, clean}, false},
		{"claude SIGHUP, status, death", []Input{hup, killed, death}, true},
		{"claude SIGHUP, death, status", []Input{hup, death, killed}, true},
		{"goodbye, death, no status (the wrapper died too)", []Input{hup, death}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := *live("A", true)
			for _, in := range tc.seq {
				if next, _, changed := Decide(&cur, in); changed {
					cur = next
				}
			}
			if Candidate(&cur, true) != tc.candidate {
				t.Fatalf("end reason %s: candidate %v, want %v", cur.EndReason, !tc.candidate, tc.candidate)
			}
		})
	}
}

// A resume of a session id Reprise never saw is neither resumable nor
// history until the agent reports the id itself.
func TestUnconfirmedResume(t *testing.T) {
	b, _, _ := Decide(nil, Input{Kind: KindLaunch, AgentID: "claude", SessionID: "U", Prompted: true, Unconfirmed: true, At: at(0)})
	if !b.Unconfirmed || Resumable(&b, true) {
		t.Fatalf("unknown resumed id: %+v", b)
	}
	// The agent fails: a goodbye for a throwaway id, then its exit status.
	end, _, _ := Decide(&b, Input{Kind: KindSessionEnd, SessionID: "X", Reason: "other", At: at(1)})
	if !end.Unconfirmed || end.SessionID != "U" {
		t.Fatalf("after the failing agent's goodbye: %+v", end)
	}
	// The agent confirms: SessionStart resume with the same id.
	ok, _, _ := Decide(&b, Input{Kind: KindSessionStart, SessionID: "U", Source: "resume", At: at(1)})
	if ok.Unconfirmed || !Resumable(&ok, true) {
		t.Fatalf("confirmed: %+v", ok)
	}
}
