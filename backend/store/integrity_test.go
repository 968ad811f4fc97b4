package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fillDB makes a real database of many pages and closes it.
func fillDB(t *testing.T, path string) {
	t.Helper()
	s, err := Open(t.Context(), path, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 300)
	for i := 0; i < 1500; i++ {
		if err := s.SetSetting(t.Context(), fmt.Sprintf("k%05d", i), big); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the WAL was not checkpointed at close")
	}
}

// A damaged page was not noticed at start: serve ran and logged "database
// disk image is malformed" later. Now each kind of damage is refused at
// Open, in one line, and a copy of the broken file is kept.
func TestOpenRefusesDamagedDatabase(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"bad page", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			if st.Size() < 40*4096 {
				t.Fatalf("database is only %d bytes", st.Size())
			}
			// A leaf page of the settings table, well past page 1 (the
			// header and schema stay intact).
			if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, 4096), 20*4096); err != nil {
				t.Fatal(err)
			}
		}},
		{"bad header", func(t *testing.T, path string) {
			f, _ := os.OpenFile(path, os.O_WRONLY, 0)
			defer f.Close()
			f.WriteAt([]byte("not sqlite at all"), 0)
		}},
		{"truncated", func(t *testing.T, path string) {
			st, _ := os.Stat(path)
			os.Truncate(path, st.Size()/2)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "reprise.db")
			fillDB(t, path)
			tc.damage(t, path)
			broken, _ := os.ReadFile(path)

			s, err := Open(t.Context(), path, testLogger(t))
			if err == nil {
				s.Close()
				t.Fatal("a damaged database was opened")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %q is not ErrCorrupt", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, path) {
				t.Fatalf("error is not one line naming the file: %q", msg)
			}
			copies, _ := filepath.Glob(path + ".broken-*")
			if len(copies) != 1 {
				t.Fatalf("copies kept: %v", copies)
			}
			if !strings.Contains(msg, copies[0]) {
				t.Errorf("error %q does not name the copy %s", msg, copies[0])
			}
			if got, _ := os.ReadFile(copies[0]); !bytes.Equal(got, broken) {
				t.Error("the copy differs from the broken file")
			}
			if st, _ := os.Stat(copies[0]); st.Mode().Perm() != 0o600 {
				t.Errorf("copy mode %v, want 0600", st.Mode().Perm())
			}
			// A second start refuses again without piling up copies.
			if _, err := Open(t.Context(), path, testLogger(t)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("second open: %v", err)
			}
			if again, _ := filepath.Glob(path + ".broken-*"); len(again) != 1 {
				t.Errorf("copies after a second start: %v", again)
			}
		})
	}
}

func TestDatabaseFilesPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "reprise.db")
	s := openAt(t, path)
	if err := s.SetSetting(t.Context(), "k", "v"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", filepath.Base(p), st.Mode().Perm())
		}
	}

	// A database made by an older Reprise (0644) is tightened at open.
	old2 := filepath.Join(t.TempDir(), "reprise.db")
	fillDB(t, old2)
	os.Chmod(old2, 0o644)
	openAt(t, old2)
	if st, _ := os.Stat(old2); st.Mode().Perm() != 0o600 {
		t.Errorf("existing database mode %v, want 0600", st.Mode().Perm())
	}
}
