package inbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPutChild is the process TestPutIsDurable traces.
func TestPutChild(t *testing.T) {
	dir := os.Getenv("REPRISE_INBOX_TRACE_DIR")
	if dir == "" {
		t.Skip("run by TestPutIsDurable")
	}
	if err := (Inbox{Dir: dir}).Put([]byte(`{"event":"Stop"}`)); err != nil {
		t.Fatal(err)
	}
}

// An acknowledged hook event must survive a power loss: Put fsyncs the
// record before renaming it into place and the directory after, or the
// rename (or the data under it) may be lost. Checked on the real system
// calls, with strace.
func TestPutIsDurable(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not installed")
	}
	dir := t.TempDir()
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-y", "-o", trace, "-e", "trace=fsync,fdatasync,rename,renameat,renameat2",
		os.Args[0], "-test.run=^TestPutChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "REPRISE_INBOX_TRACE_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "ptrace") {
			t.Skipf("strace cannot trace here: %s", out)
		}
		t.Fatalf("traced Put: %v\n%s", err, out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("inbox holds %d entries, want 1 record", len(ents))
	}
	record := filepath.Join(dir, ents[0].Name())
	syncedTemp, renamed, syncedDir := -1, -1, -1
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		switch {
		case strings.Contains(l, "rename") && strings.Contains(l, `"`+record+`"`) && strings.Contains(l, "= 0"):
			renamed = i
		case strings.Contains(l, "sync(") && strings.Contains(l, "<"+dir+"/.") && strings.Contains(l, "= 0"):
			syncedTemp = i
		case strings.Contains(l, "sync(") && strings.Contains(l, "<"+dir+">") && strings.Contains(l, "= 0"):
			syncedDir = i
		}
	}
	if renamed < 0 {
		t.Fatalf("no rename into %s in the trace:\n%s", record, b)
	}
	if syncedTemp < 0 || syncedTemp > renamed {
		t.Errorf("the record was not fsynced before its rename:\n%s", b)
	}
	if syncedDir < renamed {
		t.Errorf("the inbox directory was not fsynced after the rename:\n%s", b)
	}
}
