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
	prompt := filepath.Join(dir, "prompt.json")
	os.WriteFile(prompt, []byte(`{"messages":[{"type":"user","content":"hi"}]}`), 0o600)
	env := []string{"HOME=" + dir, "CLAUDE_CONFIG_DIR=" + dir}

	for _, tc := range []struct {
		name, agent, stored      string
		saved, known, notRegular bool
	}{
		{"gemini fifo", "gemini", fifo, false, true, true},
		{"claude fifo", "claude", filepath.Join(dir, "s1.jsonl"), false, true, true},
		// The scan stops at its bound with no reply seen: that is not
		// "no reply" (it used to say missing), so unknown.
		{"gemini sparse", "gemini", sparse, false, false, false},
		{"gemini reply", "gemini", reply, true, true, false},
		{"gemini prompt only", "gemini", prompt, false, true, false},
		{"gemini gone", "gemini", filepath.Join(dir, "gone.json"), false, true, false},
		{"gemini under a file", "gemini", filepath.Join(reply, "x.json"), false, true, false},
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
				saved, known bool
				path         string
			}
			done := make(chan result, 1)
			go func() {
				saved, known, path := transcriptCheck(env, tc.agent, "s1", dir, tc.stored)
				done <- result{saved, known, path}
			}()
			select {
			case r := <-done:
				if r.saved != tc.saved || r.known != tc.known {
					t.Fatalf("saved = %v known = %v (%q), want %v %v", r.saved, r.known, r.path, tc.saved, tc.known)
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

// A Codex session id comes from a hook payload: what no agent's id looks
// like ("../x", a long string, control characters) never goes into a
// pattern — no walk, "missing" — and glob characters match only
// themselves, on this machine and in the glob a remote daemon is sent.
func TestCodexRolloutGlobHostileIDs(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, ".codex", "sessions", "2026", "12", "02")
	os.MkdirAll(day, 0o700)
	os.WriteFile(filepath.Join(day, "rollout-2026-12-02T07-00-00-victim.jsonl"), []byte("{}\n"), 0o600)
	// What "../x" would reach if it went into the pattern as is.
	os.MkdirAll(filepath.Join(day, "rollout-a-..", "x"), 0o700)
	os.WriteFile(filepath.Join(day, "rollout-a-..", "x.jsonl"), []byte("{}\n"), 0o600)
	env := []string{"HOME=" + home}
	for _, id := range []string{"../x", "..", ".", "", "a/b", strings.Repeat("a", maxSessionIDLen+1), "a\x00b", "a\nb"} {
		g, _, err := codexRolloutGlob(env, id)
		if err == nil {
			t.Errorf("id %q went into a pattern: %+v", id, g)
		}
		saved, known, p := transcriptCheck(env, "codex", id, "/w", "")
		if saved || !known || !strings.Contains(p, "session id") {
			t.Errorf("id %q: saved=%v known=%v path %q; want missing, the id named", id, saved, known, p)
		}
	}
	for _, id := range []string{"*", "?ictim", "[v]ictim", `\*`} {
		g, _, err := codexRolloutGlob(env, id)
		if err != nil {
			t.Fatalf("id %q: %v", id, err)
		}
		if saved, known, p := transcriptCheck(env, "codex", id, "/w", ""); saved || !known {
			t.Errorf("id %q matched another session's rollout: %q (glob %+v)", id, p, g)
		}
	}
	if saved, _, p := transcriptCheck(env, "codex", "victim", "/w", ""); !saved || !strings.HasSuffix(p, "-victim.jsonl") {
		t.Fatalf("the real rollout: saved=%v %q", saved, p)
	}
	// A uuid as Codex makes them is taken as it is.
	if g, _, err := codexRolloutGlob([]string{"CODEX_HOME=/h/c"}, "0192f3a4-7b2c-7d3e-8f4a-5b6c7d8e9f00"); err != nil || g.Root != "/h/c" || g.Pattern != "sessions/*/*/*/rollout-*-0192f3a4-7b2c-7d3e-8f4a-5b6c7d8e9f00.jsonl" {
		t.Fatalf("uuid: %+v, %v", g, err)
	}
}

// A Claude session id comes from a hook payload too: "../../victim" made
// the transcript check look at <config>/victim.jsonl, outside the projects
// folder, and call the session saved, so the restore forecast and the
// banner offered a resume Claude cannot do ("No conversation found").
func TestClaudeTranscriptHostileIDs(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "victim.jsonl"), []byte("{}\n"), 0o600)
	os.MkdirAll(filepath.Join(dir, "projects", "-w"), 0o700)
	os.WriteFile(filepath.Join(dir, "projects", "-w", "real.jsonl"), []byte("{}\n"), 0o600)
	env := []string{"HOME=" + dir, "CLAUDE_CONFIG_DIR=" + dir}
	for _, id := range []string{"../../victim", "..", "a/b", strings.Repeat("a", maxSessionIDLen+1)} {
		saved, known, p := transcriptCheck(env, "claude", id, "/w", "")
		if saved || !known || !strings.Contains(p, "session id") {
			t.Errorf("id %q: saved=%v known=%v path %q; want missing, the id named", id, saved, known, p)
		}
		if p := claudeTranscriptPath(env, id, "/w", ""); p != "" {
			t.Errorf("id %q: a remote daemon would be asked about %q", id, p)
		}
	}
	if saved, known, p := transcriptCheck(env, "claude", "real", "/w", ""); !saved || !known {
		t.Fatalf("the real transcript: saved=%v known=%v %q", saved, known, p)
	}
}
