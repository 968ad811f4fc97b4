// Package boundglob finds files by a glob pattern under one directory, with
// every kind of work it may do bounded: where an agent keeps a conversation
// is sometimes a pattern, not a path (Codex's dated rollout files), and the
// pattern carries a session id that came from a hook payload — which any
// program in a pane can send. The same code answers on this machine (the
// host's resume check) and on a remote one (its daemon's facts request), so
// both give the same answer.
//
// What it does: reads directories (readdir) and stats names, nothing else.
// A directory is entered with O_DIRECTORY, which fails on anything that is
// not one before it is opened — a FIFO planted in the tree is never opened,
// so it cannot block the walk. No ".." segment, no absolute pattern: every
// path it visits lies under the root. It stops, saying so, at a bound:
// entries read, matches, the caller's deadline.
package boundglob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// Bounds of one pattern. A pattern is at most MaxPatternLen bytes in at most
// MaxSegments path segments; a walk reads at most the caller's visit budget
// of directory entries and keeps at most MaxMatches matches.
const (
	MaxPatternLen = 512
	MaxSegments   = 8
	MaxMatches    = 16
	MaxRootLen    = 4096
	// DefaultVisit is the entries one walk may read when the caller gives
	// no budget: a heavy Codex user has thousands of rollout files, one
	// directory entry each, plus a year/month/day directory per day.
	DefaultVisit = 100_000
)

// Match is one path the pattern names, as stat(2) sees it (a symlink at the
// last segment followed; a FIFO or device reported as "other", not opened).
type Match struct {
	Path string `json:"path"`
	// Kind: "file", "dir" or "other".
	Kind string `json:"kind"`
	Size int64  `json:"size,omitempty"`
}

// Result is what a walk found. Incomplete is set when the walk stopped
// before it had looked everywhere (a bound, the deadline, a directory it
// could not read): then no match does not mean there is none.
type Result struct {
	Matches    []Match `json:"matches,omitempty"`
	Visited    int     `json:"visited,omitempty"`
	Incomplete string  `json:"incomplete,omitempty"`
}

// ErrBadPattern is a root or pattern refused before any walk.
var ErrBadPattern = errors.New("bad glob")

// Check validates root and pattern and returns the pattern's segments.
// root is a literal, clean, absolute directory; pattern is relative, each
// of its segments a filepath.Match pattern that is not "" / "." / "..".
func Check(root, pattern string) ([]string, error) {
	switch {
	case root == "" || !filepath.IsAbs(root):
		return nil, fmt.Errorf("%w: root %q is not an absolute path", ErrBadPattern, clip(root))
	case len(root) > MaxRootLen:
		return nil, fmt.Errorf("%w: root of %d bytes, at most %d", ErrBadPattern, len(root), MaxRootLen)
	case filepath.Clean(root) != root:
		return nil, fmt.Errorf("%w: root %q is not a clean path", ErrBadPattern, clip(root))
	case strings.ContainsRune(root, 0) || strings.ContainsRune(pattern, 0):
		return nil, fmt.Errorf("%w: a NUL byte", ErrBadPattern)
	case pattern == "":
		return nil, fmt.Errorf("%w: empty pattern", ErrBadPattern)
	case len(pattern) > MaxPatternLen:
		return nil, fmt.Errorf("%w: pattern of %d bytes, at most %d", ErrBadPattern, len(pattern), MaxPatternLen)
	case strings.HasPrefix(pattern, "/"):
		return nil, fmt.Errorf("%w: pattern %q is absolute", ErrBadPattern, clip(pattern))
	}
	segs := strings.Split(pattern, "/")
	if len(segs) > MaxSegments {
		return nil, fmt.Errorf("%w: pattern of %d segments, at most %d", ErrBadPattern, len(segs), MaxSegments)
	}
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return nil, fmt.Errorf("%w: pattern %q has a segment %q", ErrBadPattern, clip(pattern), s)
		}
		if _, err := filepath.Match(s, ""); err != nil {
			return nil, fmt.Errorf("%w: pattern %q: %v", ErrBadPattern, clip(pattern), err)
		}
	}
	return segs, nil
}

// Within reports whether p is dir or lies under it (lexically: both clean
// and absolute).
func Within(p, dir string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	dir = filepath.Clean(dir)
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// Find walks root for pattern. visit is the budget of directory entries it
// may read, shared by the caller's walks (nil: DefaultVisit for this one);
// ctx bounds its time. The error is only for a refused root or pattern:
// everything the walk meets is in the Result.
func Find(ctx context.Context, root, pattern string, visit *int) (Result, error) {
	segs, err := Check(root, pattern)
	if err != nil {
		return Result{}, err
	}
	if visit == nil {
		n := DefaultVisit
		visit = &n
	}
	w := &walker{ctx: ctx, visit: visit}
	fd, err := openDir(unix.AT_FDCWD, root)
	if err != nil {
		w.note(root, err)
		return w.res, nil
	}
	w.walk(fd, root, segs)
	return w.res, nil
}

type walker struct {
	ctx   context.Context
	visit *int
	res   Result
}

func (w *walker) stop(why string) {
	if w.res.Incomplete == "" {
		w.res.Incomplete = why
	}
}

func (w *walker) done() bool {
	if w.res.Incomplete != "" {
		return true
	}
	if w.ctx.Err() != nil {
		w.stop(fmt.Sprintf("stopped at the time limit after %d entries", w.res.Visited))
		return true
	}
	return false
}

// note records what a path's error means for the answer: a name that is
// not there (or not a directory) is just no match; anything else (no
// permission, an I/O error) leaves the answer unknown.
func (w *walker) note(p string, err error) {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return
	}
	w.stop(fmt.Sprintf("%s: %v", p, err))
}

// openDir opens a directory for reading its entries and nothing else:
// O_DIRECTORY refuses a FIFO, device or file before opening it, O_NONBLOCK
// is a second guard. Symlinks to directories are followed, as a shell's
// glob does; the depth is bounded by the pattern, so a loop ends.
func openDir(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
		if err == unix.EINTR {
			continue
		}
		return fd, err
	}
}

// walk owns fd (a directory) and closes it.
func (w *walker) walk(fd int, dir string, segs []string) {
	// The os.File only lists entries (their type comes with them); fd is
	// used as is for the lookups, never through f.Fd().
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	seg, last := segs[0], len(segs) == 1
	if !hasMeta(seg) {
		// A literal segment needs no listing: one lookup.
		w.take(fd, dir, seg, last, segs)
		return
	}
	names := w.list(f, dir, seg, last)
	// Newest first where names sort by date (Codex's YYYY/MM/DD and
	// rollout-<timestamp>): the likely match comes before a bound does.
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	for _, n := range names {
		if w.done() {
			return
		}
		w.take(fd, dir, n, last, segs)
	}
}

// take follows one name that matched its segment: the last segment's name
// is a match (stat only), another's a directory to walk.
func (w *walker) take(dirfd int, dir, name string, last bool, segs []string) {
	p := filepath.Join(dir, name)
	if last {
		var st unix.Stat_t
		if err := unix.Fstatat(dirfd, name, &st, 0); err != nil {
			w.note(p, err)
			return
		}
		m := Match{Path: p, Kind: "other"}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			m.Kind, m.Size = "file", st.Size
		case unix.S_IFDIR:
			m.Kind = "dir"
		}
		if len(w.res.Matches) >= MaxMatches {
			w.stop(fmt.Sprintf("more than %d matches", MaxMatches))
			return
		}
		w.res.Matches = append(w.res.Matches, m)
		return
	}
	cfd, err := openDir(dirfd, name)
	if err != nil {
		w.note(p, err)
		return
	}
	w.walk(cfd, p, segs[1:])
}

// list reads dir's entries within the visit budget and returns the names
// matching seg (for a segment before the last, only those that may be
// directories: a regular file or FIFO there is skipped unopened).
func (w *walker) list(f *os.File, dir, seg string, last bool) []string {
	var out []string
	for !w.done() {
		n := min(256, *w.visit)
		if n <= 0 {
			w.stop(fmt.Sprintf("stopped after reading %d directory entries", w.res.Visited))
			return out
		}
		ents, err := f.ReadDir(n)
		*w.visit -= len(ents)
		w.res.Visited += len(ents)
		for _, e := range ents {
			t := e.Type()
			if !last && !t.IsDir() && t&os.ModeSymlink == 0 {
				continue // a file, FIFO, socket or device: never a directory
			}
			if ok, _ := filepath.Match(seg, e.Name()); ok {
				out = append(out, e.Name())
			}
		}
		if err == io.EOF || (err == nil && len(ents) == 0) {
			return out
		}
		if err != nil {
			w.note(dir, err)
			return out
		}
	}
	return out
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
