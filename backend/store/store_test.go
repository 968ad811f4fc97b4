package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/reprise-dev/reprise/backend/bindings"
)

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// openAt opens a store at path and closes it when the test ends.
func openAt(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(t.Context(), path, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func openTest(t *testing.T) *Store {
	return openAt(t, filepath.Join(t.TempDir(), "reprise.db"))
}

func TestOpenCreatesPrivateParentDir(t *testing.T) {
	// Characters that mean something in a URI must survive into the file name.
	dir := filepath.Join(t.TempDir(), "a b?c#d%e", "state")
	path := filepath.Join(dir, "reprise.db")
	openAt(t, path)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("parent dir mode = %v, want 0700", perm)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not at %s: %v", path, err)
	}
}

func TestOpenFailsOnUnusablePath(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), filepath.Join(file, "reprise.db"), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "open store") {
		t.Fatalf("Open under a file = %v, want an open store error", err)
	}
}

// Every pooled connection must carry the pragmas, not just the first one.
func TestPragmasOnEveryConnection(t *testing.T) {
	s := openTest(t)
	sqlDB, err := s.db.DB()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	const n = 4
	for i := range n {
		// Holding every connection open forces the pool to make n of them.
		conn, err := sqlDB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, p := range []struct{ pragma, want string }{
			{"journal_mode", "wal"},
			{"busy_timeout", "5000"},
			{"foreign_keys", "1"},
			{"synchronous", "1"},
		} {
			var got string
			if err := conn.QueryRowContext(ctx, "PRAGMA "+p.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != p.want {
				t.Errorf("connection %d: PRAGMA %s = %q, want %q", i, p.pragma, got, p.want)
			}
		}
	}
	if st := sqlDB.Stats(); st.OpenConnections < n {
		t.Fatalf("only %d connections open, test did not exercise the pool", st.OpenConnections)
	}
}

func TestDBErr(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	if err := s.db.WithContext(ctx).Create(&settingRow{Key: "k", Value: "1"}).Error; err != nil {
		t.Fatal(err)
	}
	dup := s.db.WithContext(ctx).Create(&settingRow{Key: "k", Value: "2"}).Error
	fk := s.db.WithContext(ctx).Create(&paneRow{ID: "p", TabID: "nope", TerminalID: "nope"}).Error
	other := errors.New("disk on fire")
	tests := []struct {
		name string
		in   error
		want error
	}{
		{"nil", nil, nil},
		{"record not found", gorm.ErrRecordNotFound, ErrNotFound},
		{"wrapped record not found", fmt.Errorf("x: %w", gorm.ErrRecordNotFound), ErrNotFound},
		{"primary key", dup, ErrConflict},
		{"foreign key", fk, ErrConflict},
		{"other", other, other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := dbErr(tt.in)
			if tt.want == nil {
				if got != nil {
					t.Fatalf("dbErr = %v, want nil", got)
				}
				return
			}
			if !errors.Is(got, tt.want) {
				t.Fatalf("dbErr(%v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestSettings(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	steps := []struct {
		name    string
		set     *string
		key     string
		want    string
		wantSet bool
	}{
		{name: "missing", key: "resume", wantSet: false},
		{name: "set", set: ptr("banner"), key: "resume", want: "banner", wantSet: true},
		{name: "overwrite", set: ptr("auto"), key: "resume", want: "auto", wantSet: true},
		{name: "empty value is a value", set: ptr(""), key: "resume", want: "", wantSet: true},
		{name: "other key untouched", key: "scrollback", wantSet: false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.set != nil {
				if err := s.SetSetting(ctx, st.key, *st.set); err != nil {
					t.Fatal(err)
				}
			}
			got, ok, err := s.GetSetting(ctx, st.key)
			if err != nil {
				t.Fatal(err)
			}
			if got != st.want || ok != st.wantSet {
				t.Errorf("GetSetting = %q, %v; want %q, %v", got, ok, st.want, st.wantSet)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// Two Stores on one file (as the app and a hook process would have) writing
// at once must wait for each other, never fail with "database is locked".
func TestTwoStoresWriteConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reprise.db")
	var stores [2]*Store
	var wg sync.WaitGroup
	var openErrs [2]error
	for i := range stores {
		wg.Go(func() {
			// Opening a fresh file from both sides also races the migration.
			stores[i], openErrs[i] = Open(t.Context(), path, testLogger(t))
		})
	}
	wg.Wait()
	for i, err := range openErrs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		t.Cleanup(func() { stores[i].Close() })
	}

	ctx := t.Context()
	const perWorker = 60
	errs := make(chan error, 4*perWorker*3)
	for si, s := range stores {
		for w := range 2 {
			wg.Go(func() {
				for k := range perWorker {
					id := fmt.Sprintf("term-%d-%d-%d", si, w, k)
					if _, err := s.CreateTerminal(ctx, Terminal{ID: id, Argv: []string{"sh"}}); err != nil {
						errs <- err
					}
					if err := s.SetSetting(ctx, fmt.Sprintf("k%d", k%5), id); err != nil {
						errs <- err
					}
					if _, err := s.MarkTerminalEnded(ctx, id, "exited", ptr(0), "", time.Now()); err != nil {
						errs <- err
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ts, err := stores[0].ListTerminals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 4*perWorker {
		t.Errorf("%d terminals, want %d", len(ts), 4*perWorker)
	}
}

// A binding's activity survives the truth table's writes (they do not know
// the column) and lists by terminal.
func TestBindingActivity(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, err := s.CreateTerminal(ctx, Terminal{ID: "t_a", Argv: []string{"sh"}}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	apply := func(kind string, at time.Time) {
		t.Helper()
		if _, _, err := s.ApplyBinding(ctx, "t_a", func(cur *bindings.Binding) (bindings.Binding, bool) {
			next, _, changed := bindings.Decide(cur, bindings.Input{Kind: kind, AgentID: "claude", SessionID: "s1", At: at})
			return next, changed
		}); err != nil {
			t.Fatal(err)
		}
	}
	apply(bindings.KindSessionStart, at)
	if got, err := s.Activities(ctx); err != nil || len(got) != 0 {
		t.Fatalf("activities before any: %v, %v", got, err)
	}
	if err := s.SetActivity(ctx, "t_a", "needs-input", at.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	apply(bindings.KindOther, at.Add(2*time.Second))
	got, err := s.Activities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a := got["t_a"]; a.Activity != "needs-input" || !a.At.Equal(at.Add(time.Second)) || len(got) != 1 {
		t.Errorf("activities = %+v, want t_a needs-input at %v", got, at.Add(time.Second))
	}
}
