package store

import "gorm.io/gorm"

// Migration 8: remote hosts (issue 18). A host is a name and how the system
// ssh reaches it; a terminal records the host its daemon runs on (” is
// this machine), so the supervisor of that endpoint, and only it, decides
// whether the terminal still lives.
type hostV8 struct {
	Name       string `gorm:"column:name;primaryKey"`
	SSH        string `gorm:"column:ssh;not null"`
	RemoteHome string `gorm:"column:remote_home;not null;default:''"`
	SSHConfig  string `gorm:"column:ssh_config;not null;default:''"`
	CreatedAt  int64  `gorm:"column:created_at;not null"`
}

func (hostV8) TableName() string { return "hosts" }

type terminalV8 struct {
	Host string `gorm:"column:host;not null;default:''"`
}

func (terminalV8) TableName() string { return "terminals" }

func migrate8(tx *gorm.DB) error {
	if err := tx.Migrator().CreateTable(&hostV8{}); err != nil {
		return err
	}
	return tx.Migrator().AddColumn(&terminalV8{}, "Host")
}
