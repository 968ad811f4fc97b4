// Package logfile opens Reprise's logs (host.log, ptyd.log, hooks.log) as
// size-bounded, rotating files, so a long-lived home's logs cannot fill the
// disk: at MaxSizeMB a log is renamed to <name>-<timestamp>.log and a fresh
// one started; only the newest MaxBackups of those are kept.
//
// Several processes may append to one log (the app and `reprise mcp` share
// host.log, every hook process appends to hooks.log). Each rotates on its
// own count, so at worst a log briefly has one extra file per writer; the
// bound stays a few times MaxSizeMB.
package logfile

import (
	"fmt"
	"io"

	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/reprise-dev/reprise/backend/safefile"
)

const (
	// MaxSizeMB is the size (in MiB) at which a log is rotated.
	MaxSizeMB = 10
	// MaxBackups is how many rotated files are kept per log.
	MaxBackups = 3
)

// Open returns an appending, rotating writer for the log at path (0600; the
// directory must exist). A symlink or other non-regular file at path is
// refused rather than followed: logs live in the private home and nothing
// there should point elsewhere.
func Open(path string) (io.WriteCloser, error) { return open(path, MaxSizeMB) }

func open(path string, maxMB int) (io.WriteCloser, error) {
	// Create it (0600) or check it with O_NOFOLLOW, fstat-checked regular:
	// lumberjack then appends to that file by name.
	f, err := safefile.OpenAppend(path, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	f.Close()
	return &lumberjack.Logger{Filename: path, MaxSize: maxMB, MaxBackups: MaxBackups}, nil
}

// MaxBytes is one log's bound on disk: the live file plus its backups.
const MaxBytes = (MaxBackups + 1) * MaxSizeMB << 20
