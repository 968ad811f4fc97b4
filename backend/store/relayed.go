package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// RelayMark names one hook record relayed from a remote host's inbox.
type RelayMark struct {
	Host string
	Name string
}

// relayedKeep bounds the marks kept per host: far more than can be in
// flight when a link drops (the remote sends one record at a time and
// deletes it on its ack), so a record that comes again is always found.
const relayedKeep = 4096

type relayedRecord struct {
	ID        int64  `gorm:"column:id;primaryKey;autoIncrement"`
	Host      string `gorm:"column:host"`
	Name      string `gorm:"column:name"`
	AppliedAt int64  `gorm:"column:applied_at"`
}

func (relayedRecord) TableName() string { return "relayed_records" }

func markRelayed(tx *gorm.DB, m RelayMark) error {
	if m.Host == "" || m.Name == "" {
		return errors.New("relayed record: empty host or name")
	}
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&relayedRecord{Host: m.Host, Name: m.Name, AppliedAt: time.Now().UnixMilli()})
	if res.Error != nil {
		return dbErr(res.Error)
	}
	if res.RowsAffected == 0 {
		return nil
	}
	// The oldest marks of the host beyond the bound go.
	return dbErr(tx.Exec(`DELETE FROM relayed_records WHERE host = ? AND id <= (SELECT id FROM relayed_records WHERE host = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
		m.Host, m.Host, relayedKeep).Error)
}

// MarkRelayed records that a relayed hook record was applied (idempotent).
func (s *Store) MarkRelayed(ctx context.Context, m RelayMark) error {
	return markRelayed(s.db.WithContext(ctx), m)
}

// RelayApplied says whether a relayed hook record was applied before.
func (s *Store) RelayApplied(ctx context.Context, m RelayMark) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&relayedRecord{}).Where("host = ? AND name = ?", m.Host, m.Name).Count(&n).Error
	return n > 0, dbErr(err)
}
