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
	FakeBin string // a directory with the fake claude and codex, to put first on PATH
}

// Build compiles the reprise binary and the fake agents into a temp dir.
func Build() (*Binaries, error) {
	dir, err := os.MkdirTemp("", "reprise-test-bin")
	if err != nil {
		return nil, err
	}
	b := &Binaries{Dir: dir, Reprise: filepath.Join(dir, "reprise"), FakeBin: filepath.Join(dir, "fakebin")}
	for _, args := range [][]string{
		{"-o", b.Reprise, "github.com/reprise-dev/reprise"},
		{"-o", filepath.Join(b.FakeBin, "claude"), "github.com/reprise-dev/reprise/internal/fakeagents/cmd/claude"},
		{"-o", filepath.Join(b.FakeBin, "codex"), "github.com/reprise-dev/reprise/internal/fakeagents/cmd/codex"},
	} {
		if out, err := exec.Command("go", append([]string{"build"}, args...)...).CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("build %s: %v\n%s", args[2], err, out)
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
