// Package paths says where one Reprise instance keeps its state. Everything
// lives under one home directory (REPRISE_HOME, --home, or the XDG data dir)
// so tests and users can run isolated instances side by side.
package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Home is the root of one instance's state.
type Home struct{ Dir string }

// Resolve picks the home: flag value, then $REPRISE_HOME, then
// $XDG_DATA_HOME/reprise, then ~/.local/share/reprise.
func Resolve(flag string) (Home, error) { return ResolveNamed(flag, "reprise") }

// ResolveNamed is Resolve with another default directory name (development
// builds of the desktop app use "reprise-dev", so `wails dev` never touches
// the user's own instance).
func ResolveNamed(flag, name string) (Home, error) {
	dir := flag
	if dir == "" {
		dir = os.Getenv("REPRISE_HOME")
	}
	if dir == "" {
		if x := os.Getenv("XDG_DATA_HOME"); x != "" {
			dir = filepath.Join(x, name)
		} else {
			h, err := os.UserHomeDir()
			if err != nil {
				return Home{}, fmt.Errorf("find home directory: %w", err)
			}
			dir = filepath.Join(h, ".local", "share", name)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Home{}, fmt.Errorf("resolve %s: %w", dir, err)
	}
	return Home{Dir: abs}, nil
}

func (h Home) RunDir() string     { return filepath.Join(h.Dir, "run") }
func (h Home) PtydSocket() string { return filepath.Join(h.RunDir(), "ptyd.sock") }
func (h Home) PtydLock() string   { return filepath.Join(h.RunDir(), "ptyd.lock") }
func (h Home) HostSocket() string { return filepath.Join(h.RunDir(), "host.sock") }
func (h Home) HostLock() string   { return filepath.Join(h.RunDir(), "host.lock") }
func (h Home) HostInfo() string   { return filepath.Join(h.RunDir(), "host.json") }

// WebToken is where earlier versions kept the web token; hosts now remove it
// at start (tokens are per launch unless pinned with serve --token-file).
func (h Home) WebToken() string      { return filepath.Join(h.RunDir(), "web-token") }
func (h Home) DB() string            { return filepath.Join(h.Dir, "reprise.db") }
func (h Home) LogDir() string        { return filepath.Join(h.Dir, "logs") }
func (h Home) PtydLog() string       { return filepath.Join(h.LogDir(), "ptyd.log") }
func (h Home) PtydStderr() string    { return filepath.Join(h.LogDir(), "ptyd.stderr.log") }
func (h Home) HostLog() string       { return filepath.Join(h.LogDir(), "host.log") }
func (h Home) ScrollbackDir() string { return filepath.Join(h.Dir, "scrollback") }

// unusable says the home cannot be made, naming each path once (an
// *fs.PathError names its own: "mkdir /x: not a directory").
func (h Home) unusable(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == h.Dir {
		return fmt.Errorf("cannot use %s as the Reprise home: %s: %w", h.Dir, pe.Op, pe.Err)
	}
	return fmt.Errorf("cannot use %s as the Reprise home: %w", h.Dir, err)
}

// Ensure creates the directories with private permissions (0700), fixing
// the mode of ones that already exist.
func (h Home) Ensure() error {
	for _, d := range []string{h.Dir, h.RunDir(), h.LogDir(), h.ScrollbackDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return h.unusable(err)
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return h.unusable(err)
		}
	}
	// A Unix socket path is limited to 107 bytes on Linux.
	if n := len(h.PtydSocket()); n > 100 {
		return fmt.Errorf("home directory path too long for a socket (%d bytes): %s; set REPRISE_HOME to a shorter path", n, h.Dir)
	}
	return nil
}
