// Command reprise-desktop is the Reprise desktop app: the window, with the
// host inside it. Everything else — the pty daemon, agents' hooks, the
// command line, `reprise serve` — is the GUI-free reprise binary in
// cmd/reprise, installed beside this one; `reprise` with no subcommand
// starts this app, and this app runs that binary for the daemon and writes
// it into hook commands, so no hook ever loads GTK.
package main

import (
	_ "embed"
	"os"
)

// The window and desktop-entry icon.
//
//go:embed build/appicon.png
var appIcon []byte

func main() {
	os.Exit(runDesktop(os.Args[1:]))
}
