package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
)

func appliedVersions(t *testing.T, s *Store) []schemaMigration {
	t.Helper()
	var rows []schemaMigration
	if err := s.db.WithContext(t.Context()).Order("version").Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestMigrationsAreNumberedInOrder(t *testing.T) {
	for i, m := range migrations {
		if m.Version != i+1 || m.Name == "" || m.Up == nil {
			t.Errorf("migration %d = {%d %q}, want version %d with a name and Up", i, m.Version, m.Name, i+1)
		}
	}
}

func TestMigrateFromEmpty(t *testing.T) {
	s := openTest(t)
	rows := appliedVersions(t, s)
	if len(rows) != len(migrations) || rows[len(rows)-1].Version != len(migrations) {
		t.Fatalf("applied %v, want versions 1..%d", rows, len(migrations))
	}
	var tables []string
	if err := s.db.Raw("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").Scan(&tables).Error; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"layout_meta", "panes", "schema_migrations", "settings", "tabs", "terminals"} {
		if !slices.Contains(tables, want) {
			t.Errorf("table %s missing; have %v", want, tables)
		}
	}

	cols := func(table string) []string {
		var rows []struct {
			Name    string
			NotNull int `gorm:"column:notnull"`
		}
		if err := s.db.Raw("SELECT name, \"notnull\" FROM pragma_table_info(?) ORDER BY cid", table).Scan(&rows).Error; err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Name)
		}
		return out
	}
	wantCols := map[string][]string{
		"terminals":   {"id", "pid", "cwd", "argv", "status", "exit_code", "exit_signal", "created_at", "ended_at", "restored_from", "restored_ended_at", "title", "host"},
		"hosts":       {"name", "ssh", "remote_home", "ssh_config", "created_at"},
		"tabs":        {"id", "position", "title", "root", "focused_pane_id"},
		"panes":       {"id", "tab_id", "terminal_id"},
		"layout_meta": {"id", "version", "active_tab_id"},
		"settings":    {"key", "value"},
	}
	for table, want := range wantCols {
		if got := cols(table); !reflect.DeepEqual(got, want) {
			t.Errorf("%s columns = %v, want %v", table, got, want)
		}
	}

	type fk struct {
		Table    string `gorm:"column:table"`
		From     string `gorm:"column:from"`
		To       string `gorm:"column:to"`
		OnDelete string `gorm:"column:on_delete"`
	}
	var fks []fk
	if err := s.db.Raw(`SELECT "table", "from", "to", on_delete FROM pragma_foreign_key_list('panes') ORDER BY "from"`).Scan(&fks).Error; err != nil {
		t.Fatal(err)
	}
	wantFKs := []fk{
		{Table: "tabs", From: "tab_id", To: "id", OnDelete: "CASCADE"},
		{Table: "terminals", From: "terminal_id", To: "id", OnDelete: "NO ACTION"},
	}
	if !reflect.DeepEqual(fks, wantFKs) {
		t.Errorf("panes foreign keys = %+v, want %+v", fks, wantFKs)
	}

	err := s.db.Exec("INSERT INTO layout_meta (id, version, active_tab_id) VALUES (2, 1, '')").Error
	if err == nil {
		t.Error("layout_meta accepted a second row")
	}
}

func TestReopenIsNoop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reprise.db")
	s, err := Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := appliedVersions(t, s)
	if err := s.SetSetting(t.Context(), "k", "v"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s2 := openAt(t, path)
	if after := appliedVersions(t, s2); !reflect.DeepEqual(before, after) {
		t.Errorf("reopen changed schema_migrations: %v -> %v", before, after)
	}
	if v, ok, err := s2.GetSetting(t.Context(), "k"); err != nil || !ok || v != "v" {
		t.Errorf("data lost on reopen: %q %v %v", v, ok, err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reprise.db")
	s, err := Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	future := len(migrations) + 41
	if err := s.db.Create(&schemaMigration{Version: future, AppliedAt: time.Now()}).Error; err != nil {
		t.Fatal(err)
	}
	s.Close()

	_, err = Open(t.Context(), path, nil)
	want := fmt.Sprintf("database schema version %d is newer than this Reprise (max %d)", future, len(migrations))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Open = %v, want error containing %q", err, want)
	}
}

// A migration that fails must leave neither its changes nor its version
// behind, and a later run must pick up from there.
func TestMigrationRunsInTransaction(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	type widgetV2 struct {
		ID string `gorm:"column:id;primaryKey"`
	}
	boom := errors.New("boom")
	next := len(migrations) + 1
	failing := append(slices.Clone(migrations), migration{Version: next, Name: "widgets", Up: func(tx *gorm.DB) error {
		if err := tx.Table("widgets").Migrator().CreateTable(&widgetV2{}); err != nil {
			return err
		}
		return boom
	}})
	if err := migrate(ctx, s.db, failing, s.log); !errors.Is(err, boom) {
		t.Fatalf("migrate = %v, want boom", err)
	}
	if s.db.Migrator().HasTable("widgets") {
		t.Error("failed migration left its table behind")
	}
	if rows := appliedVersions(t, s); len(rows) != len(migrations) {
		t.Errorf("failed migration recorded: %v", rows)
	}

	ran := 0
	working := append(slices.Clone(migrations), migration{Version: next, Name: "widgets", Up: func(tx *gorm.DB) error {
		ran++
		return tx.Table("widgets").Migrator().CreateTable(&widgetV2{})
	}})
	for range 2 {
		if err := migrate(ctx, s.db, working, s.log); err != nil {
			t.Fatal(err)
		}
	}
	if ran != 1 {
		t.Errorf("migration %d ran %d times, want 1", next, ran)
	}
	if !s.db.Migrator().HasTable("widgets") {
		t.Error("migration 2 did not create its table")
	}
}

func TestMigrateRejectsMisnumberedList(t *testing.T) {
	s := openTest(t)
	bad := []migration{{Version: 1, Name: "a", Up: migrate1}, {Version: 3, Name: "c", Up: migrate1}}
	if err := migrate(t.Context(), s.db, bad, s.log); err == nil {
		t.Fatal("migrate accepted a gap in versions")
	}
}
