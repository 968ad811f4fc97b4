package boundglob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func mkfile(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func find(t *testing.T, root, pattern string, visit *int) Result {
	t.Helper()
	r, err := Find(context.Background(), root, pattern, visit)
	if err != nil {
		t.Fatalf("Find(%q, %q): %v", root, pattern, err)
	}
	return r
}

// The Codex shape: a dated tree, the one file found, others not matched.
func TestFindDatedTree(t *testing.T) {
	root := t.TempDir()
	want := filepath.Join(root, "sessions", "2026", "12", "02", "rollout-2026-12-02T07-00-00-abc.jsonl")
	mkfile(t, want)
	mkfile(t, filepath.Join(root, "sessions", "2026", "12", "01", "rollout-2026-12-01T07-00-00-other.jsonl"))
	mkfile(t, filepath.Join(root, "sessions", "2025", "01", "01", "rollout-x-abcd.jsonl"))
	r := find(t, root, "sessions/*/*/*/rollout-*-abc.jsonl", nil)
	if len(r.Matches) != 1 || r.Matches[0].Path != want || r.Matches[0].Kind != "file" || r.Matches[0].Size != 2 || r.Incomplete != "" {
		t.Fatalf("result %+v; want only %s", r, want)
	}
	// A root that is not there: no match, and that is an answer.
	r = find(t, filepath.Join(root, "nope"), "sessions/*/*/*/x", nil)
	if len(r.Matches) != 0 || r.Incomplete != "" {
		t.Fatalf("missing root: %+v", r)
	}
}

// Patterns and roots that could leave the root, or are too big, are
// refused before anything is read.
func TestCheckRefuses(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("a", MaxPatternLen+1)
	deep := strings.Repeat("*/", MaxSegments) + "x"
	for _, c := range []struct{ root, pattern string }{
		{root, "../x"},
		{root, "a/../../x"},
		{root, "./x"},
		{root, "/etc/passwd"},
		{root, "a//b"},
		{root, ""},
		{root, long},
		{root, deep},
		{root, "a[b"},
		{root, "a\x00b"},
		{"relative", "x"},
		{root + "/../x", "x"},
		{"", "x"},
		{"/" + strings.Repeat("r", MaxRootLen), "x"},
	} {
		if _, err := Find(context.Background(), c.root, c.pattern, nil); !errors.Is(err, ErrBadPattern) {
			t.Errorf("Find(%q, %q): %v; want ErrBadPattern", clip(c.root), clip(c.pattern), err)
		}
	}
	if _, err := Check(root, strings.Repeat("*/", MaxSegments-1)+"x"); err != nil {
		t.Errorf("a pattern of %d segments: %v", MaxSegments, err)
	}
}

// A tree deeper than the pattern is not descended past it; many entries
// stop at the visit budget, said so (the answer is then not "missing").
func TestFindBounds(t *testing.T) {
	root := t.TempDir()
	deep := root
	for i := 0; i < 40; i++ {
		deep = filepath.Join(deep, "d")
	}
	mkfile(t, filepath.Join(deep, "x"))
	r := find(t, root, "*/*/*/x", nil)
	if len(r.Matches) != 0 || r.Incomplete != "" || r.Visited > 10 {
		t.Fatalf("deep tree: %+v", r)
	}

	many := filepath.Join(root, "many")
	if err := os.Mkdir(many, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3000; i++ {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%05d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	budget := 1000
	r = find(t, many, "zzz*", &budget)
	if len(r.Matches) != 0 || !strings.Contains(r.Incomplete, "directory entries") || r.Visited > 1000 || budget != 0 {
		t.Fatalf("many entries, budget 1000: %+v, budget left %d", r, budget)
	}
	// The budget is shared: a second walk with what is left reads nothing.
	r = find(t, many, "f*", &budget)
	if len(r.Matches) != 0 || r.Incomplete == "" || r.Visited != 0 {
		t.Fatalf("spent budget: %+v", r)
	}
	// Matches are capped.
	r = find(t, many, "f*", nil)
	if len(r.Matches) != MaxMatches || !strings.Contains(r.Incomplete, "matches") {
		t.Fatalf("matches: %d, %q", len(r.Matches), r.Incomplete)
	}
	// The caller's time limit.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Find(ctx, many, "f*", nil)
	if err != nil || len(r.Matches) != 0 || !strings.Contains(r.Incomplete, "time limit") {
		t.Fatalf("cancelled: %+v, %v", r, err)
	}
}

// A FIFO anywhere in the tree is never opened (an open of a FIFO with no
// writer blocks forever): at the last segment it is a match of kind
// "other", before it a name skipped. A symlink loop ends at the pattern's
// depth.
func TestFindNeverOpensFIFOs(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{filepath.Join(root, "a", "fifo"), filepath.Join(root, "fifo")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A literal segment that names a FIFO is refused by O_DIRECTORY, unopened.
	r := find(t, root, "fifo/x", nil)
	if len(r.Matches) != 0 || r.Incomplete != "" {
		t.Fatalf("fifo as a directory: %+v", r)
	}
	r = find(t, root, "*/x", nil)
	if len(r.Matches) != 0 || r.Incomplete != "" {
		t.Fatalf("fifo skipped: %+v", r)
	}
	r = find(t, root, "*/fif?", nil)
	if len(r.Matches) != 1 || r.Matches[0].Kind != "other" || r.Matches[0].Size != 0 {
		t.Fatalf("fifo as a match: %+v", r)
	}
	if err := os.Symlink(".", filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	r = find(t, root, "loop/loop/loop/loop/loop/loop/loop/fifo", nil)
	if len(r.Matches) != 1 || r.Matches[0].Kind != "other" {
		t.Fatalf("through a loop: %+v", r)
	}
}

// Glob characters in a literal segment are matched by the pattern rules
// (so callers put only validated ids in patterns); an escaped one matches
// itself only.
func TestFindEscapes(t *testing.T) {
	root := t.TempDir()
	mkfile(t, filepath.Join(root, "a*b"))
	mkfile(t, filepath.Join(root, "axb"))
	r := find(t, root, `a\*b`, nil)
	if len(r.Matches) != 1 || filepath.Base(r.Matches[0].Path) != "a*b" {
		t.Fatalf("escaped star: %+v", r)
	}
	r = find(t, root, `a*b`, nil)
	if len(r.Matches) != 2 {
		t.Fatalf("star: %+v", r)
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		p, dir string
		ok     bool
	}{
		{"/home/u", "/home/u", true},
		{"/home/u/.codex", "/home/u", true},
		{"/home/u/.codex", "/home/u/", true},
		{"/home/user2", "/home/u", false},
		{"/etc", "/home/u", false},
		{"/x", "", false},
		{"/x", "rel", false},
		{"/x/y", "/", true},
	} {
		if got := Within(c.p, c.dir); got != c.ok {
			t.Errorf("Within(%q, %q) = %v", c.p, c.dir, got)
		}
	}
}

// A Codex home of two years, 20 rollouts a day (14 600 files, 14 600 + 756
// entries read): what a remote resume check's glob costs when the rollout
// is not there (the whole tree is read).
func BenchmarkFindCodexTree(b *testing.B) {
	root := b.TempDir()
	for y := 2025; y <= 2026; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= 30; d++ {
				dir := filepath.Join(root, "sessions", fmt.Sprint(y), fmt.Sprintf("%02d", m), fmt.Sprintf("%02d", d))
				if err := os.MkdirAll(dir, 0o700); err != nil {
					b.Fatal(err)
				}
				for i := 0; i < 20; i++ {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rollout-%d-%02d-%02dT00-00-%02d-0192f3a4-7b2c-7d3e-8f4a-%012d.jsonl", y, m, d, i, i)), nil, 0o600); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		r, err := Find(context.Background(), root, "sessions/*/*/*/rollout-*-nothere.jsonl", nil)
		if err != nil || len(r.Matches) != 0 || r.Incomplete != "" {
			b.Fatalf("%+v %v", r, err)
		}
	}
}
