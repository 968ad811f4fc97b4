package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := WriteFile(p, []byte("one"), 0); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("default mode %v, want 0600", fi.Mode().Perm())
	}
	if err := WriteFile(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content %q, want two", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("directory holds %v, want only f.json", got)
	}
}

func TestModeIgnoresUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	p := filepath.Join(t.TempDir(), "f")
	if err := WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 despite umask 077", fi.Mode().Perm())
	}
}

func TestBeforeRenameAbortLeavesTargetAndNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("changed")
	var sawTemp bool
	err := Write(p, []byte("new"), Options{BeforeRename: func() error {
		// The new content is complete in a hidden temporary file by now.
		for _, n := range entries(t, dir) {
			if n != "f" {
				b, _ := os.ReadFile(filepath.Join(dir, n))
				sawTemp = n[0] == '.' && string(b) == "new"
			}
		}
		return stop
	}})
	if !errors.Is(err, stop) {
		t.Fatalf("err %v, want the BeforeRename error", err)
	}
	if !sawTemp {
		t.Error("BeforeRename ran before the content was in a hidden temporary file")
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("target %q after an aborted write, want old", b)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("temporary file left behind: %v", got)
	}
}

func TestMissingDirIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no", "f")
	if err := WriteFile(p, []byte("x"), 0); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

// A symlink at the target is replaced, never followed: the file it points
// to is left alone.
func TestSymlinkTargetIsReplacedNotFollowed(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "f")
	if err := os.Symlink(victim, p); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new"), 0); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	if fi, _ := os.Lstat(p); fi.Mode()&os.ModeSymlink != 0 {
		t.Error("target is still a symlink")
	}
}

// Readers racing with writers only ever see one complete version.
func TestReadersNeverSeeAPartialFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	a, b := bytes.Repeat([]byte("a"), 1<<16), bytes.Repeat([]byte("b"), 1<<16)
	if err := WriteFile(p, a, 0); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := 0; i < 50; i++ {
			data := a
			if i%2 == 0 {
				data = b
			}
			if err := WriteFile(p, data, 0); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		select {
		case <-done:
			wg.Wait()
			return
		default:
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("read a partial file (%d bytes)", len(got))
		}
	}
}
