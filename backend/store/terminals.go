package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"github.com/reprise-dev/reprise/backend/api"
)

// Terminal is the stored row of one pty session.
type Terminal struct {
	ID              string     `gorm:"column:id;primaryKey"`
	PID             int        `gorm:"column:pid"`
	Cwd             string     `gorm:"column:cwd"`
	Argv            []string   `gorm:"column:argv;serializer:json"`
	Status          string     `gorm:"column:status"`
	ExitCode        *int       `gorm:"column:exit_code"`
	ExitSignal      string     `gorm:"column:exit_signal"`
	CreatedAt       time.Time  `gorm:"column:created_at"`
	EndedAt         *time.Time `gorm:"column:ended_at"`
	RestoredFrom    string     `gorm:"column:restored_from"`
	RestoredEndedAt *time.Time `gorm:"column:restored_ended_at"`
	Title           string     `gorm:"column:title"`
	// Host is the remote host whose daemon runs the terminal; '' is this machine.
	Host string `gorm:"column:host"`
	// PaneID is the pane showing the terminal in the saved layout, if any.
	// It is read from the panes table, never written.
	PaneID string `gorm:"column:pane_id;->"`
}

func (Terminal) TableName() string { return "terminals" }

// ToAPI converts t for clients. Title has no api field yet and is dropped.
func (t Terminal) ToAPI() api.Terminal {
	return api.Terminal{
		ID:              t.ID,
		PID:             t.PID,
		Cwd:             t.Cwd,
		Argv:            slices.Clone(t.Argv),
		Status:          t.Status,
		ExitCode:        clonePtr(t.ExitCode),
		ExitSignal:      t.ExitSignal,
		CreatedAt:       t.CreatedAt,
		EndedAt:         clonePtr(t.EndedAt),
		RestoredFrom:    t.RestoredFrom,
		RestoredEndedAt: clonePtr(t.RestoredEndedAt),
		PaneID:          t.PaneID,
		Host:            t.Host,
	}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// utc strips the monotonic reading and zone so that stored text sorts in
// time order and reads back equal.
func utc(t time.Time) time.Time { return t.UTC().Round(0) }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := utc(*t)
	return &v
}

func validStatus(s string) bool {
	switch s {
	case api.StatusRunning, api.StatusExited, api.StatusLost, api.StatusClosed:
		return true
	}
	return false
}

// CreateTerminal inserts t and returns it as stored. An empty Status means
// running and a zero CreatedAt means now. A duplicate id is ErrConflict.
func (s *Store) CreateTerminal(ctx context.Context, t Terminal) (Terminal, error) {
	if t.ID == "" {
		return Terminal{}, fmt.Errorf("create terminal: empty id")
	}
	if t.Status == "" {
		t.Status = api.StatusRunning
	}
	if !validStatus(t.Status) {
		return Terminal{}, fmt.Errorf("create terminal %q: unknown status %q", t.ID, t.Status)
	}
	if t.Argv == nil {
		t.Argv = []string{}
	} else {
		t.Argv = slices.Clone(t.Argv)
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = time.Now()
	}
	t.CreatedAt = utc(t.CreatedAt)
	t.EndedAt, t.RestoredEndedAt = utcPtr(t.EndedAt), utcPtr(t.RestoredEndedAt)
	t.ExitCode = clonePtr(t.ExitCode)
	t.PaneID = ""
	if err := s.db.WithContext(ctx).Create(&t).Error; err != nil {
		return Terminal{}, fmt.Errorf("create terminal %q: %w", t.ID, dbErr(err))
	}
	return t, nil
}

// terminalsWithPane selects terminals with the pane that shows each one.
func terminalsWithPane(db *gorm.DB) *gorm.DB {
	return db.Model(&Terminal{}).
		Select("terminals.*, COALESCE(panes.id, '') AS pane_id").
		Joins("LEFT JOIN panes ON panes.terminal_id = terminals.id")
}

// GetTerminal returns the terminal with id, or ErrNotFound.
func (s *Store) GetTerminal(ctx context.Context, id string) (Terminal, error) {
	var t Terminal
	err := terminalsWithPane(s.db.WithContext(ctx)).Where("terminals.id = ?", id).Take(&t).Error
	if err != nil {
		return Terminal{}, fmt.Errorf("get terminal %q: %w", id, dbErr(err))
	}
	return t, nil
}

// ListTerminals returns every terminal, oldest first.
func (s *Store) ListTerminals(ctx context.Context) ([]Terminal, error) {
	ts := []Terminal{}
	err := terminalsWithPane(s.db.WithContext(ctx)).Order("terminals.created_at, terminals.id").Find(&ts).Error
	if err != nil {
		return nil, fmt.Errorf("list terminals: %w", dbErr(err))
	}
	return ts, nil
}

// SetTerminalPID records the pid of a terminal's first process.
func (s *Store) SetTerminalPID(ctx context.Context, id string, pid int) error {
	res := s.db.WithContext(ctx).Model(&Terminal{}).Where("id = ?", id).Update("pid", pid)
	if res.Error != nil {
		return fmt.Errorf("set terminal %q pid: %w", id, dbErr(res.Error))
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("set terminal %q pid: %w", id, ErrNotFound)
	}
	return nil
}

// SetTerminalCwd records where a running terminal's shell is now, so a
// pane restored after the terminal dies starts in the same directory.
func (s *Store) SetTerminalCwd(ctx context.Context, id, cwd string) error {
	res := s.db.WithContext(ctx).Model(&Terminal{}).Where("id = ? AND status = ?", id, api.StatusRunning).Update("cwd", cwd)
	if res.Error != nil {
		return fmt.Errorf("set terminal %q cwd: %w", id, dbErr(res.Error))
	}
	return nil
}

// MarkTerminalEnded records how a running terminal ended. It is a
// compare-and-set on status = running: the pty exit, a daemon-disconnect
// sweep and boot reconciliation may all report the same death, and only the
// first one to arrive is recorded. changed tells the caller whether it won.
// A terminal that does not exist is ErrNotFound.
func (s *Store) MarkTerminalEnded(ctx context.Context, id, status string, exitCode *int, exitSignal string, endedAt time.Time) (changed bool, err error) {
	if status == api.StatusRunning || !validStatus(status) {
		return false, fmt.Errorf("mark terminal %q ended: status %q is not an end status", id, status)
	}
	if endedAt.IsZero() {
		endedAt = time.Now()
	}
	db := s.db.WithContext(ctx)
	res := db.Model(&Terminal{}).
		Where("id = ? AND status = ?", id, api.StatusRunning).
		Updates(map[string]any{
			"status":      status,
			"exit_code":   clonePtr(exitCode),
			"exit_signal": exitSignal,
			"ended_at":    utc(endedAt),
		})
	if res.Error != nil {
		return false, fmt.Errorf("mark terminal %q ended: %w", id, dbErr(res.Error))
	}
	if res.RowsAffected > 0 {
		return true, nil
	}
	var n int64
	if err := db.Model(&Terminal{}).Where("id = ?", id).Count(&n).Error; err != nil {
		return false, fmt.Errorf("mark terminal %q ended: %w", id, dbErr(err))
	}
	if n == 0 {
		return false, fmt.Errorf("mark terminal %q ended: %w", id, ErrNotFound)
	}
	return false, nil
}

// DeleteTerminal removes a terminal row. It is ErrConflict while a pane of
// the saved layout shows the terminal: save a layout without it first.
func (s *Store) DeleteTerminal(ctx context.Context, id string) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var paneIDs []string
		if err := tx.Table("panes").Where("terminal_id = ?", id).Limit(1).Pluck("id", &paneIDs).Error; err != nil {
			return dbErr(err)
		}
		if len(paneIDs) > 0 {
			return fmt.Errorf("shown in pane %q: %w", paneIDs[0], ErrConflict)
		}
		res := tx.Where("id = ?", id).Delete(&Terminal{})
		if res.Error != nil {
			return dbErr(res.Error)
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete terminal %q: %w", id, err)
	}
	return nil
}
