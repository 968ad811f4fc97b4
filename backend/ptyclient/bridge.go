package ptyclient

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/reprise-dev/reprise/backend/paths"
)

// Bridge is `reprise ptyd connect`: what a remote host runs at the other
// end of an ssh channel. It connects to the home's daemon, starting one
// detached if none answers (so the daemon outlives this ssh link), and
// relays bytes between stdin/stdout and the daemon's socket until either
// side closes. It does not parse frames: the host and the daemon speak
// ptyproto end to end; a dropped link is just a client that went away.
//
// With noStart it only connects (restore-check asks a running daemon and
// never starts one): no daemon is one error line.
func Bridge(ctx context.Context, home paths.Home, exe string, noStart bool, stdin io.Reader, stdout io.Writer) error {
	var conn net.Conn
	var err error
	if noStart {
		var d net.Dialer
		conn, err = d.DialContext(ctx, "unix", home.PtydSocket())
		if err != nil {
			err = fmt.Errorf("no pty daemon runs for %s: %w", home.Dir, err)
		}
	} else {
		conn, err = dialOrStart(ctx, home, exe)
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	done := make(chan error, 2)
	go func() {
		_, err := io.Copy(conn, stdin)
		// The host hung up (or the link dropped): tell the daemon, which
		// ends this client's subscriptions; its sessions keep running.
		if uc, ok := conn.(*net.UnixConn); ok {
			_ = uc.CloseWrite()
		}
		done <- err
	}()
	go func() {
		_, err := io.Copy(stdout, conn)
		done <- err
	}()
	err = <-done
	return err
}

func dialOrStart(ctx context.Context, home paths.Home, exe string) (net.Conn, error) {
	var d net.Dialer
	if c, err := d.DialContext(ctx, "unix", home.PtydSocket()); err == nil {
		return c, nil
	}
	if err := SpawnDetached(home, exe); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(5 * time.Second)
	var lastErr error
	for time.Now().Before(deadline) {
		c, err := d.DialContext(ctx, "unix", home.PtydSocket())
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
	return nil, fmt.Errorf("pty daemon did not start within 5s (%v); see %s", lastErr, home.PtydLog())
}

// SpawnDetached starts the daemon so that it survives the ssh session that
// asked for it: as a transient systemd user unit where the user has a
// systemd manager (so logind's KillUserProcesses on logout does not reach
// it), else in its own session like Spawn.
func SpawnDetached(home paths.Home, exe string) error {
	if err := home.Ensure(); err != nil {
		return err
	}
	if hasUserSystemd() {
		if run, err := exec.LookPath("systemd-run"); err == nil {
			cmd := exec.Command(run, "--user", "--quiet", "--collect",
				"--property=KillMode=process", // a daemon restart must not take the terminals with it
				exe, "ptyd", "--home", home.Dir)
			out, err := cmd.CombinedOutput()
			if err == nil {
				return nil
			}
			// Fall through to setsid: the manager may be reachable but
			// refuse (no lingering, a broken session); the daemon still runs.
			fmt.Fprintf(os.Stderr, "reprise ptyd connect: systemd-run --user failed (%v: %s); starting the daemon in its own session\n", err, oneLineOut(out))
		}
	}
	return Spawn(home, exe)
}

func hasUserSystemd() bool {
	rt := os.Getenv("XDG_RUNTIME_DIR")
	if rt == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(rt, "systemd", "private"))
	return err == nil
}

func oneLineOut(b []byte) string {
	s := string(b)
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
