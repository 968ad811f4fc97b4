// Command reprise is the Reprise desktop app and its command line: with no
// subcommand it opens the window; `reprise serve` runs the same host
// headless for a browser; `reprise ptyd` is the pty daemon it starts.
package main

import (
	"embed"
	"io/fs"
	"os"

	"github.com/reprise-dev/reprise/backend/cli"
)

// The built frontend (npm run build in frontend/). The folder holds only a
// placeholder in a fresh clone, so Go code builds and tests without Node.
//
//go:embed all:frontend/dist
var assets embed.FS

// The window and desktop-entry icon.
//
//go:embed build/appicon.png
var appIcon []byte

func frontendFS() fs.FS {
	sub, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder
	}
	return sub
}

func main() {
	args := os.Args[1:]
	if cli.IsDesktop(args) {
		os.Exit(runDesktop(args))
	}
	os.Exit(cli.Run(args, cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Assets: frontendFS()}))
}
