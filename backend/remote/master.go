package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// One ssh master per host, started under a lock; every other ssh of the
// host is a channel of it and never logs in on its own.
//
// With ControlMaster=auto, an ssh that found no master answering became a
// master attempt itself: several started at once (the daemon channel, the
// inbox relay, a viewer, a CLI `hosts check`) each logged in — with a
// passphrase key each asked — and the losers ran on connections of their
// own that killing the master left up (a CI run saw exactly that). Now:
//
//   - the master is `ssh -o ControlMaster=yes -N -f`, started only by
//     ensureMaster: in this process one start per control socket at a time
//     (the others wait for its result instead of starting their own), and
//     across processes (the desktop host, the CLI, restore-check) under an
//     flock on `<socket>.lock` in the 0700 control dir. Whoever gets the
//     lock first checks the socket again: a master another process started
//     meanwhile is used, not doubled. A stale socket (no listener: the
//     master was killed) is removed under the lock, since ssh refuses to
//     become a master over an existing socket and would log in without one.
//   - every other ssh runs with ControlMaster=no and a ProxyCommand that
//     only fails: if the master is gone by the time it connects to the
//     socket, ssh's fallback of connecting on its own reaches that command,
//     which prints noMasterMarker and ends — no TCP connection, no login, no
//     prompt. The caller then starts a master (under the lock) and tries
//     once more. A channel over a live master never runs its ProxyCommand,
//     and the master keeps the user's own (ProxyJump, ProxyCommand).

// noMasterMarker is what the channels' ProxyCommand prints: the channel
// found no master and did not log in.
const noMasterMarker = "reprise-no-ssh-master"

// ErrNoMaster: a channel found no master on the host's control socket (it
// ended between the check and the channel's connect).
var ErrNoMaster = errors.New("no ssh master")

type noMasterError struct{ msg string }

func (e noMasterError) Error() string        { return e.msg }
func (e noMasterError) Is(target error) bool { return target == ErrNoMaster }

// masterStartTimeout bounds one master start: the connect (ConnectTimeout
// 10 s, a ProxyJump on the way) and the time a user may take to answer a
// prompt. It is not the caller's deadline: a caller that stops waiting
// leaves the start, and the prompt, to the others.
var masterStartTimeout = 60*time.Second + DefaultAskTimeout

// lockPoll is how often a process waiting for another's master start
// tries the lock again.
const lockPoll = 50 * time.Millisecond

// ControlPath is the host's ControlMaster socket: in the control dir,
// named by the destination and the ssh config file, so every Reprise
// process reaching the same destination the same way (desktop host, CLI,
// restore-check) uses the same master. Not ssh's %C: the lock file is
// named after the socket, and this name is known without asking ssh.
func (t Target) ControlPath() string {
	sum := sha256.Sum256([]byte(t.SSHConfig + "\x00" + t.Dest))
	return filepath.Join(t.ControlDir, "m-"+hex.EncodeToString(sum[:10]))
}

// masterFlight is one master start in this process; the callers that come
// while it runs wait for its result.
type masterFlight struct {
	done chan struct{}
	err  error
}

var (
	flightsMu sync.Mutex
	flights   = map[string]*masterFlight{}
)

// masterAnswers reports whether a master listens on path: nil, or why not
// (ENOENT: no socket; ECONNREFUSED: a stale socket nobody listens on).
func masterAnswers(path string) error {
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		return err
	}
	c.Close()
	return nil
}

// EnsureMaster makes sure the host's ControlMaster runs, starting it if
// none answers (one login, one prompt; see above). It returns at once when
// one runs.
func (t Target) EnsureMaster(ctx context.Context) error {
	path := t.ControlPath()
	if masterAnswers(path) == nil {
		return nil
	}
	// Callers that would ask the same way share a start: one prompt. A
	// start that asks elsewhere (or may not ask) is its own flight, and
	// waits for the lock like another process's.
	key := path
	if t.Askpass != nil {
		key += "\x00" + t.Askpass.Sock
	}
	flightsMu.Lock()
	f := flights[key]
	if f == nil {
		f = &masterFlight{done: make(chan struct{})}
		flights[key] = f
		go func() {
			err := t.startMaster(path)
			flightsMu.Lock()
			delete(flights, key)
			flightsMu.Unlock()
			f.err = err
			close(f.done)
		}()
	}
	flightsMu.Unlock()
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return fmt.Errorf("ssh to %s: waiting for the ssh connection: %w", t.Name, ctx.Err())
	}
}

// startMaster starts the master unless another process did while this one
// waited for the lock.
func (t Target) startMaster(path string) error {
	if err := t.prepareControlDir(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), masterStartTimeout)
	defer cancel()
	unlock, err := lockFile(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("ssh to %s: lock the ssh master: %w", t.Name, err)
	}
	defer unlock()
	switch err := masterAnswers(path); {
	case err == nil:
		return nil // another Reprise process started it meanwhile
	case errors.Is(err, syscall.ECONNREFUSED):
		// Nobody listens (the master was killed); under the lock nobody of
		// ours is starting one. ssh would not replace the socket.
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("ssh to %s: remove stale control socket: %w", t.Name, err)
		}
	case errors.Is(err, os.ErrNotExist):
	default:
		// Something holds the socket but does not accept (a stopped
		// master?). Logging in anyway would make a connection outside it.
		return fmt.Errorf("ssh to %s: its ssh control socket %s does not answer: %w", t.Name, path, err)
	}
	a, err := t.masterArgs()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, t.sshBin(), a...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.WaitDelay = 2 * time.Second
	if t.Askpass != nil {
		cmd.Env = t.Askpass.env(t.Name)
	}
	// stderr into a file, not a pipe: with -f the master lives on after
	// the foreground ssh exits, and a pipe it kept open would hold Wait.
	errf, err := os.CreateTemp(t.ControlDir, ".master-err-*")
	if err != nil {
		return fmt.Errorf("ssh to %s: %w", t.Name, err)
	}
	_ = os.Remove(errf.Name())
	defer errf.Close()
	cmd.Stderr = errf
	runErr := cmd.Run()
	stderr := readTail(errf, 4096)
	if runErr != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("ssh to %s: no connection within %s", t.Name, masterStartTimeout)
		}
		return t.sshError(runErr, stderr)
	}
	if err := masterAnswers(path); err != nil {
		// ssh logged in but could not listen on the socket ("disabling
		// multiplexing"): that connection, backgrounded with nothing to
		// run, would stay up unseen. Under the lock no other master of this
		// socket is starting, so whatever ssh names it as master is that.
		killStrayMasters(path)
		line := lastLine(stderr)
		if line == "" {
			line = err.Error()
		}
		return fmt.Errorf("ssh to %s: the ssh master started but its control socket does not answer (%s)", t.Name, line)
	}
	return nil
}

// killStrayMasters kills the ssh processes started as the master of path
// (their command line has ControlMaster=yes and that ControlPath). Linux
// only (/proc); elsewhere nothing.
func killStrayMasters(path string) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	cp := []byte("\x00-o\x00ControlPath=" + path + "\x00")
	master := []byte("\x00-o\x00ControlMaster=yes\x00")
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, cp) || !bytes.Contains(b, master) {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
}

func readTail(f *os.File, n int64) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-n, 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	return string(b)
}

// lockFile takes an exclusive flock on path, waiting for it as long as
// ctx allows. The file is opened close-on-exec, so the master ssh started
// under the lock does not inherit it (the lock is for the login, not for
// the master's life).
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(fd, syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("another Reprise process is still connecting: %w", ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}

func (t Target) prepareControlDir() error {
	if err := os.MkdirAll(t.ControlDir, 0o700); err != nil {
		return fmt.Errorf("create ssh control dir: %w", err)
	}
	if err := os.Chmod(t.ControlDir, 0o700); err != nil {
		return fmt.Errorf("chmod ssh control dir: %w", err)
	}
	return nil
}

func (t Target) sshBin() string {
	if t.SSH != "" {
		return t.SSH
	}
	return "ssh"
}

// baseArgs are the options every ssh of the host gets, and its
// destination.
func (t Target) baseArgs() (a []string, dest string, err error) {
	dest, port, err := splitDest(t.Dest)
	if err != nil {
		return nil, "", err
	}
	if err := t.prepareControlDir(); err != nil {
		return nil, "", err
	}
	if t.SSHConfig != "" {
		a = append(a, "-F", t.SSHConfig)
	}
	a = append(a,
		"-T", // no pty: the channel carries binary frames
		"-o", "ControlPath="+t.ControlPath(),
		"-o", "ServerAliveInterval=5",
		"-o", "ServerAliveCountMax=3",
		"-o", "ConnectTimeout=10",
	)
	if t.batchMode() {
		a = append(a, "-o", "BatchMode=yes")
	}
	if port != "" {
		a = append(a, "-p", port)
	}
	return a, dest, nil
}

// masterArgs start the master: it logs in, backgrounds itself once
// authenticated (-f; the foreground ssh's exit says the socket listens) and
// runs no command (-N). ControlPersist ends it after that long without a
// channel.
func (t Target) masterArgs() ([]string, error) {
	a, dest, err := t.baseArgs()
	if err != nil {
		return nil, err
	}
	persist := t.ControlPersist
	if persist <= 0 {
		persist = 10 * time.Minute
	}
	a = append(a,
		"-o", "ControlMaster=yes",
		"-o", "ControlPersist="+strconv.Itoa(int(persist/time.Second)),
		"-N", "-f",
	)
	return append(a, "--", dest), nil
}

// channelGuard is the channels' ProxyCommand (run by ssh only when no
// master answered, as `$SHELL -c "exec …"`: an absolute program and one
// double-quoted word read the same in sh, bash, zsh and fish). It prints
// the marker and exits, so ssh fails without a connection of its own.
const channelGuard = `/bin/sh -c "echo ` + noMasterMarker + ` >&2"`

// args is ssh's argument list for running remoteCmd as a channel of the
// host's master.
func (t Target) args(remoteCmd string) ([]string, error) {
	a, dest, err := t.baseArgs()
	if err != nil {
		return nil, err
	}
	a = append(a,
		"-o", "ControlMaster=no",
		"-o", "ProxyCommand="+channelGuard,
	)
	return append(a, "--", dest, remoteCmd), nil
}
