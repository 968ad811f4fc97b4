package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func buildReprise(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "reprise")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// run runs reprise with no subcommand and returns its exit status and
// stderr.
func run(t *testing.T, bin string, env ...string) (int, string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, "--home", filepath.Join(t.TempDir(), "h"))
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String(), cmd
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String(), cmd
}

// `reprise` with no subcommand opens the desktop app installed beside it,
// and when it cannot, says why in one line and exits 1 (it used to panic
// inside GTK with a Go trace, after starting a host and a daemon).
func TestOpenDesktop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildReprise(t, dir)
	oneLine := func(t *testing.T, stderr, want string) {
		t.Helper()
		if strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, want) {
			t.Errorf("stderr %q, want one line with %q", stderr, want)
		}
	}

	t.Run("no display", func(t *testing.T) {
		code, stderr, _ := run(t, bin, "DISPLAY=", "WAYLAND_DISPLAY=")
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		oneLine(t, stderr, "no display")
	})
	t.Run("display that does not answer", func(t *testing.T) {
		code, stderr, _ := run(t, bin, "DISPLAY=:32109", "WAYLAND_DISPLAY=")
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		oneLine(t, stderr, "DISPLAY=:32109: nothing answers")
	})

	// A display that answers: a Unix socket named like an XQuartz DISPLAY.
	sock := filepath.Join(t.TempDir(), "x") + ":0"
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	display := []string{"DISPLAY=" + sock, "WAYLAND_DISPLAY="}

	t.Run("desktop app missing", func(t *testing.T) {
		code, stderr, _ := run(t, bin, display...)
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		oneLine(t, stderr, "reprise-desktop is missing")
	})
	t.Run("execs the desktop app beside it", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "ran")
		app := "#!/bin/sh\necho \"$$ $*\" > " + out + "\n"
		if err := os.WriteFile(filepath.Join(dir, "reprise-desktop"), []byte(app), 0o755); err != nil {
			t.Fatal(err)
		}
		code, stderr, cmd := run(t, bin, display...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(got))
		// The same process (exec, not a child), with the arguments passed on.
		if len(f) != 3 || f[0] != strconv.Itoa(cmd.Process.Pid) || f[1] != "--home" {
			t.Errorf("desktop app ran as %q, want pid %d with --home", got, cmd.Process.Pid)
		}
	})
}
