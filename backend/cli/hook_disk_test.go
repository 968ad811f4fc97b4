package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/internal/testenv"
)

const hookTID = "t_0123456789abcdef"

// hookCmd is `reprise hook claude <event>` in a pane of home, with no host
// to poke.
func hookCmd(home, event string) *exec.Cmd {
	cmd := exec.Command(reprise, "hook", "claude", event)
	cmd.Env = []string{"REPRISE_TERMINAL_ID=" + hookTID, "REPRISE_HOME=" + home, "REPRISE_HOST_SOCKET=" + filepath.Join(home, "none.sock"), "PATH=/usr/bin:/bin"}
	return cmd
}

// waitExit waits for cmd, failing the test if it is still running after
// limit (it is killed then).
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the hook was still running after %v", limit)
		return nil
	}
}

func inboxRecords(t *testing.T, home string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(home, "inbox", "*.json"))
	return m
}

// An agent that never closes the hook's stdin hung the hook forever (and
// the agent waiting for it). The read is bounded: the hook exits, and the
// payload it did get is kept.
func TestHookStdinNeverClosed(t *testing.T) {
	home := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close() // held open until the hook has exited
	cmd := hookCmd(home, "SessionStart")
	cmd.Stdin = r
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	w.Write([]byte(`{"session_id":"s-open","hook_event_name":"SessionStart","source":"startup"}`))
	if err := waitExit(t, cmd, 20*time.Second); err != nil {
		t.Fatalf("hook: %v", err)
	}
	if recs := inboxRecords(t, home); len(recs) != 1 {
		t.Fatalf("inbox holds %d records, want the one event", len(recs))
	}
	log, _ := os.ReadFile(filepath.Join(home, "logs", "hooks.log"))
	if !strings.Contains(string(log), "stdin still open") {
		t.Errorf("hooks.log does not say stdin was left open: %q", log)
	}
}

// fullInbox mounts a 1 MiB tmpfs at home/inbox and fills it; it returns
// the filler's path.
func fullInbox(t *testing.T, home string) string {
	t.Helper()
	dir := filepath.Join(home, "inbox")
	os.MkdirAll(dir, 0o700)
	testenv.MountTmpfs(t, dir, "size=1m,mode=0700")
	filler := filepath.Join(dir, ".filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return filler
		}
	}
}

const startPayload = `{"session_id":"s-full","hook_event_name":"SessionStart","source":"startup","cwd":"/tmp"}`

// A hook event sent while the disk was full was dropped with no trace.
// Now the write is retried, and a lost event is logged with its record.
func TestHookDiskFull(t *testing.T) {
	t.Run("stays full", func(t *testing.T) {
		home := t.TempDir()
		fullInbox(t, home)
		cmd := hookCmd(home, "SessionStart")
		cmd.Stdin = strings.NewReader(startPayload)
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if err := waitExit(t, cmd, 20*time.Second); err != nil {
			t.Fatalf("hook exited with %v; it must exit 0 whatever happens", err)
		}
		if out.Len() > 0 {
			t.Errorf("hook printed on stdout: %q", out.String())
		}
		log, _ := os.ReadFile(filepath.Join(home, "logs", "hooks.log"))
		for _, want := range []string{"hook event not saved; retrying", "hook event could not be saved; it is lost", "attempts=6", "s-full"} {
			if !strings.Contains(string(log), want) {
				t.Errorf("hooks.log lacks %q: %q", want, log)
			}
		}
	})
	t.Run("hooks.log unwritable too", func(t *testing.T) {
		home := t.TempDir()
		fullInbox(t, home)
		// A directory where the log file should be: it cannot be opened.
		os.MkdirAll(filepath.Join(home, "logs", "hooks.log"), 0o700)
		cmd := hookCmd(home, "SessionStart")
		cmd.Stdin = strings.NewReader(startPayload)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if err := waitExit(t, cmd, 20*time.Second); err != nil {
			t.Fatalf("hook exited with %v", err)
		}
		if stdout.Len() > 0 {
			t.Errorf("hook printed on stdout: %q", stdout.String())
		}
		if !strings.Contains(stderr.String(), "could not be saved; it is lost") || !strings.Contains(stderr.String(), "s-full") {
			t.Errorf("the lost event is not on stderr: %q", stderr.String())
		}
	})
	t.Run("space comes back", func(t *testing.T) {
		home := t.TempDir()
		filler := fullInbox(t, home)
		cmd := hookCmd(home, "SessionStart")
		cmd.Stdin = strings.NewReader(startPayload)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		logPath := filepath.Join(home, "logs", "hooks.log")
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(2 * time.Millisecond) {
			if log, _ := os.ReadFile(logPath); strings.Contains(string(log), "retrying") {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the hook never said it was retrying")
			}
		}
		os.Remove(filler)
		if err := waitExit(t, cmd, 20*time.Second); err != nil {
			t.Fatalf("hook: %v", err)
		}
		if recs := inboxRecords(t, home); len(recs) != 1 {
			t.Fatalf("inbox holds %d records after space came back, want 1", len(recs))
		}
		if log, _ := os.ReadFile(logPath); !strings.Contains(string(log), "saved after retrying") {
			t.Errorf("hooks.log: %q", log)
		}
	})
}
