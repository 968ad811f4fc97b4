package ptyd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/scrollback"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// A transient disk-full stopped a session's scrollback log for good
// ("logging stopped for session"): once space was back nothing more was
// kept. Now the log resumes and labels the gap.
func TestScrollbackResumesAfterDiskFull(t *testing.T) {
	dir := t.TempDir()
	testenv.MountTmpfs(t, dir, "size=1m,mode=0700")
	_, sock := startServer(t, Config{ScrollbackDir: dir})
	c := dial(t, sock, ptyclient.Options{Name: "test"})
	open(t, c, "t_full", "/bin/sh")
	o := subscribe(t, c, "t_full")
	c.Input("t_full", []byte("echo before-$((0+1))\n"))
	o.waitFor(t, "before-1")

	// Fill the disk to the last block.
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	// The session writes its log before it sends output on, so seeing the
	// output means the log write was tried. More than the page the log's
	// last block may still have free: some of it cannot be kept.
	c.Input("t_full", []byte("i=0; while [ $i -lt 1000 ]; do echo lost-line-$i; i=$((i+1)); done; echo lost-$((1+1))\n"))
	o.waitFor(t, "lost-2")
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	c.Input("t_full", []byte("echo after-$((2+2))\n"))
	o.waitFor(t, "after-4")

	log, _, ok, err := scrollback.Tail(dir, "t_full", 1<<20)
	if err != nil || !ok {
		t.Fatalf("tail: ok=%v err=%v", ok, err)
	}
	last := -1
	for _, want := range []string{"before-1", "was not kept: disk full", "after-4"} {
		at := bytes.Index(log, []byte(want))
		if at < 0 {
			t.Fatalf("log lacks %q: %q", want, log)
		}
		if at < last {
			t.Fatalf("%q is out of order in the log: %q", want, log)
		}
		last = at
	}
}
