package ptyd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reprise-dev/reprise/backend/ptyclient"
)

// The log a session left on disk when its daemon died is served to a new
// daemon's client: its end, bounded by what was asked and by the replay
// budget, with the whole log's size so the gap can be labelled; a live
// session's log, a hostile id and a missing log are refused or reported.
func TestLogTailOfDeadSession(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scrollback")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// What a killed daemon left: a rotated pair.
	prev := bytes.Repeat([]byte("p"), 3000)
	cur := append(bytes.Repeat([]byte("c"), 2000), "LAST\r\n"...)
	if err := os.WriteFile(filepath.Join(dir, "t_dead.log.1"), prev, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t_dead.log"), cur, 0o600); err != nil {
		t.Fatal(err)
	}
	_, sock := startServer(t, Config{ScrollbackDir: dir, ReplaySize: 4096})
	c := dial(t, sock, ptyclient.Options{Name: "test"})
	ctx := context.Background()

	lt, err := c.LogTail(ctx, "t_dead", 1<<20) // more than the budget: capped
	if err != nil {
		t.Fatal(err)
	}
	whole := int64(len(prev) + len(cur))
	if !lt.OK || lt.Size != whole || len(lt.Data) != 4096 || !strings.HasSuffix(string(lt.Data), "LAST\r\n") || lt.Mod <= 0 {
		t.Fatalf("logtail: ok %v, size %d (want %d), %d bytes (want the last 4096), mod %d", lt.OK, lt.Size, whole, len(lt.Data), lt.Mod)
	}
	if want := append(prev[len(prev)-(4096-len(cur)):], cur...); !bytes.Equal(lt.Data, want) {
		t.Fatal("logtail did not return the log's last bytes across the rotation")
	}
	if lt, err := c.LogTail(ctx, "t_none", 100); err != nil || lt.OK || len(lt.Data) != 0 {
		t.Fatalf("logtail of a session without a log: %+v, %v", lt, err)
	}
	if _, err := c.LogTail(ctx, "../../etc/passwd", 100); err == nil {
		t.Fatal("logtail accepted a hostile id")
	}

	// A live session's log is not this request's.
	if _, err := c.Open(ctx, ptyclient.OpenRequest{ID: "t_live", Argv: []string{"/bin/sh", "-c", "exec sleep 60"}, Cwd: "/", Log: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.LogTail(ctx, "t_live", 100); err == nil || !strings.Contains(err.Error(), "held by this daemon") {
		t.Fatalf("logtail of a live session: %v", err)
	}
	if err := c.RemoveLog(ctx, "t_live"); err == nil {
		t.Fatal("logrm removed a live session's log")
	}

	if err := c.RemoveLog(ctx, "t_dead"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"t_dead.log", "t_dead.log.1"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s after logrm: %v", p, err)
		}
	}
}
