package store

import "gorm.io/gorm"

// Migration 4: where the agent says it keeps the session's conversation
// (the hooks' transcript_path), so a resume is offered only for a
// conversation that was saved.
type bindingV4 struct {
	Transcript string `gorm:"column:transcript;not null;default:''"`
}

func (bindingV4) TableName() string { return "bindings" }

func migrate4(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&bindingV4{}, "Transcript")
}
