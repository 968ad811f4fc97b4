package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestLockAndHolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "host.lock")
	l, err := TryLock(p)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := TryLock(p); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: %v, want ErrLocked", err)
	}
	if got := Holder(p); got != os.Getpid() {
		t.Fatalf("holder %d, want %d", got, os.Getpid())
	}
}

// A symlink planted at the lock path was followed, and the pid write
// truncated whatever file it pointed to.
func TestPlantedSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "precious")
	os.WriteFile(victim, []byte("do not truncate"), 0o600)
	p := filepath.Join(dir, "host.lock")
	os.Symlink(victim, p)
	if l, err := TryLock(p); err == nil {
		l.Release()
		t.Error("a lock was taken through a symlink")
	}
	if b, _ := os.ReadFile(victim); string(b) != "do not truncate" {
		t.Fatalf("the symlink's target was written: %q", b)
	}
}
