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
	"syscall"
	"time"

	"github.com/reprise-dev/reprise/backend/safefile"
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
//
// A failed write (a full disk, most often) does not stop the log for good:
// the output of the failing write and of every write after it is dropped,
// and each later write first tries to put a dim label into the log, "output
// between 12:01:05 and 12:04:10 was not kept: disk full". Once that label
// is written logging goes on, so a restore shows where output is missing
// instead of silently ending there. A partial write is cut back off the
// file, so the log never holds half a chunk (half an escape sequence).
type Writer struct {
	mu    sync.Mutex // guards all fields
	f     *os.File   // nil when closed, or when reopening after a failed rotation failed too
	cur   string
	prev  string
	size  int64 // bytes in cur
	limit int64

	closed   bool
	truncate bool      // the log file was never created: the first open truncates any stale one
	gapSince time.Time // zero when not dropping output; else when the first dropped write was
	gapCause error     // why the first dropped write failed
	now      func() time.Time
}

// ErrDropped wraps the error of every write whose output was dropped
// because the log could not be written (see Writer).
var ErrDropped = errors.New("scrollback output dropped")

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
	w := &Writer{cur: cur, prev: prev, limit: limit, now: time.Now}
	f, err := openLog(cur, os.O_TRUNC)
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		// A full disk (no room for the file's directory entry or inode):
		// start in a gap, so the log begins, labelled, once there is room,
		// instead of staying off for the terminal's whole life.
		w.gapSince, w.gapCause, w.truncate = w.now(), err, true
		return w, nil
	}
	if err != nil {
		return nil, fmt.Errorf("create scrollback log: %w", err)
	}
	w.f = f
	return w, nil
}

// openLog opens a log file for appending, refusing a symlink planted at
// its path (O_NOFOLLOW) and anything that is not a regular file.
func openLog(path string, extra int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|extra, 0o600)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return f, nil
}

// Write appends p. While the log cannot be written, p is dropped and the
// error (wrapping ErrDropped) returned; callers never stop the terminal for
// it, and keep writing: a later Write resumes the log, with a label for the
// gap, once the disk accepts writes again. After Close, Write returns
// os.ErrClosed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, os.ErrClosed
	}
	if !w.gapSince.IsZero() {
		if err := w.resumeLocked(); err != nil {
			return 0, fmt.Errorf("%w: %w", ErrDropped, err)
		}
	}
	if err := w.appendLocked(p); err != nil {
		w.gapSince, w.gapCause = w.now(), err
		return 0, fmt.Errorf("%w: %w", ErrDropped, err)
	}
	return len(p), nil
}

// appendLocked writes p whole or not at all.
func (w *Writer) appendLocked(p []byte) error {
	if w.f == nil {
		flag := 0
		if w.truncate {
			flag = os.O_TRUNC
		}
		f, err := openLog(w.cur, flag)
		if err != nil {
			return fmt.Errorf("reopen scrollback: %w", err)
		}
		w.truncate = false
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return fmt.Errorf("reopen scrollback: %w", err)
		}
		w.f, w.size = f, st.Size()
	}
	if w.size+int64(len(p)) > w.limit/2 && w.size > 0 {
		if err := w.rotateLocked(); err != nil {
			return err
		}
	}
	n, err := w.f.Write(p)
	if err != nil {
		if n > 0 {
			_ = w.f.Truncate(w.size) // O_APPEND: the next write lands at the new end
		}
		return fmt.Errorf("write scrollback: %w", err)
	}
	w.size += int64(n)
	return nil
}

// resumeLocked writes the label for the current gap; the gap is over when
// it is in the log.
func (w *Writer) resumeLocked() error {
	if err := w.appendLocked(GapLabel(w.gapSince, w.now(), w.gapCause)); err != nil {
		return err
	}
	w.gapSince, w.gapCause = time.Time{}, nil
	return nil
}

// GapLabel is the dim line written into a log where output was dropped,
// from the first dropped write (since) to the moment logging resumed.
func GapLabel(since, until time.Time, cause error) []byte {
	layout := "15:04:05"
	if since.YearDay() != until.YearDay() || since.Year() != until.Year() {
		layout = "2006-01-02 15:04:05"
	}
	why := "write error"
	switch {
	case errors.Is(cause, syscall.ENOSPC), errors.Is(cause, syscall.EDQUOT):
		why = "disk full"
	case errors.Is(cause, syscall.EIO):
		why = "disk i/o error"
	case errors.Is(cause, os.ErrPermission):
		why = "permission denied"
	}
	return fmt.Appendf(nil, "\r\n\x1b[0;2m[reprise: output between %s and %s was not kept: %s]\x1b[0m\r\n",
		since.Format(layout), until.Format(layout), why)
}

func (w *Writer) rotateLocked() error {
	if err := w.f.Close(); err != nil {
		w.f = nil
		return fmt.Errorf("rotate scrollback: %w", err)
	}
	w.f = nil
	if err := os.Rename(w.cur, w.prev); err != nil {
		return fmt.Errorf("rotate scrollback: %w", err)
	}
	f, err := openLog(w.cur, os.O_TRUNC)
	if err != nil {
		return fmt.Errorf("rotate scrollback: %w", err)
	}
	w.f, w.size = f, 0
	return nil
}

// Close closes the log, keeping its files.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
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
	// Not blocking, regular only: a FIFO planted at the path must not hang
	// the host's restore.
	f, st, err := safefile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("read scrollback: %w", err)
	}
	defer f.Close()
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

// Size is how many bytes a terminal's log holds (previous file plus
// current); 0 when it has none. With Tail it tells how much of the log a
// bounded tail left out.
func Size(dir, id string) int64 {
	cur, prev, err := Paths(dir, id)
	if err != nil {
		return 0
	}
	var n int64
	for _, p := range []string{cur, prev} {
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			n += st.Size()
		}
	}
	return n
}
