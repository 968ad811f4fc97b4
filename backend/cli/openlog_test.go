package cli

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// A symlink planted at a log path was followed: the log went into the file
// it pointed to.
func TestOpenLogRefusesPlantedSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "precious")
	os.WriteFile(victim, []byte("keep"), 0o600)
	p := filepath.Join(dir, "host.log")
	os.Symlink(victim, p)
	logger, done := OpenLog(p, slog.LevelInfo)
	logger.Info("hello")
	done()
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("the log was written through the symlink: %q", b)
	}
}

func TestWriteJSONFileRefusesPlantedTmp(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "precious")
	os.WriteFile(victim, []byte("keep"), 0o600)
	p := filepath.Join(dir, "state.json")
	os.Symlink(victim, p+".tmp")
	if err := writeJSONFile(p, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("written through the planted .tmp symlink: %q", b)
	}
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("state.json: %v %v", st, err)
	}
}
