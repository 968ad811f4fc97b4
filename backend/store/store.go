// Package store is the host's SQLite store: terminals, the window layout and
// settings. It is the single source of truth for them; state changes are
// conditional updates inside one transaction, so two writers (the app and a
// hook process, two sweeps) cannot leave a wrong state behind.
//
// GORM is used only inside this package; callers see plain structs, api
// types and the ErrNotFound/ErrConflict sentinels.
package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/mattn/go-sqlite3"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Sentinel errors, matched with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	// ErrConflict means the change lost a race or would break a constraint:
	// a stale layout version, a duplicate id, a terminal still in a pane.
	ErrConflict = errors.New("conflict")
)

// busyTimeout is how long a connection waits for another writer (this
// process or another one on the same file) before failing with "database is
// locked".
const busyTimeout = 5 * time.Second

// slowQuery is the duration above which a statement is logged.
const slowQuery = 500 * time.Millisecond

// Store is the SQLite store. It is safe for concurrent use, and several
// Stores (in one or more processes) may share a file.
type Store struct {
	db  *gorm.DB
	log *slog.Logger
}

// Open opens (creating if needed) the database at path and brings its
// schema up to date. A nil logger discards logs.
func Open(ctx context.Context, path string, logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("component", "store")
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	// Two processes opening a fresh database at once can meet SQLITE_BUSY
	// where no busy handler applies (switching the journal to WAL needs an
	// exclusive lock); that is transient, so retry it briefly.
	var s *Store
	for attempt := 0; ; attempt++ {
		s, err = openOnce(ctx, abs, logger)
		var se sqlite3.Error
		if err == nil || attempt == 9 || !errors.As(err, &se) || se.Code != sqlite3.ErrBusy {
			break
		}
		time.Sleep(time.Duration(20*(attempt+1)) * time.Millisecond)
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	return s, nil
}

func openOnce(ctx context.Context, abs string, logger *slog.Logger) (*Store, error) {
	db, err := gorm.Open(sqlite.Open(dsn(abs)), &gorm.Config{
		Logger: gormLogger{log: logger},
		// Single statements are atomic already; multi-statement changes use
		// explicit transactions.
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, log: logger}
	if err := migrate(ctx, db, migrations, logger); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// dsn builds a go-sqlite3 URI whose parameters are applied by the driver to
// every connection it opens, so no pooled connection can miss a pragma (a
// one-off PRAGMA after open would reach only one of them).
//
// _txlock=immediate makes every transaction take the write lock at BEGIN,
// where busy_timeout applies. A deferred transaction that reads and then
// writes would instead fail at once with SQLITE_BUSY when another writer got
// in between, which breaks read-check-write sequences like SaveLayout's.
func dsn(path string) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	q.Set("_foreign_keys", "on")
	q.Set("_synchronous", "NORMAL") // durable enough under WAL, far fewer fsyncs
	q.Set("_txlock", "immediate")
	q.Set("_loc", "UTC")
	u := url.URL{Path: filepath.ToSlash(path)}
	return "file:" + u.EscapedPath() + "?" + q.Encode()
}

// Close closes the database.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	if err := sqlDB.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// dbErr maps GORM and driver errors to the package sentinels. It is the one
// place that knows which SQLite codes mean what; the original error is kept
// in the chain for the message.
func dbErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNotFound
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.ExtendedCode {
		case sqlite3.ErrConstraintPrimaryKey, sqlite3.ErrConstraintUnique, sqlite3.ErrConstraintForeignKey:
			return fmt.Errorf("%w: %w", ErrConflict, err)
		}
	}
	return err
}

// gormLogger routes GORM's own messages to slog and reports slow statements.
// Failed statements are not logged here: their errors reach the caller.
type gormLogger struct{ log *slog.Logger }

func (g gormLogger) LogMode(logger.LogLevel) logger.Interface { return g }

func (g gormLogger) Info(context.Context, string, ...any) {}

func (g gormLogger) Warn(ctx context.Context, msg string, args ...any) {
	g.log.WarnContext(ctx, fmt.Sprintf(msg, args...))
}

func (g gormLogger) Error(ctx context.Context, msg string, args ...any) {
	g.log.ErrorContext(ctx, fmt.Sprintf(msg, args...))
}

func (g gormLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), _ error) {
	if elapsed := time.Since(begin); elapsed >= slowQuery {
		sql, rows := fc()
		g.log.WarnContext(ctx, "slow query", "elapsed", elapsed, "sql", sql, "rows", rows)
	}
}
