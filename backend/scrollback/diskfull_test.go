package scrollback

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/reprise-dev/reprise/internal/testenv"
)

// mountTinyFS mounts a 1 MiB tmpfs at a new directory, or skips the test
// when mounting is not permitted (not root, or no CAP_SYS_ADMIN).
func mountTinyFS(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testenv.MountTmpfs(t, dir, "size=1m,mode=0700")
	return dir
}

// After a transient disk-full the log stopped for good ("logging stopped
// for session") and a restore showed 4 KiB of 20,000 lines. Now it resumes
// when space is back, with a label for the gap.
func TestDiskFullGapIsLabelledAndLoggingResumes(t *testing.T) {
	dir := mountTinyFS(t)
	filler := filepath.Join(dir, "filler")
	if err := os.WriteFile(filler, make([]byte, 700<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Create(dir, "t_full", 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	line := func(tag string, i int) []byte {
		return fmt.Appendf(nil, "%s %05d %s\r\n", tag, i, bytes.Repeat([]byte("."), 80))
	}
	kept := 0
	for ; ; kept++ {
		if kept > 100000 {
			t.Fatal("the 1 MiB disk never filled")
		}
		if _, err := w.Write(line("before", kept)); err != nil {
			if !errors.Is(err, ErrDropped) || !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("write error %v, want ErrDropped wrapping ENOSPC", err)
			}
			break
		}
	}
	for i := 0; i < 50; i++ {
		if _, err := w.Write(line("lost", i)); err == nil {
			t.Fatal("a write succeeded on a full disk")
		}
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if _, err := w.Write(line("after", i)); err != nil {
			t.Fatalf("write after space came back: %v", err)
		}
	}
	w.Close()

	log, _, ok, err := Tail(dir, "t_full", 64<<20)
	if err != nil || !ok {
		t.Fatalf("tail: ok=%v err=%v", ok, err)
	}
	label := []byte("was not kept: disk full]")
	at := bytes.Index(log, label)
	if at < 0 {
		t.Fatalf("no gap label in the log (%d bytes, ends %q)", len(log), log[max(0, len(log)-200):])
	}
	if bytes.Contains(log, []byte("lost ")) {
		t.Error("dropped output is in the log")
	}
	if !bytes.HasSuffix(log, line("after", 19)) {
		t.Errorf("the log does not end with the output written after space came back: %q", log[max(0, len(log)-200):])
	}
	// Everything before the label is whole lines: a partial write was cut
	// back, not left as half a line (or half an escape sequence).
	head := log[:bytes.LastIndex(log[:at], []byte("\r\n\x1b[0;2m"))]
	if want := bytes.Join(func() [][]byte {
		var ls [][]byte
		for i := 0; i < kept; i++ {
			ls = append(ls, line("before", i))
		}
		return ls
	}(), nil); !bytes.Equal(head, want) {
		t.Errorf("the log before the gap holds %d bytes, want the %d whole lines written (%d bytes)", len(head), kept, len(want))
	}
}

// A terminal opened while the disk is full (no room even for the log
// file) had no log for its whole life. Its log now starts, labelled, once
// there is room.
func TestCreateOnFullDiskStartsLater(t *testing.T) {
	dir := t.TempDir()
	testenv.MountTmpfs(t, dir, "size=1m,nr_inodes=8,mode=0700")
	var fillers []string
	for i := 0; ; i++ {
		p := filepath.Join(dir, fmt.Sprintf("filler%d", i))
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
		fillers = append(fillers, p)
	}
	w, err := Create(dir, "t_late", 1<<20)
	if err != nil {
		t.Fatalf("create on a full disk: %v", err)
	}
	defer w.Close()
	if _, err := w.Write([]byte("lost\r\n")); !errors.Is(err, ErrDropped) {
		t.Fatalf("write with no log file: %v, want ErrDropped", err)
	}
	os.Remove(fillers[0])
	if _, err := w.Write([]byte("kept\r\n")); err != nil {
		t.Fatalf("write once there is room: %v", err)
	}
	log, _, ok, err := Tail(dir, "t_late", 1<<20)
	if err != nil || !ok {
		t.Fatalf("tail: ok=%v err=%v", ok, err)
	}
	if !bytes.Contains(log, []byte("was not kept: disk full]")) || !bytes.HasSuffix(log, []byte("kept\r\n")) || bytes.Contains(log, []byte("lost")) {
		t.Fatalf("log %q", log)
	}
}
