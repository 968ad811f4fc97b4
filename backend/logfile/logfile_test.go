package logfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// logs lists the log's files (the live one and its backups) with sizes.
func logs(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), "host") {
			out[e.Name()] = fi.Size()
		}
	}
	return out
}

func TestRotatesAndKeepsFewBackups(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "host.log")
	w, err := open(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	line := append(bytes.Repeat([]byte("x"), 1023), '\n')
	for i := 0; i < 6*1024; i++ { // 6 MiB through a 1 MiB log
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Old backups are deleted in the background after a rotation: wait for
	// the count to settle (the assertion is on the outcome, not on time).
	deadline := time.Now().Add(20 * time.Second)
	var got map[string]int64
	for {
		got = logs(t, dir)
		if len(got) <= MaxBackups+1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != MaxBackups+1 {
		t.Fatalf("files %v, want host.log and %d backups", got, MaxBackups)
	}
	for n, size := range got {
		if size > 1<<20 {
			t.Errorf("%s is %d bytes, over the 1 MiB bound", n, size)
		}
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("host.log: %v, mode %v, want 0600", err, fi.Mode().Perm())
	}
}

func TestRefusesASymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "host.log")
	if err := os.Symlink(victim, p); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(p); err == nil {
		t.Fatal("opened a log that is a symlink")
	}
}
