// Package lockfile takes exclusive advisory locks (flock) on files, so that
// one daemon and one host run per home. The kernel drops the lock when the
// process dies, so a crash never leaves a stale lock behind.
package lockfile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/reprise-dev/reprise/backend/safefile"
)

// ErrLocked means another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is a held lock.
type Lock struct{ f *os.File }

// TryLock takes the lock at path without waiting and writes our pid into it.
func TryLock(path string) (*Lock, error) {
	// A symlink planted at the lock path is refused, not followed: the pid
	// write below would otherwise truncate whatever file it points to.
	f, err := safefile.OpenRW(path, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &Lock{f: f}, nil
}

// Holder returns the pid written by the current holder, or 0.
func Holder(path string) int {
	b, err := safefile.ReadFile(path, 64)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// Release drops the lock.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
