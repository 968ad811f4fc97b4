package store

import "gorm.io/gorm"

// Migration 9: the text of a session's first prompt (what the hooks said the
// user typed first, bounded by the hook parser), so Sessions can tell
// conversations apart and search over them.
type agentSessionV9 struct {
	FirstPrompt string `gorm:"column:first_prompt;not null;default:''"`
}

func (agentSessionV9) TableName() string { return "agent_sessions" }

func migrate9(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&agentSessionV9{}, "FirstPrompt")
}
