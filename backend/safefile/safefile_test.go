package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 100), 0o600)
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(small, link)

	if _, err := ReadFile(fifo, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("fifo: %v, want ErrNotRegular", err)
	}
	if _, err := ReadFile(dir, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("dir: %v, want ErrNotRegular", err)
	}
	if _, err := ReadFile("/dev/zero", 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: %v, want ErrNotRegular", err)
	}
	if _, err := ReadFile(big, 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big: %v, want ErrTooLarge", err)
	}
	if b, err := ReadFile(link, 10); err != nil || string(b) != "hello" {
		t.Errorf("link (followed for reads): %q %v", b, err)
	}
	if _, err := Stat(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("stat fifo: %v, want ErrNotRegular", err)
	}
	if _, err := OpenAppend(link, 0o600); err == nil {
		t.Error("OpenAppend followed a symlink")
	}
	if _, err := OpenAppend(fifo, 0o600); !errors.Is(err, ErrNotRegular) {
		t.Errorf("OpenAppend fifo: %v, want ErrNotRegular", err)
	}
	if _, err := OpenRW(link, 0o600); err == nil {
		t.Error("OpenRW followed a symlink")
	}
	if _, err := CreateExcl(link, 0o600); err == nil {
		t.Error("CreateExcl accepted an existing symlink")
	}
	f, err := OpenAppend(filepath.Join(dir, "new.log"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestClearSocket(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.sock")
	os.Mkdir(empty, 0o700)
	if err := ClearSocket(empty); err == nil {
		t.Error("an empty directory at the socket path was accepted")
	}
	if _, err := os.Stat(empty); err != nil {
		t.Error("the directory was removed")
	}
	file := filepath.Join(dir, "stale.sock")
	os.WriteFile(file, nil, 0o600)
	if err := ClearSocket(file); err != nil {
		t.Error(err)
	}
	if err := ClearSocket(filepath.Join(dir, "none.sock")); err != nil {
		t.Error(err)
	}
}
