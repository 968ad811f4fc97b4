package store

import "gorm.io/gorm"

// Migration 10: hook records relayed from a remote host's inbox that this
// host applied (issue 18). The remote deletes a record only on the host's
// ack; a record whose ack was lost (the link dropped, the host stopped)
// comes again, and its name here, written in the same transaction as the
// binding change it made, says it was applied: it is acked, not applied
// twice — also after a host restart.
type relayedRecordV10 struct {
	ID        int64  `gorm:"column:id;primaryKey;autoIncrement"`
	Host      string `gorm:"column:host;not null;uniqueIndex:idx_relayed_host_name"`
	Name      string `gorm:"column:name;not null;uniqueIndex:idx_relayed_host_name"`
	AppliedAt int64  `gorm:"column:applied_at;not null"`
}

func (relayedRecordV10) TableName() string { return "relayed_records" }

func migrate10(tx *gorm.DB) error {
	return tx.Migrator().CreateTable(&relayedRecordV10{})
}
