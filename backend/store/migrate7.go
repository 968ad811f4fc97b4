package store

import (
	"time"

	"gorm.io/gorm"
)

// Migration 7: the last thing a binding's hooks said about the agent's turn
// (payload.Activity*: prompt, tool, needs-input, stop, failed …) and when.
// last_event alone cannot tell these apart: a PreToolUse, a permission
// Notification and an idle reminder are all "other" to the truth table, and
// the latest one would hide the one that matters.
type bindingV7 struct {
	Activity   string     `gorm:"column:activity;not null;default:''"`
	ActivityAt *time.Time `gorm:"column:activity_at"`
}

func (bindingV7) TableName() string { return "bindings" }

func migrate7(tx *gorm.DB) error {
	if err := tx.Migrator().AddColumn(&bindingV7{}, "Activity"); err != nil {
		return err
	}
	return tx.Migrator().AddColumn(&bindingV7{}, "ActivityAt")
}
