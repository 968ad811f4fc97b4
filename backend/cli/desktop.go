package cli

import (
	"errors"
	"runtime"
)

// ErrNoDisplay: the desktop app was asked for where no window can open.
var ErrNoDisplay = errors.New("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); use `reprise serve` to open Reprise in a browser")

// CheckDisplay says whether the desktop app can open a window, before
// anything is started: without a display GTK fails to initialise with a Go
// panic, after the host had already started the pty daemon.
func CheckDisplay(getenv func(string) string) error {
	if runtime.GOOS != "linux" && runtime.GOOS != "freebsd" {
		return nil
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return ErrNoDisplay
	}
	return nil
}
