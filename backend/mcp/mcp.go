// Package mcp is `reprise mcp`: a Model Context Protocol server on stdio,
// built on the official Go SDK, that lets a coding agent drive Reprise —
// start agents in panes, list agents, terminals and sessions, find
// interrupted conversations and resume them.
//
// The tools are clients of the host like the CLI: each call goes to the
// running host (the desktop app or `reprise serve`) over its local API
// socket. With no host running, the first call starts one inside the
// `reprise mcp` process and keeps it until the MCP client disconnects; it
// holds the home's host lock meanwhile, so the desktop app cannot open for
// that home until then (start the app first to avoid this). Its terminals,
// like every host's, live in the pty daemon and outlive it.
//
// Tool failures (unknown agent, nothing to resume, …) are tool results
// with IsError set and the host's one-line message, never protocol errors.
// The tools' names, descriptions, input schemas and annotations are pinned
// by the snapshots in testdata/toolsnaps (regenerate with
// UPDATE_TOOLSNAPS=1 go test ./backend/mcp/).
package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reprise-dev/reprise/backend/paths"
)

// Options configures Run.
type Options struct {
	// Home is the --home flag; empty means $REPRISE_HOME or the default.
	Home string
	// Stdin and Stdout carry the protocol (newline-delimited JSON-RPC);
	// Stderr gets warnings.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Version is reported to MCP clients.
	Version string
}

// Run serves MCP on opts.Stdin/Stdout until the client closes stdin, ctx
// ends, or SIGINT/SIGTERM arrives, then stops the in-process host if it
// started one.
func Run(ctx context.Context, opts Options) error {
	home, err := paths.Resolve(opts.Home)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(opts.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).With("component", "mcp")
	conn := newConnector(home, logger)
	defer conn.Close()
	cwd, _ := os.Getwd()
	srv := NewServer(conn, ServerOptions{Version: opts.Version, DefaultCwd: cwd, Logger: logger})
	out := &lockedWriter{w: opts.Stdout}
	in := checkedLines(opts.Stdin, out, logger)
	ss, err := srv.Connect(ctx, &mcpsdk.IOTransport{Reader: in, Writer: out}, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-ctx.Done(): // a signal: stopping is the expected outcome
		ss.Close()
		<-done
		return nil
	case err := <-done:
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
}
