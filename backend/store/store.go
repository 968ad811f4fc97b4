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
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reprise-dev/reprise/backend/safefile"
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
	// ErrCorrupt means the database file is damaged (a bad header, a bad
	// page, a truncated file): Open refuses it and keeps a copy.
	ErrCorrupt = errors.New("database file is damaged")
)

// kindError is a sentence for the user that errors.Is still matches with
// its sentinel: "%w" would end it in ": conflict", which the CLI and the
// window then show ("host "box" already exists (…): conflict").
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// conflictf is a conflict said as a whole sentence (see kindError).
func conflictf(format string, a ...any) error {
	return &kindError{msg: fmt.Sprintf(format, a...), kind: ErrConflict}
}

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
	if err := privateFiles(abs); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	// Two processes opening a fresh database at once can meet SQLITE_BUSY
	// where no busy handler applies (switching the journal to WAL needs an
	// exclusive lock); that is transient, so retry it briefly.
	var s *Store
	for attempt := 0; ; attempt++ {
		s, err = openOnce(ctx, abs, logger)
		if err == nil || attempt == 9 || !isBusy(err) {
			break
		}
		time.Sleep(time.Duration(20*(attempt+1)) * time.Millisecond)
	}
	if isCorrupt(err) {
		return nil, keepBroken(abs, err, logger)
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	return s, nil
}

// privateFiles makes the database 0600 before SQLite opens it: SQLite
// creates the -wal and -shm files with the database file's mode, so they
// follow. A database left 0644 by an older Reprise is tightened, with its
// companions. A symlink at the path is refused.
func privateFiles(abs string) error {
	f, err := safefile.OpenRW(abs, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	for _, p := range []string{abs + "-wal", abs + "-shm", abs + "-journal"} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() != 0o600 {
			_ = os.Chmod(p, 0o600)
		}
	}
	return nil
}

// isCorrupt: SQLite reports a damaged file (SQLITE_CORRUPT, SQLITE_NOTADB),
// or the integrity check did.
func isCorrupt(err error) bool {
	if errors.Is(err, ErrCorrupt) {
		return true
	}
	return isCorruptCode(err)
}

// fullCheckBelow: databases smaller than this get integrity_check (which
// also checks that indexes match their tables), larger ones the faster
// quick_check. Reprise's database is normally well under a megabyte.
const fullCheckBelow = 16 << 20

// checkIntegrity runs SQLite's own check of every page before anything is
// written, so a damaged file is refused at start rather than discovered by
// a failing query later.
func checkIntegrity(ctx context.Context, db *gorm.DB, abs string) error {
	pragma := "quick_check"
	if st, err := os.Stat(abs); err == nil && st.Size() < fullCheckBelow {
		pragma = "integrity_check"
	}
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	rows, err := sqlDB.QueryContext(ctx, "PRAGMA "+pragma+"(5)")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		problems = append(problems, line)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) == 1 && problems[0] == "ok" {
		return nil
	}
	return fmt.Errorf("%w: %s: %s", ErrCorrupt, pragma, strings.Join(problems, "; "))
}

// keepBroken copies a damaged database (and its WAL) aside, 0600, and
// returns the one-line refusal. The copy is named after the file's
// modification time, so repeated starts on the same damage keep one copy.
// The original stays where it is: the user decides whether to move it away
// (Reprise then starts with an empty database) or to try to recover it.
func keepBroken(abs string, cause error, log *slog.Logger) error {
	detail := sqliteDetail(cause)
	stamp := "unknown"
	if st, err := os.Stat(abs); err == nil {
		stamp = st.ModTime().UTC().Format("20060102T150405Z")
	}
	dst := abs + ".broken-" + stamp
	if _, err := os.Lstat(dst); err != nil {
		if err := copyFile(abs, dst); err != nil {
			log.Error("database is damaged; keeping a copy failed", "path", abs, "err", err)
			return fmt.Errorf("%w: %s (%s); keeping a copy failed: %w", ErrCorrupt, abs, detail, err)
		}
		if _, err := os.Stat(abs + "-wal"); err == nil {
			_ = copyFile(abs+"-wal", dst+"-wal")
		}
	}
	log.Error("database is damaged; refusing to open it", "path", abs, "copy", dst, "err", cause)
	return fmt.Errorf("%w: %s (%s); a copy is kept at %s; move %s away to start with an empty database", ErrCorrupt, abs, detail, dst, abs)
}

func copyFile(src, dst string) error {
	in, _, err := safefile.OpenNoFollow(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := safefile.CreateExcl(dst, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
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
	if err := checkIntegrity(ctx, db, abs); err != nil {
		_ = s.Close()
		return nil, err
	}
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
	if isConstraint(err) {
		return fmt.Errorf("%w: %w", ErrConflict, err)
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
