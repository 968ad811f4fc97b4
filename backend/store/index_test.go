package store

import (
	"strings"
	"testing"

	"gorm.io/gorm"
)

// The per-binding lookups must be index searches, never table scans: with
// a long history (100,000 ended terminals) a scan costs tens of ms per
// binding shown. TerminalRestoredFrom scanned terminals before migration 5.
func TestBindingLookupsUseIndexes(t *testing.T) {
	s := openTest(t)
	var t0 Terminal
	var p paneRow
	var r bindingRow
	for name, q := range map[string]func(tx *gorm.DB) *gorm.DB{
		"TerminalRestoredFrom": func(tx *gorm.DB) *gorm.DB {
			return terminalsWithPane(tx).Where("terminals.restored_from = ?", "x").Order("terminals.created_at DESC").Take(&t0)
		},
		"GetTerminal":       func(tx *gorm.DB) *gorm.DB { return terminalsWithPane(tx).Where("terminals.id = ?", "x").Take(&t0) },
		"PaneIDForTerminal": func(tx *gorm.DB) *gorm.DB { return tx.Where("terminal_id = ?", "x").Take(&p) },
		"GetBinding":        func(tx *gorm.DB) *gorm.DB { return tx.Where("terminal_id = ?", "x").Take(&r) },
	} {
		sql := s.db.ToSQL(q)
		var plan []struct{ Detail string }
		if err := s.db.Raw("EXPLAIN QUERY PLAN " + sql).Scan(&plan).Error; err != nil {
			t.Fatal(err)
		}
		for _, row := range plan {
			if strings.HasPrefix(row.Detail, "SCAN") {
				t.Errorf("%s: %s\n%s", name, row.Detail, sql)
			}
		}
	}
}
