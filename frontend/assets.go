// Package frontend carries the built page (npm run build writes dist/) so
// both binaries embed the same bytes: the desktop app serves it to its
// window, `reprise serve` to a browser. dist holds only a placeholder in a
// fresh clone, so Go code builds and tests without Node.
package frontend

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Dist is the built frontend, rooted at dist/.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder
	}
	return sub
}
