package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/layout"
)

type tabRow struct {
	ID            string `gorm:"column:id;primaryKey"`
	Position      int    `gorm:"column:position"`
	Title         string `gorm:"column:title"`
	Root          string `gorm:"column:root"`
	FocusedPaneID string `gorm:"column:focused_pane_id"`
}

func (tabRow) TableName() string { return "tabs" }

type paneRow struct {
	ID         string `gorm:"column:id;primaryKey"`
	TabID      string `gorm:"column:tab_id"`
	TerminalID string `gorm:"column:terminal_id"`
}

func (paneRow) TableName() string { return "panes" }

// layoutMetaID is the primary key of the one layout_meta row.
const layoutMetaID = 1

type layoutMetaRow struct {
	ID          int    `gorm:"column:id;primaryKey;autoIncrement:false"`
	Version     int64  `gorm:"column:version"`
	ActiveTabID string `gorm:"column:active_tab_id"`
}

func (layoutMetaRow) TableName() string { return "layout_meta" }

// LoadLayout returns the saved layout, or an empty one with version 0 when
// none has been saved.
func (s *Store) LoadLayout(ctx context.Context) (*api.Layout, error) {
	l := &api.Layout{Tabs: []*api.Tab{}}
	// One transaction so the version matches the tabs read with it.
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var meta layoutMetaRow
		err := tx.Where("id = ?", layoutMetaID).Take(&meta).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
		case err != nil:
			return dbErr(err)
		default:
			l.Version, l.ActiveTabID = meta.Version, meta.ActiveTabID
		}
		var rows []tabRow
		if err := tx.Order("position").Find(&rows).Error; err != nil {
			return dbErr(err)
		}
		for _, r := range rows {
			t := &api.Tab{ID: r.ID, Title: r.Title, FocusedPaneID: r.FocusedPaneID}
			if err := json.Unmarshal([]byte(r.Root), &t.Root); err != nil {
				return fmt.Errorf("tab %q root: %w", r.ID, err)
			}
			l.Tabs = append(l.Tabs, t)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load layout: %w", err)
	}
	return l, nil
}

// SaveLayout replaces the saved layout with l if the stored version is still
// expectedVersion (0 when none is saved), and returns a copy of l carrying
// the new version, expectedVersion+1. A stale expectedVersion is ErrConflict:
// the caller reloads, reapplies its change and retries. l must pass
// layout.Validate, and every terminal it shows must exist (else ErrNotFound).
func (s *Store) SaveLayout(ctx context.Context, l *api.Layout, expectedVersion int64) (*api.Layout, error) {
	if err := layout.Validate(l); err != nil {
		return nil, fmt.Errorf("save layout: %w", err)
	}
	out := layout.Clone(l)
	out.Version = expectedVersion + 1

	tabs := make([]tabRow, 0, len(out.Tabs))
	for i, t := range out.Tabs {
		root, err := json.Marshal(t.Root)
		if err != nil {
			return nil, fmt.Errorf("save layout: tab %q: %w", t.ID, err)
		}
		tabs = append(tabs, tabRow{ID: t.ID, Position: i, Title: t.Title, Root: string(root), FocusedPaneID: t.FocusedPaneID})
	}
	refs := layout.Panes(out)
	panes := make([]paneRow, 0, len(refs))
	termIDs := make([]string, 0, len(refs))
	for _, p := range refs {
		panes = append(panes, paneRow{ID: p.PaneID, TabID: p.TabID, TerminalID: p.TerminalID})
		termIDs = append(termIDs, p.TerminalID)
	}

	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var current int64
		if err := tx.Model(&layoutMetaRow{}).Where("id = ?", layoutMetaID).
			Select("COALESCE(MAX(version), 0)").Scan(&current).Error; err != nil {
			return dbErr(err)
		}
		if current != expectedVersion {
			return fmt.Errorf("stored version is %d, not %d: %w", current, expectedVersion, ErrConflict)
		}
		if len(termIDs) > 0 {
			var found []string
			if err := tx.Model(&Terminal{}).Where("id IN ?", termIDs).Pluck("id", &found).Error; err != nil {
				return dbErr(err)
			}
			if len(found) != len(termIDs) {
				have := make(map[string]bool, len(found))
				for _, id := range found {
					have[id] = true
				}
				for _, p := range refs {
					if !have[p.TerminalID] {
						return fmt.Errorf("pane %q: terminal %q: %w", p.PaneID, p.TerminalID, ErrNotFound)
					}
				}
			}
		}
		// Deleting the tabs cascades to their panes.
		if err := tx.Exec("DELETE FROM tabs").Error; err != nil {
			return dbErr(err)
		}
		if len(tabs) > 0 {
			if err := tx.Create(&tabs).Error; err != nil {
				return dbErr(err)
			}
		}
		if len(panes) > 0 {
			if err := tx.Create(&panes).Error; err != nil {
				return dbErr(err)
			}
		}
		meta := layoutMetaRow{ID: layoutMetaID, Version: out.Version, ActiveTabID: out.ActiveTabID}
		return dbErr(tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&meta).Error)
	})
	if err != nil {
		return nil, fmt.Errorf("save layout: %w", err)
	}
	return out, nil
}

// PaneIDForTerminal returns the pane of the saved layout that shows
// terminalID, or ErrNotFound.
func (s *Store) PaneIDForTerminal(ctx context.Context, terminalID string) (string, error) {
	var p paneRow
	if err := s.db.WithContext(ctx).Where("terminal_id = ?", terminalID).Take(&p).Error; err != nil {
		return "", fmt.Errorf("pane for terminal %q: %w", terminalID, dbErr(err))
	}
	return p.ID, nil
}
