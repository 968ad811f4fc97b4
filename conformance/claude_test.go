package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
)

// Claude Code: hooks through the per-launch --settings file Reprise
// writes; the session id is pre-assigned with --session-id.
func TestClaude(t *testing.T) {
	requireCLI(t, "claude")
	t.Run("kill-terminal", func(t *testing.T) { scenarioKillTerminal(t, "claude") })
	t.Run("kill-at-once", func(t *testing.T) { scenarioKillAtOnce(t, "claude", "Stop") })
	t.Run("kill-daemon", func(t *testing.T) { scenarioKillDaemon(t, "claude") })
	t.Run("exit", func(t *testing.T) { scenarioExit(t, "claude") })
	t.Run("agent-hangup", func(t *testing.T) { scenarioAgentHangup(t, "claude") })
	t.Run("cwd-gone", func(t *testing.T) { scenarioCwdGone(t, "claude") })
	t.Run("never-prompted", func(t *testing.T) { scenarioNeverPrompted(t, "claude") })
	t.Run("clear", claudeClear)
	t.Run("permission", func(t *testing.T) { scenarioPermission(t, "claude") })
	t.Run("closed-port", func(t *testing.T) {
		scenarioClosedPort(t, "claude", func(r *rig, s session) {
			// The turn fails at once: StopFailure, and the transcript
			// holds the prompt anyway.
			r.waitHook(s.tid, "StopFailure", turnTimeout)
			r.waitShows(s.tid, turnTimeout, "API Error")
			onDisk(r, s)
		})
	})
}

// /clear starts a new session in the same process: SessionEnd(clear) then
// SessionStart(clear) with a new id. The new id is the one resumed.
func claudeClear(t *testing.T) {
	p := profiles["claude"]
	r := newRig(t, "claude", "/clear → the new id is resumed", rigOptions{})
	s := launch(r, p)
	prompt(r, &s, "PLUM")
	first := s
	r.typeLine(s.tid, "/clear")
	b := r.waitBinding(s.tid, "a new session id after /clear", hookTimeout, func(b api.Binding) bool {
		return b.SessionID != "" && b.SessionID != first.id
	})
	if b.Prompted {
		r.t.Errorf("the cleared session counts as prompted before any prompt: %s", fmtBinding(b))
	}
	if b.EndReason != "" {
		r.t.Errorf("/clear ended the binding: %s", fmtBinding(b))
	}
	r.res.note("/clear: %s → %s", shortID(first.id), shortID(b.SessionID))
	s.id = b.SessionID
	// Hooks from the new SessionStart on belong to the new session (the
	// SessionEnd(clear) before it carries the old id).
	for _, c := range r.calls(s.tid) {
		if c.Event == "SessionStart" && c.SessionID == s.id {
			s.since = c.At
		}
	}
	r.waitShows(s.tid, startTimeout, p.ready...)
	time.Sleep(500 * time.Millisecond)
	prompt(r, &s, "CHERRY")
	onDisk(r, s)
	r.killTerminal(s.tid)
	b = waitEnded(r, s.tid)
	record(r, s.tid)
	recordBinding(r, b)
	expectCandidate(r, s, b)
	res := resumeAndCheck(r, s, true)
	if r.screen(res.TerminalID).Shows(first.codeword) {
		r.t.Errorf("the resumed pane shows %s from before /clear: the old session was resumed", first.codeword)
	} else {
		r.res.AfterResume += "; not the pre-/clear codeword"
	}
	if !strings.Contains(strings.Join(res.Argv, " "), "--resume "+s.id) {
		r.t.Errorf("resume argv %q", res.Argv)
	}
	record(r, s.tid, res.TerminalID)
}
