package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `reprise hooks install --agent ID` merges Reprise's hooks into this
// user's config of that agent, calling the given binary; bad usage is one
// line and exit 2.
func TestHooksInstallCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	if code, _, stderr := runCLI("hooks", "install"); code != 2 || !strings.Contains(stderr, "needs --agent") {
		t.Fatalf("without --agent: %d %q", code, stderr)
	}
	if code, _, stderr := runCLI("hooks", "install", "--agent", "nope"); code != 2 || !strings.Contains(stderr, "unknown agent") {
		t.Fatalf("unknown agent: %d %q", code, stderr)
	}
	if code, _, stderr := runCLI("hooks", "install", "--agent", "codex", "--exe", "bin/reprise"); code != 2 || !strings.Contains(stderr, "absolute") {
		t.Fatalf("relative --exe: %d %q", code, stderr)
	}
	if code, _, stderr := runCLI("hooks", "status", "--agent", "nope"); code != 2 || !strings.Contains(stderr, "unknown agent") {
		t.Errorf("status of an unknown agent: %d %q, want 2 as install", code, stderr)
	}
	// The binary the hooks call must be there: they fail silently ("|| true").
	exe := filepath.Join(t.TempDir(), "reprise")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExec := filepath.Join(t.TempDir(), "reprise")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"/opt/x/reprise", notExec, filepath.Dir(exe)} {
		args := []string{"hooks", "install", "--agent", "codex", "--exe", bad}
		code, stdout, stderr := runCLI(args...)
		if code != 2 {
			t.Errorf("--exe %s: exit %d, want 2", bad, code)
		}
		oneErrorLine(t, args, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); err == nil {
		t.Fatal("hooks calling a missing binary were installed")
	}
	code, stdout, stderr := runCLI("hooks", "install", "--agent", "codex", "--exe", exe)
	if code != 0 || !strings.Contains(stdout, "codex hooks installed in "+filepath.Join(home, ".codex", "hooks.json")) {
		t.Fatalf("install: %d %q %q", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(home, ".codex", "hooks.json"))
	if err != nil || !strings.Contains(string(b), "'"+exe+"' hook codex Stop") {
		t.Fatalf("hooks.json: %v\n%s", err, b)
	}
	if code, stdout, _ := runCLI("hooks", "status", "--agent", "codex", "--exe", "/opt/other/reprise"); code != 0 || !strings.Contains(stdout, "partly installed") {
		t.Fatalf("status for another binary: %d %q", code, stdout)
	}
}
