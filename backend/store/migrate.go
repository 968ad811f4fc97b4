package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"gorm.io/gorm"
)

// migration is one numbered schema change. Up runs in its own transaction
// together with the row that records it, so a failed migration leaves no
// trace. Each Up uses its own frozen copies of the structs it touches:
// live models change over time, and an old migration must keep producing
// the schema it produced when it was written.
type migration struct {
	Version int
	Name    string
	Up      func(tx *gorm.DB) error
}

// migrations is the ordered schema history. Append only; never edit an entry
// that has shipped.
var migrations = []migration{
	{Version: 1, Name: "terminals, layout, settings", Up: migrate1},
	{Version: 2, Name: "agent configs, bindings, agent sessions", Up: migrate2},
	{Version: 3, Name: "resume outcomes", Up: migrate3},
	{Version: 4, Name: "binding transcript path", Up: migrate4},
	{Version: 5, Name: "terminals restored_from index", Up: migrate5},
	{Version: 6, Name: "binding exit status, unconfirmed resumes, outcome detail", Up: migrate6},
	{Version: 7, Name: "binding activity", Up: migrate7},
	{Version: 8, Name: "remote hosts, terminal host", Up: migrate8},
	{Version: 9, Name: "agent session first prompt", Up: migrate9},
	{Version: 10, Name: "relayed hook records", Up: migrate10},
}

// schemaMigration records an applied migration.
type schemaMigration struct {
	Version   int       `gorm:"column:version;primaryKey;autoIncrement:false"`
	AppliedAt time.Time `gorm:"column:applied_at;not null"`
}

func (schemaMigration) TableName() string { return "schema_migrations" }

// migrate applies the migrations in ms not yet recorded in db. It refuses a
// database already migrated past the last one it knows: an older binary
// must not write to a schema it does not understand.
func migrate(ctx context.Context, db *gorm.DB, ms []migration, log *slog.Logger) error {
	db = db.WithContext(ctx)
	// IF NOT EXISTS makes creating the bookkeeping table safe when two
	// processes open a fresh database at once.
	if err := db.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		applied_at DATETIME NOT NULL
	)`).Error; err != nil {
		return fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	latest := 0
	for i, m := range ms {
		if m.Version != i+1 {
			return fmt.Errorf("migrate: migration %q has version %d, want %d", m.Name, m.Version, i+1)
		}
		latest = m.Version
	}
	var current int
	if err := db.Model(&schemaMigration{}).Select("COALESCE(MAX(version), 0)").Scan(&current).Error; err != nil {
		return fmt.Errorf("migrate: read schema version: %w", err)
	}
	if current > latest {
		return fmt.Errorf("database schema version %d is newer than this Reprise (max %d)", current, latest)
	}
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		applied := false
		err := db.Transaction(func(tx *gorm.DB) error {
			// Another process may have applied it since we looked; the
			// transaction holds the write lock, so this check is final.
			var n int64
			if err := tx.Model(&schemaMigration{}).Where("version = ?", m.Version).Count(&n).Error; err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if err := m.Up(tx); err != nil {
				return err
			}
			applied = true
			return tx.Create(&schemaMigration{Version: m.Version, AppliedAt: time.Now().UTC()}).Error
		})
		if err != nil {
			return fmt.Errorf("migrate to version %d (%s): %w", m.Version, m.Name, err)
		}
		if applied {
			log.InfoContext(ctx, "applied migration", "version", m.Version, "name", m.Name)
		}
	}
	return nil
}

// Frozen structs for migration 1.

type terminalV1 struct {
	ID              string     `gorm:"column:id;primaryKey;not null"`
	PID             int        `gorm:"column:pid;not null;default:0"`
	Cwd             string     `gorm:"column:cwd;not null"`
	Argv            string     `gorm:"column:argv;not null"` // JSON array of strings
	Status          string     `gorm:"column:status;not null"`
	ExitCode        *int       `gorm:"column:exit_code"`
	ExitSignal      string     `gorm:"column:exit_signal;not null"`
	CreatedAt       time.Time  `gorm:"column:created_at;not null;index:idx_terminals_created_at"`
	EndedAt         *time.Time `gorm:"column:ended_at"`
	RestoredFrom    string     `gorm:"column:restored_from;not null"`
	RestoredEndedAt *time.Time `gorm:"column:restored_ended_at"`
	Title           string     `gorm:"column:title;not null"`
}

func (terminalV1) TableName() string { return "terminals" }

type tabV1 struct {
	ID            string `gorm:"column:id;primaryKey;not null"`
	Position      int    `gorm:"column:position;not null"`
	Title         string `gorm:"column:title;not null"`
	Root          string `gorm:"column:root;not null"` // JSON api.Node
	FocusedPaneID string `gorm:"column:focused_pane_id;not null"`
}

func (tabV1) TableName() string { return "tabs" }

// paneV1 mirrors the pane nodes of the saved layout so that SQL can answer
// "which pane shows this terminal" and refuse to delete a terminal in use.
type paneV1 struct {
	ID         string     `gorm:"column:id;primaryKey;not null"`
	TabID      string     `gorm:"column:tab_id;not null;index:idx_panes_tab_id"`
	TerminalID string     `gorm:"column:terminal_id;not null;uniqueIndex:idx_panes_terminal_id"`
	Tab        tabV1      `gorm:"foreignKey:TabID;references:ID;constraint:OnDelete:CASCADE"`
	Terminal   terminalV1 `gorm:"foreignKey:TerminalID;references:ID"`
}

func (paneV1) TableName() string { return "panes" }

type layoutMetaV1 struct {
	ID          int    `gorm:"column:id;primaryKey;autoIncrement:false;check:layout_meta_single_row,id = 1"`
	Version     int64  `gorm:"column:version;not null"`
	ActiveTabID string `gorm:"column:active_tab_id;not null"`
}

func (layoutMetaV1) TableName() string { return "layout_meta" }

type settingV1 struct {
	Key   string `gorm:"column:key;primaryKey;not null"`
	Value string `gorm:"column:value;not null"`
}

func (settingV1) TableName() string { return "settings" }

func migrate1(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, model := range []any{&terminalV1{}, &tabV1{}, &paneV1{}, &layoutMetaV1{}, &settingV1{}} {
		if err := m.CreateTable(model); err != nil {
			return err
		}
	}
	if !m.HasConstraint(&paneV1{}, "Tab") || !m.HasConstraint(&paneV1{}, "Terminal") {
		return errors.New("panes foreign keys were not created")
	}
	return nil
}
