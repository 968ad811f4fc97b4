package store

import "gorm.io/gorm"

// Migration 6 (issue 14, the truth paths):
//   - bindings.exit_status: the agent's own exit status as its launch
//     wrapper reported it, so a clean exit stays a goodbye when the
//     terminal dies afterwards (the death gasp must not override it);
//   - bindings.session_unconfirmed: a resume of a session id Reprise never
//     saw, not yet confirmed by the agent (no history row until it is);
//   - agent_sessions.last_outcome_detail: why the last resume came to what
//     it did (e.g. the launch failed), for the Sessions view.
type bindingV6 struct {
	ExitStatus         *int `gorm:"column:exit_status"`
	SessionUnconfirmed bool `gorm:"column:session_unconfirmed;not null;default:false"`
}

func (bindingV6) TableName() string { return "bindings" }

type agentSessionV6 struct {
	LastOutcomeDetail string `gorm:"column:last_outcome_detail;not null;default:''"`
}

func (agentSessionV6) TableName() string { return "agent_sessions" }

func migrate6(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, col := range []string{"ExitStatus", "SessionUnconfirmed"} {
		if err := m.AddColumn(&bindingV6{}, col); err != nil {
			return err
		}
	}
	return m.AddColumn(&agentSessionV6{}, "LastOutcomeDetail")
}
