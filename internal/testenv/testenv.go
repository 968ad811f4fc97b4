// Package testenv holds what the integration tests of several packages
// share: the real reprise binary and the fake agents built once per test
// binary, and a way to stop everything a throwaway home started.
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Binaries are the built programs.
type Binaries struct {
	Dir     string // remove it when done
	Reprise string // the real reprise binary (its ptyd subcommand is the daemon)
	FakeBin string // a directory with the fake claude, codex and gemini, to put first on PATH
}

// BinEnv names a reprise binary to test instead of building one:
// scripts/bench.sh sets it to build/bin/reprise, so the benchmarks measure
// the binary users install.
const BinEnv = "REPRISE_TEST_BIN"

// CLIPackage is the GUI-free reprise binary: the daemon, the hooks and the
// CLI (the desktop app is the module's root package).
const CLIPackage = "github.com/reprise-dev/reprise/cmd/reprise"

// Reprise returns the reprise binary under test: $REPRISE_TEST_BIN, or one
// built from CLIPackage into dir.
func Reprise(dir string) (string, error) {
	if p := os.Getenv(BinEnv); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("%s: %w", BinEnv, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("%s: %w", BinEnv, err)
		}
		return abs, nil
	}
	bin := filepath.Join(dir, "reprise")
	if out, err := exec.Command("go", "build", "-o", bin, CLIPackage).CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", CLIPackage, err, out)
	}
	return bin, nil
}

// Build compiles the reprise binary (or takes $REPRISE_TEST_BIN) and the
// fake agents into a temp dir.
func Build() (*Binaries, error) {
	dir, err := os.MkdirTemp("", "reprise-test-bin")
	if err != nil {
		return nil, err
	}
	b := &Binaries{Dir: dir, FakeBin: filepath.Join(dir, "fakebin")}
	if b.Reprise, err = Reprise(dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for _, args := range [][]string{
		{"-o", filepath.Join(b.FakeBin, "claude"), "github.com/reprise-dev/reprise/internal/fakeagents/cmd/claude"},
		{"-o", filepath.Join(b.FakeBin, "codex"), "github.com/reprise-dev/reprise/internal/fakeagents/cmd/codex"},
		{"-o", filepath.Join(b.FakeBin, "gemini"), "github.com/reprise-dev/reprise/internal/fakeagents/cmd/gemini"},
	} {
		if out, err := exec.Command("go", append([]string{"build"}, args...)...).CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("build %s: %w\n%s", args[2], err, out)
		}
	}
	return b, nil
}

// MustBuild is Build for TestMain: it exits the test binary on failure.
func MustBuild() *Binaries {
	b, err := Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return b
}

// Main is a package's TestMain: it builds the binaries, hands them to use
// (which keeps the paths it needs), runs the tests, removes the binaries and
// exits with the tests' status.
func Main(m *testing.M, use func(*Binaries)) {
	b := MustBuild()
	use(b)
	code := m.Run()
	os.RemoveAll(b.Dir)
	os.Exit(code)
}

// StopInstance kills every process started for a home — terminals, agents,
// the hooks they run, the daemon — so that nothing writes into the home
// (an agent's goodbye hook, say) after a test removes it.
func StopInstance(homeDir string) {
	mark := []byte("REPRISE_HOME=" + homeDir + "\x00")
	for round := 0; round < 50; round++ {
		found := false
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			if env, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && bytes.Contains(env, mark) {
				syscall.Kill(pid, syscall.SIGKILL)
				found = true
			}
		}
		if !found {
			break
		}
		time.Sleep(20 * time.Millisecond) // let the killed go, then look for what they started
	}
	// The daemon was started with --home, not REPRISE_HOME: its pid is in its lock file.
	if b, err := os.ReadFile(filepath.Join(homeDir, "run", "ptyd.lock")); err == nil {
		if pid, err := strconv.Atoi(string(bytes.TrimSpace(b))); err == nil && pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// MountTmpfs mounts a small tmpfs at dir (opts as for mount -o, e.g.
// "size=1m,mode=0700") for a full-disk test and unmounts it when the test
// ends; it skips the test when mounting is not permitted (not root, no
// CAP_SYS_ADMIN).
func MountTmpfs(t testing.TB, dir, opts string) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
		t.Skipf("skipping the full-disk test: cannot mount a tmpfs (%v); run as root to include it", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
}
