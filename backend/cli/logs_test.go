package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/reprise-dev/reprise/backend/logfile"
)

// A host.log already at its bound is rotated on the next write instead of
// growing without end.
func TestOpenLogRotates(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "host.log")
	if err := os.WriteFile(p, bytes.Repeat([]byte("old line\n"), logfile.MaxSizeMB<<20/9+1), 0o600); err != nil {
		t.Fatal(err)
	}
	logger, closeLog := OpenLog(p, 0)
	logger.Info("after the bound")
	closeLog()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 1<<10 {
		t.Fatalf("host.log is %d bytes after a write at its bound; want a fresh, rotated file", fi.Size())
	}
	backups, _ := filepath.Glob(filepath.Join(dir, "host-*.log"))
	if len(backups) != 1 {
		t.Fatalf("backups %v, want the old log kept as one backup", backups)
	}
}
