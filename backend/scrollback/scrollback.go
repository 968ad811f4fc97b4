// Package scrollback keeps a terminal's output on disk, bounded, so that a
// pane's contents survive the death of the pty daemon and a reboot. The
// daemon writes; the host reads the tail when it cold-respawns a pane.
//
// A log is two files, <id>.log (current) and <id>.log.1 (previous). When the
// current file reaches half the limit it replaces the previous one, so the
// pair never holds more than the limit and always holds at least the last
// half of it.
package scrollback

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// DefaultLimit bounds one terminal's log pair on disk.
const DefaultLimit = 4 << 20

var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Paths returns the current and previous log file of a terminal. The id is
// validated so a hostile id cannot escape dir.
func Paths(dir, id string) (cur, prev string, err error) {
	if !validID.MatchString(id) {
		return "", "", fmt.Errorf("invalid terminal id %q", id)
	}
	cur = filepath.Join(dir, id+".log")
	return cur, cur + ".1", nil
}

// Writer appends to a terminal's log, rotating at half the limit. Safe for
// one writer goroutine plus concurrent Close.
type Writer struct {
	mu    sync.Mutex // guards all fields
	f     *os.File
	cur   string
	prev  string
	size  int64
	limit int64
	err   error // sticky: a full disk stops logging, never the terminal
}

// Create opens (truncating) a new log for id under dir, mode 0600.
func Create(dir, id string, limit int64) (*Writer, error) {
	cur, prev, err := Paths(dir, id)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = DefaultLimit
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create scrollback dir: %w", err)
	}
	_ = os.Remove(prev)
	f, err := os.OpenFile(cur, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create scrollback log: %w", err)
	}
	return &Writer{f: f, cur: cur, prev: prev, limit: limit}, nil
}

// Write appends p. Errors are sticky and returned, but callers treat them as
// "stop logging", not as a reason to stop the terminal.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	if w.f == nil {
		return 0, os.ErrClosed
	}
	if w.size+int64(len(p)) > w.limit/2 && w.size > 0 {
		if err := w.rotateLocked(); err != nil {
			w.err = err
			return 0, err
		}
	}
	n, err := w.f.Write(p)
	w.size += int64(n)
	if err != nil {
		w.err = fmt.Errorf("write scrollback: %w", err)
	}
	return n, w.err
}

func (w *Writer) rotateLocked() error {
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("rotate scrollback: %w", err)
	}
	if err := os.Rename(w.cur, w.prev); err != nil {
		return fmt.Errorf("rotate scrollback: %w", err)
	}
	f, err := os.OpenFile(w.cur, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		w.f = nil
		return fmt.Errorf("rotate scrollback: %w", err)
	}
	w.f, w.size = f, 0
	return nil
}

// Close closes the log, keeping its files.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// Remove deletes a terminal's log files. Missing files are not an error.
func Remove(dir, id string) error {
	cur, prev, err := Paths(dir, id)
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range []string{cur, prev} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Tail returns up to max bytes from the end of a terminal's log (previous
// file then current), and the modification time of the newest file, which
// is when the terminal last printed. ok is false when no log exists.
func Tail(dir, id string, max int64) (data []byte, modUnixMs int64, ok bool, err error) {
	cur, prev, err := Paths(dir, id)
	if err != nil {
		return nil, 0, false, err
	}
	var parts [][]byte
	var need = max
	for _, p := range []string{cur, prev} {
		if need <= 0 {
			break
		}
		b, mt, found, err := tailFile(p, need)
		if err != nil {
			return nil, 0, false, err
		}
		if !found {
			continue
		}
		ok = true
		if mt > modUnixMs {
			modUnixMs = mt
		}
		parts = append([][]byte{b}, parts...)
		need -= int64(len(b))
	}
	for _, p := range parts {
		data = append(data, p...)
	}
	return data, modUnixMs, ok, nil
}

func tailFile(path string, max int64) ([]byte, int64, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("read scrollback: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, false, fmt.Errorf("read scrollback: %w", err)
	}
	off := st.Size() - max
	if off < 0 {
		off = 0
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, 0, false, fmt.Errorf("read scrollback: %w", err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, false, fmt.Errorf("read scrollback: %w", err)
	}
	return b, st.ModTime().UnixMilli(), true, nil
}

// LastWrite is when a terminal's log was last written; ok is false when it
// has no log.
func LastWrite(dir, id string) (t time.Time, ok bool) {
	cur, _, err := Paths(dir, id)
	if err != nil {
		return time.Time{}, false
	}
	st, err := os.Stat(cur)
	if err != nil {
		return time.Time{}, false
	}
	return st.ModTime(), true
}

// LastLines returns the end of p that holds its last n lines: everything
// after the n-th newline from the end (a last line without a newline, such
// as a prompt, counts as one). n <= 0, or fewer than n newlines, returns p.
// The cut is always just after a '\n', so it never splits a UTF-8
// character or a CSI escape sequence.
func LastLines(p []byte, n int) []byte {
	if n <= 0 {
		return p
	}
	end := len(p)
	if end > 0 && p[end-1] == '\n' {
		end-- // the final newline ends the last line; it does not start an empty one
	}
	for i := end - 1; i >= 0; i-- {
		if p[i] == '\n' {
			n--
			if n == 0 {
				return p[i+1:]
			}
		}
	}
	return p
}
