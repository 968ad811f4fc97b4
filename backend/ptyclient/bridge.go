package ptyclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyproto"
)

// Bridge is `reprise ptyd connect`: what a remote host runs at the other
// end of an ssh channel. It connects to the home's daemon, starting one
// detached if none answers (so the daemon outlives this ssh link), and
// joins stdin/stdout to the daemon's socket until either side closes. It
// does not parse the host's frames: the host and the daemon speak ptyproto
// end to end; a dropped link is just a client that went away.
//
// When stdin and stdout are files (sshd's pipes) and the daemon takes them
// (ptyproto.FeatureHandoff), they are handed to the daemon, which then reads
// and writes the channel itself: no process copies the bytes in between.
// Bridge closes its own stdin and stdout then and waits until the daemon is
// done with them. An older daemon (or any refusal) gets the bytes copied
// both ways, as before.
//
// With noStart it only connects (restore-check asks a running daemon and
// never starts one): no daemon is one error line.
func Bridge(ctx context.Context, home paths.Home, exe string, noStart bool, stdin io.Reader, stdout io.Writer) error {
	dial := func() (net.Conn, error) {
		if noStart {
			var d net.Dialer
			conn, err := d.DialContext(ctx, "unix", home.PtydSocket())
			if err != nil {
				return nil, fmt.Errorf("no pty daemon runs for %s: %w", home.Dir, err)
			}
			return conn, nil
		}
		return dialOrStart(ctx, home, exe)
	}
	conn, err := dial()
	if err != nil {
		return err
	}
	in, inFile := stdin.(*os.File)
	out, outFile := stdout.(*os.File)
	if uc, ok := conn.(*net.UnixConn); ok && inFile && outFile {
		took, herr := handOff(uc, in, out)
		var sent sentError
		if errors.As(herr, &sent) {
			// Whether the daemon uses them is not known: relaying too
			// could make two readers of one channel.
			conn.Close()
			return herr
		}
		if took {
			defer conn.Close()
			in.Close()
			out.Close()
			// The daemon closes this connection when the channel ends.
			_, err := io.Copy(io.Discard, conn)
			return err
		}
		conn.Close()
		if herr != nil {
			fmt.Fprintf(os.Stderr, "reprise ptyd connect: the daemon did not take the channel (%v); relaying it\n", herr)
		}
		if conn, err = dial(); err != nil {
			return err
		}
	}
	defer conn.Close()
	return relay(conn, stdin, stdout)
}

// handOff offers the daemon on uc the channel's stdio (ptyproto
// FeatureHandoff). took: the daemon has them. Not taken with no error: the
// daemon predates the feature (or refused the hello, which the host then
// hears itself on its own hello).
func handOff(uc *net.UnixConn, in, out *os.File) (took bool, err error) {
	_ = uc.SetDeadline(time.Now().Add(10 * time.Second))
	defer uc.SetDeadline(time.Time{})
	if err := ptyproto.WriteFrame(uc, &ptyproto.Header{Type: ptyproto.THello, Version: ptyproto.Version, Client: "ptyd connect", Features: []string{ptyproto.FeatureHandoff}}, nil); err != nil {
		return false, err
	}
	// Unbuffered: nothing after the daemon's hello may be read here.
	f, err := ptyproto.ReadFrame(uc)
	if err != nil {
		return false, err
	}
	if f.Header.Type != ptyproto.THello || !f.Header.Has(ptyproto.FeatureHandoff) {
		return false, nil
	}
	var frame bytes.Buffer
	if err := ptyproto.WriteFrame(&frame, &ptyproto.Header{Type: ptyproto.THandoff}, nil); err != nil {
		return false, err
	}
	rin, err := rawFD(in)
	if err != nil {
		return false, err
	}
	rout, err := rawFD(out)
	if err != nil {
		return false, err
	}
	if _, _, err := uc.WriteMsgUnix(frame.Bytes(), unix.UnixRights(rin, rout), nil); err != nil {
		return false, err
	}
	f, err = ptyproto.ReadFrame(uc)
	if err != nil {
		return false, sentError{fmt.Errorf("handing the channel to the pty daemon: %w", err)}
	}
	if f.Header.Type != ptyproto.TOK {
		// The daemon closed what it got without using it.
		return false, fmt.Errorf("%s", f.Header.Error)
	}
	return true, nil
}

// sentError: the descriptors went to the daemon and no answer came back.
type sentError struct{ err error }

func (e sentError) Error() string { return e.err.Error() }
func (e sentError) Unwrap() error { return e.err }

// rawFD is f's descriptor without os.File.Fd's switch to blocking mode.
func rawFD(f *os.File) (int, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if err := sc.Control(func(u uintptr) { fd = int(u) }); err != nil {
		return -1, err
	}
	return fd, nil
}

// relay copies bytes both ways between the channel and the daemon.
func relay(conn net.Conn, stdin io.Reader, stdout io.Writer) error {
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
		// A file stdout and the daemon's socket: os.File.ReadFrom splices.
		_, err := io.Copy(stdout, conn)
		done <- err
	}()
	return <-done
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
