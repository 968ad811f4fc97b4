package host

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A hook's transcript_path comes from any program in a pane. A FIFO there
// hung `sessions list`, restore-check and the host's start; a huge sparse
// file was read whole (serve went from 130 MB to 2.2 GB).
func TestTranscriptCheckHostilePaths(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "chat.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "big.json")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	reply := filepath.Join(dir, "ok.json")
	os.WriteFile(reply, []byte(`{"messages":[{"type":"user"},{"type": "gemini","content":"hi"}]}`), 0o600)
	env := []string{"HOME=" + dir, "CLAUDE_CONFIG_DIR=" + dir}

	for _, tc := range []struct {
		name, agent, stored string
		saved, notRegular   bool
	}{
		{"gemini fifo", "gemini", fifo, false, true},
		{"claude fifo", "claude", filepath.Join(dir, "s1.jsonl"), false, true},
		{"gemini sparse", "gemini", sparse, false, false},
		{"gemini reply", "gemini", reply, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.agent == "claude" {
				os.Remove(tc.stored)
				if err := syscall.Mkfifo(tc.stored, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			type result struct {
				saved bool
				path  string
			}
			done := make(chan result, 1)
			go func() {
				saved, _, path := transcriptCheck(env, tc.agent, "s1", dir, tc.stored)
				done <- result{saved, path}
			}()
			select {
			case r := <-done:
				if r.saved != tc.saved {
					t.Fatalf("saved = %v, want %v", r.saved, tc.saved)
				}
				if got := strings.HasSuffix(r.path, "(not a regular file)"); got != tc.notRegular {
					t.Fatalf("path %q: reported as not a regular file = %v, want %v", r.path, got, tc.notRegular)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("transcriptCheck hung on the path")
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			grew := int64(after.TotalAlloc - before.TotalAlloc)
			t.Logf("allocated %d KiB", grew>>10)
			if grew > 64<<20 {
				t.Fatalf("checking the transcript allocated %d MiB", grew>>20)
			}
		})
	}
}
