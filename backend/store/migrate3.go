package store

import (
	"time"

	"gorm.io/gorm"
)

// Migration 3: what a resume led to, recorded on the binding of the
// terminal the agent was relaunched in.
type bindingV3 struct {
	ResumeOf      string     `gorm:"column:resume_of;not null;default:''"`
	Outcome       string     `gorm:"column:outcome;not null;default:''"`
	OutcomeDetail string     `gorm:"column:outcome_detail;not null;default:''"`
	OutcomeAt     *time.Time `gorm:"column:outcome_at"`
}

func (bindingV3) TableName() string { return "bindings" }

func migrate3(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, col := range []string{"ResumeOf", "Outcome", "OutcomeDetail", "OutcomeAt"} {
		if err := m.AddColumn(&bindingV3{}, col); err != nil {
			return err
		}
	}
	return nil
}
