package store

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs for migration 2: agents, bindings, agent sessions.

type agentConfigV2 struct {
	ID              string    `gorm:"column:id;primaryKey;not null"`
	Label           string    `gorm:"column:label;not null"`
	Command         string    `gorm:"column:command;not null"`
	Args            string    `gorm:"column:args;not null"`        // JSON []string
	PromptArgs      string    `gorm:"column:prompt_args;not null"` // JSON []string
	PromptTransport string    `gorm:"column:prompt_transport;not null"`
	ResumeArgs      string    `gorm:"column:resume_args;not null"` // JSON []string; [] = cannot resume by id
	Env             string    `gorm:"column:env;not null"`         // JSON map[string]string
	SessionIDArgs   string    `gorm:"column:session_id_args;not null"`
	SessionIDKind   string    `gorm:"column:session_id_kind;not null"`
	Tracking        string    `gorm:"column:tracking;not null"`
	Builtin         bool      `gorm:"column:builtin;not null"`
	Position        int       `gorm:"column:position;not null"`
	Defaults        string    `gorm:"column:defaults;not null"` // JSON snapshot of the catalog entry the row follows; "" for custom agents
	CreatedAt       time.Time `gorm:"column:created_at;not null"`
	UpdatedAt       time.Time `gorm:"column:updated_at;not null"`
}

func (agentConfigV2) TableName() string { return "agent_configs" }

type bindingV2 struct {
	TerminalID  string     `gorm:"column:terminal_id;primaryKey;not null"`
	AgentID     string     `gorm:"column:agent_id;not null"`
	SessionID   string     `gorm:"column:session_id;not null;index:idx_bindings_session"`
	Cwd         string     `gorm:"column:cwd;not null"`
	StartedAt   time.Time  `gorm:"column:started_at;not null"`
	LastEventAt time.Time  `gorm:"column:last_event_at;not null"`
	LastEvent   string     `gorm:"column:last_event;not null"`
	Prompted    bool       `gorm:"column:prompted;not null"`
	EndedAt     *time.Time `gorm:"column:ended_at"`
	EndReason   string     `gorm:"column:end_reason;not null;index:idx_bindings_end_reason"`
	Version     int64      `gorm:"column:version;not null"`
	Terminal    terminalV1 `gorm:"foreignKey:TerminalID;references:ID;constraint:OnDelete:CASCADE"`
}

func (bindingV2) TableName() string { return "bindings" }

type agentSessionV2 struct {
	AgentID        string     `gorm:"column:agent_id;primaryKey;not null"`
	SessionID      string     `gorm:"column:session_id;primaryKey;not null"`
	Cwd            string     `gorm:"column:cwd;not null"`
	TerminalID     string     `gorm:"column:terminal_id;not null"`
	FirstSeenAt    time.Time  `gorm:"column:first_seen_at;not null"`
	FirstPromptAt  *time.Time `gorm:"column:first_prompt_at"`
	LastActivityAt time.Time  `gorm:"column:last_activity_at;not null;index:idx_agent_sessions_activity"`
	EndedAt        *time.Time `gorm:"column:ended_at"`
	EndReason      string     `gorm:"column:end_reason;not null"`
	LastOutcome    string     `gorm:"column:last_outcome;not null"`
}

func (agentSessionV2) TableName() string { return "agent_sessions" }

func migrate2(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, model := range []any{&agentConfigV2{}, &bindingV2{}, &agentSessionV2{}} {
		if err := m.CreateTable(model); err != nil {
			return err
		}
	}
	return nil
}
