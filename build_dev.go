//go:build dev

package main

import (
	"net"
	"os"
)

// Built by `wails dev` (which sets the dev tag): its own default home, so trying a change never
// touches the user's instance, and the page's origin of the dev asset
// server (wails://wails.localhost:PORT) is accepted.
const defaultHomeName = "reprise-dev"

// devOrigins is the origin the window's page has under `wails dev`: Wails
// puts the port of its dev server (env "devserver", default
// localhost:34115) into the page's host.
func devOrigins() []string {
	addr := os.Getenv("devserver")
	if addr == "" {
		addr = "localhost:34115"
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return nil
	}
	return []string{"wails://wails.localhost:" + port}
}
