package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// The two binaries, installed side by side: the command line (which also
// runs the daemon, the headless host and the hooks) and the desktop app.
const (
	CLIName     = "reprise"
	DesktopName = "reprise-desktop"
)

// Sibling is the path of the binary name in the directory of the running
// executable: the desktop app finds the command line there and the other
// way round.
func Sibling(name string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find own executable: %w", err)
	}
	return filepath.Join(filepath.Dir(exe), name), nil
}

// FindSibling is Sibling that also checks the binary is there and can be run.
func FindSibling(name string) (string, error) {
	p, err := Sibling(name)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%s is missing beside %s (install both: make install-desktop): %w", name, filepath.Dir(p), err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", p)
	}
	return p, nil
}

// OpenDesktop replaces this process with the desktop app, passing args on.
// It returns only on failure, with the exit status.
func OpenDesktop(args []string, stderr io.Writer) int {
	if err := CheckDisplay(os.Getenv); err != nil {
		fmt.Fprintf(stderr, "reprise: %s\n", err)
		return 1
	}
	app, err := FindSibling(DesktopName)
	if err != nil {
		fmt.Fprintf(stderr, "reprise: cannot open the desktop app: %s\n", oneLine(err.Error()))
		return 1
	}
	err = syscall.Exec(app, append([]string{app}, args...), os.Environ())
	fmt.Fprintf(stderr, "reprise: start %s: %s\n", app, err)
	return 1
}

// ErrNoDisplay: the desktop app was asked for where no window can open.
var ErrNoDisplay = errors.New("no display to open the window on")

// CheckDisplay says whether the desktop app can open a window, before
// anything is started: the X server named by DISPLAY or the Wayland
// compositor named by WAYLAND_DISPLAY must accept a connection. Without
// one GTK fails to initialise with a Go panic, after the host had already
// started the pty daemon.
func CheckDisplay(getenv func(string) string) error {
	if runtime.GOOS != "linux" && runtime.GOOS != "freebsd" {
		return nil
	}
	const hint = "use `reprise serve` to open Reprise in a browser"
	x, wl := getenv("DISPLAY"), getenv("WAYLAND_DISPLAY")
	if x == "" && wl == "" {
		return fmt.Errorf("%w (DISPLAY and WAYLAND_DISPLAY are unset); %s", ErrNoDisplay, hint)
	}
	var tried []string
	if wl != "" {
		sock := wl
		if !filepath.IsAbs(sock) {
			sock = filepath.Join(getenv("XDG_RUNTIME_DIR"), wl)
		}
		if dialable("unix", sock) {
			return nil
		}
		tried = append(tried, "WAYLAND_DISPLAY="+wl)
	}
	if x != "" {
		if xReachable(x) {
			return nil
		}
		tried = append(tried, "DISPLAY="+x)
	}
	return fmt.Errorf("%w (%s: nothing answers); %s", ErrNoDisplay, strings.Join(tried, ", "), hint)
}

// xReachable dials the X server of a DISPLAY value: [host]:N[.screen].
func xReachable(display string) bool {
	i := strings.LastIndex(display, ":")
	if i < 0 {
		return false
	}
	host, rest := display[:i], display[i+1:]
	n, _, _ := strings.Cut(rest, ".")
	if n == "" {
		return false
	}
	if strings.HasPrefix(host, "/") { // a socket path (XQuartz style)
		return dialable("unix", display)
	}
	if host == "" || host == "unix" {
		p := "/tmp/.X11-unix/X" + n
		return dialable("unix", p) || dialable("unix", "@"+p)
	}
	var num int
	if _, err := fmt.Sscanf(n, "%d", &num); err != nil {
		return false
	}
	return dialable("tcp", net.JoinHostPort(host, fmt.Sprint(6000+num)))
}

func dialable(network, addr string) bool {
	c, err := net.DialTimeout(network, addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
