package ptyd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// startPty starts cmd as a session leader whose controlling terminal is a
// new pty, and returns the pty master: non-blocking, registered with Go's
// poller, close-on-exec.
//
// The slave is taken from the master itself (TIOCGPTPEER, Linux 4.13+),
// never by its name under /dev/pts: a name is looked up in whatever devpts
// is mounted there at that moment, and where more than one is stacked
// (containers, sandboxes) "/dev/pts/N" can be another instance's pty N —
// another terminal's. creack/pty opens the slave by name; a conformance
// run once showed exactly that: a new agent's pane drew into the pane
// opened just before it, whose shell lost its controlling terminal.
func startPty(cmd *exec.Cmd, cols, rows uint16) (*os.File, error) {
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open pty: %w", err)
	}
	master := os.NewFile(uintptr(mfd), "/dev/ptmx") // non-blocking: Go polls it
	ok := false
	defer func() {
		if !ok {
			master.Close()
		}
	}()
	slave, err := peer(master)
	if err != nil {
		return nil, err
	}
	defer slave.Close() // the child has its own copies
	if err := pty.Setsize(slave, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		return nil, fmt.Errorf("pty size: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ok = true
	return master, nil
}

// peer opens master's slave: by TIOCGPTPEER where the kernel has it, else
// by name, checked to be the master's (same pty number).
func peer(master *os.File) (*os.File, error) {
	rc, err := master.SyscallConn()
	if err != nil {
		return nil, err
	}
	var sfd, n int
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		if ierr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ierr != nil {
			return
		}
		if n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN); ierr != nil {
			return
		}
		r, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, unix.TIOCGPTPEER, uintptr(unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC))
		if errno != 0 {
			sfd, ierr = -1, errno
			return
		}
		sfd = int(r)
	}); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("/dev/pts/%d", n)
	if ierr == nil {
		return os.NewFile(uintptr(sfd), name), nil
	}
	if !errors.Is(ierr, unix.ENOTTY) && !errors.Is(ierr, unix.EINVAL) {
		return nil, fmt.Errorf("open pty slave: %w", ierr)
	}
	// A kernel without TIOCGPTPEER: by name, then make sure it is ours.
	fd, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || int(unix.Minor(st.Rdev)) != n {
		unix.Close(fd)
		return nil, fmt.Errorf("open %s: it is not this pty's slave", name)
	}
	return os.NewFile(uintptr(fd), name), nil
}
