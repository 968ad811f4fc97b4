// Package safefile opens files whose path Reprise did not choose itself: a
// transcript path a hook reported, an agent's config file, a log or lock
// path under the home where someone may have planted a link or a FIFO.
//
// Any program in a pane can send a hook payload, so such a path can name a
// FIFO (an open blocks until a writer comes, forever), a device, or a huge
// sparse file (reading it whole takes gigabytes of memory). Every open here
// is non-blocking, checked with fstat to be a regular file, and every read is
// bounded.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

var (
	// ErrNotRegular: the path names a FIFO, a device, a socket or a
	// directory, not a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is over the caller's size bound.
	ErrTooLarge = errors.New("file too large")
)

// Open opens path read-only without blocking (O_NONBLOCK: a FIFO with no
// writer opens at once instead of hanging) and refuses anything but a
// regular file. O_NONBLOCK has no effect on reads of a regular file.
func Open(path string) (*os.File, fs.FileInfo, error) {
	return open(path, os.O_RDONLY, 0)
}

// OpenNoFollow is Open that also refuses a symlink at path itself.
func OpenNoFollow(path string) (*os.File, fs.FileInfo, error) {
	return open(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// OpenAppend opens (creating with perm) a file Reprise owns for appending,
// such as a log: a symlink planted at path is refused (O_NOFOLLOW) rather
// than followed to wherever it points, and a FIFO or device is refused too.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	f, _, err := open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, perm)
	return f, err
}

// OpenRW opens (creating with perm) a file Reprise owns for reading and
// writing, such as a lock file, refusing a symlink, FIFO or device at path.
func OpenRW(path string, perm fs.FileMode) (*os.File, error) {
	f, _, err := open(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, perm)
	return f, err
}

// CreateExcl creates a new file (a temporary file for an atomic write): it
// fails if anything, a symlink included, is already at path.
func CreateExcl(path string, perm fs.FileMode) (*os.File, error) {
	f, _, err := open(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
	return f, err
}

func open(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, nil, fmt.Errorf("open %s: refusing to follow a symlink: %w", path, err)
		}
		if errors.Is(err, syscall.ENXIO) {
			// A FIFO with no reader (opened for writing) or a socket.
			return nil, nil, fmt.Errorf("open %s: %w", path, ErrNotRegular)
		}
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("open %s: %w (%s)", path, ErrNotRegular, kind(st.Mode()))
	}
	return f, st, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a fifo"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}

// ReadFile reads a regular file of at most max bytes; a larger one is
// ErrTooLarge (checked again while reading, as the file may grow).
func ReadFile(path string, max int64) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("read %s: %w (%d bytes, limit %d)", path, ErrTooLarge, st.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("read %s: %w (over the %d-byte limit)", path, ErrTooLarge, max)
	}
	return b, nil
}

// Stat is os.Stat for callers that only need to know a regular file exists
// (and its size): it never opens the file, so it cannot block on it.
func Stat(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("stat %s: %w (%s)", path, ErrNotRegular, kind(st.Mode()))
	}
	return st, nil
}

// ClearSocket removes a stale Unix socket at path before a server listens
// there (the caller holds the lock that makes anything there stale). A
// leftover file or symlink goes too (removing a link never touches its
// target), but a directory is left alone and reported, naming the path:
// os.Remove would delete an empty one, and with a non-empty one listening
// failed with a misleading "address already in use".
func ClearSocket(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory, not a socket; move it away and start again", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}
