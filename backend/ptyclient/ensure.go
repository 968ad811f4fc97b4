package ptyclient

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/safefile"
)

// Ensure connects to the home's daemon, starting one if none answers. exe
// is the reprise binary (its "ptyd" subcommand is the daemon).
func Ensure(ctx context.Context, home paths.Home, exe string, opts Options) (*Client, error) {
	if c, err := Dial(ctx, home.PtydSocket(), opts); err == nil {
		return c, nil
	}
	if err := Spawn(home, exe); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(5 * time.Second)
	var lastErr error
	for time.Now().Before(deadline) {
		c, err := Dial(ctx, home.PtydSocket(), opts)
		if err == nil {
			return c, nil
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	log := home.PtydStderr() // where a failure to start is printed
	if lastLogLine(log) == "" {
		log = home.PtydLog()
	}
	return nil, fmt.Errorf("pty daemon did not start within 5s (%v); see %s: %s", lastErr, log, lastLogLine(log))
}

// Spawn starts a detached daemon: its own session (so the host's terminal
// or process group dying does not reach it), stdin from /dev/null, output
// (a failure to start, a crash trace) appended to ptyd.stderr.log, cwd "/".
// The daemon writes its own log, ptyd.log, which rotates; this file is only
// written when something goes badly wrong, so it stays small.
func Spawn(home paths.Home, exe string) error {
	if err := home.Ensure(); err != nil {
		return err
	}
	logf, err := safefile.OpenAppend(home.PtydStderr(), 0o600) // a planted symlink is refused
	if err != nil {
		return fmt.Errorf("open daemon log: %w", err)
	}
	defer logf.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer devnull.Close()
	cmd := exec.Command(exe, "ptyd", "--home", home.Dir)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, logf, logf
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start pty daemon: %w", err)
	}
	go func() { _ = cmd.Wait() }() // reap it if it exits while we live
	return nil
}

func lastLogLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	lines := strings.Split(string(bytes.TrimSpace(b)), "\n")
	return lines[len(lines)-1]
}
