package conformance

import (
	"testing"
)

// Codex: Reprise installs its hooks in ~/.codex/hooks.json and passes
// --dangerously-bypass-hook-trust; SessionStart is lazy (the id arrives
// with the first prompt); `codex resume <id>` is a subcommand after the
// root flags; no SessionEnd on signals, so the launch wrapper's exit
// status decides.
func TestCodex(t *testing.T) {
	requireCLI(t, "codex")
	t.Run("kill-terminal", func(t *testing.T) { scenarioKillTerminal(t, "codex") })
	t.Run("kill-at-once", func(t *testing.T) { scenarioKillAtOnce(t, "codex", "Stop") })
	t.Run("kill-daemon", func(t *testing.T) { scenarioKillDaemon(t, "codex") })
	t.Run("quit", func(t *testing.T) { scenarioExit(t, "codex") })
	t.Run("agent-hangup", func(t *testing.T) { scenarioAgentHangup(t, "codex") })
	t.Run("cwd-gone", func(t *testing.T) { scenarioCwdGone(t, "codex") })
	t.Run("never-prompted", func(t *testing.T) { scenarioNeverPrompted(t, "codex") })
	t.Run("permission", func(t *testing.T) { scenarioPermission(t, "codex") })
	t.Run("closed-port", func(t *testing.T) {
		scenarioClosedPort(t, "codex", func(r *rig, s session) {
			// The rollout is written when the turn fails.
			r.waitShows(s.tid, turnTimeout, "Connection failed", "error sending request")
			onDisk(r, s)
		})
	})
}
