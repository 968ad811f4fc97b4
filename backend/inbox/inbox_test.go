package inbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestOrderAndRejects(t *testing.T) {
	in := Inbox{Dir: t.TempDir()}
	for i := 0; i < 50; i++ {
		if err := in.Put([]byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	transient := errors.New("db busy")
	fail := true
	n, err := in.Drain(func(name string, rec []byte) error {
		if string(rec) == "7" {
			return fmt.Errorf("bad: %w", ErrReject)
		}
		if string(rec) == "20" && fail {
			fail = false
			return transient
		}
		got = append(got, string(rec))
		return nil
	})
	if !errors.Is(err, transient) || n != 20 {
		t.Fatalf("first drain: n=%d err=%v", n, err)
	}
	n, err = in.Drain(func(name string, rec []byte) error { got = append(got, string(rec)); return nil })
	if err != nil || n != 30 {
		t.Fatalf("second drain: n=%d err=%v", n, err)
	}
	want := 0
	for _, g := range got {
		if want == 7 {
			want++
		}
		if g != fmt.Sprint(want) {
			t.Fatalf("out of order: got %s want %d (all %v)", g, want, got)
		}
		want++
	}
	if _, err := os.Stat(filepath.Join(in.Dir, "rejected")); err != nil {
		t.Fatal("rejected record not kept aside")
	}
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	in := Inbox{Dir: t.TempDir()}
	var wg sync.WaitGroup
	for w := 0; w < 20; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := in.Put([]byte(fmt.Sprintf("%d/%d", w, i))); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	last := map[int]int{}
	n, err := in.Drain(func(_ string, rec []byte) error {
		var w, i int
		fmt.Sscanf(string(rec), "%d/%d", &w, &i)
		if prev, ok := last[w]; ok && i <= prev {
			return fmt.Errorf("writer %d out of order: %d after %d", w, i, prev)
		}
		last[w] = i
		seen[string(rec)] = true
		return nil
	})
	if err != nil || n != 1000 || len(seen) != 1000 {
		t.Fatalf("drained %d (%d distinct): %v", n, len(seen), err)
	}
}

// rejected/ was never cleaned: every malformed record stayed forever.
func TestRejectedIsPruned(t *testing.T) {
	in := Inbox{Dir: t.TempDir()}
	for round := 0; round < 3; round++ {
		for i := 0; i < 50; i++ {
			if err := in.Put([]byte(fmt.Sprint(round*50 + i))); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := in.Drain(func(string, []byte) error { return ErrReject }); err != nil {
			t.Fatal(err)
		}
	}
	rej := filepath.Join(in.Dir, "rejected")
	ents, err := os.ReadDir(rej)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != MaxRejected {
		t.Fatalf("rejected/ holds %d records, want the newest %d", len(ents), MaxRejected)
	}
	// The oldest went: the first kept is record 50 (of 0..149).
	b, _ := os.ReadFile(filepath.Join(rej, ents[0].Name()))
	if string(b) != "50" {
		t.Fatalf("oldest kept record is %q, want 50", b)
	}
}

// A symlink planted in the inbox (at a temporary-looking name) is never
// written through: Put's temporary files are fresh names created O_EXCL
// (atomicfile), and the drain skips hidden names.
func TestPutRefusesPlantedSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(target, []byte("keep"), 0o600)
	tmp := filepath.Join(dir, ".planted.json.tmp")
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	in := Inbox{Dir: dir}
	for i := 0; i < 20; i++ {
		if err := in.Put([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	n, err := in.Drain(func(string, []byte) error { return nil })
	if err != nil || n != 20 {
		t.Fatalf("drained %d, %v; want the 20 records", n, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatalf("the symlink's target was written: %q", b)
	}
}
