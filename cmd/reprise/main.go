// Command reprise is Reprise's command line, and the binary everything but
// the window runs: the pty daemon (`reprise ptyd`), the headless host
// (`reprise serve`), agents' hooks (`reprise hook`), MCP and the listings.
// It links no GUI library, so a hook call or the idle daemon costs what a
// small Go program costs. With no subcommand it opens the desktop app,
// reprise-desktop, installed beside it.
package main

import (
	"os"

	"github.com/reprise-dev/reprise/backend/cli"
	"github.com/reprise-dev/reprise/frontend"
)

func main() {
	args := os.Args[1:]
	if cli.IsDesktop(args) {
		os.Exit(cli.OpenDesktop(args, os.Stderr))
	}
	os.Exit(cli.Run(args, cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Assets: frontend.Dist()}))
}
