package sdk

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConnectToSilentHost: a host that holds the socket and never answers
// (stopped with SIGSTOP, wedged) fails Connect within its bound, in one
// line naming the socket. Before, Connect waited the HTTP client's 60 s and
// failed with `Get "http://reprise/v1/version": context deadline exceeded
// (Client.Timeout exceeded while awaiting headers)`.
func TestConnectToSilentHost(t *testing.T) {
	old := connectProbe
	connectProbe = 300 * time.Millisecond
	t.Cleanup(func() { connectProbe = old })
	home, err := os.MkdirTemp("", "sh") // short: socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	os.MkdirAll(filepath.Join(home, "run"), 0o700)
	ln, err := net.Listen("unix", SocketPath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // never answered
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // the CLI's
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := Connect(ctx, home); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotAnswering) || !strings.Contains(err.Error(), SocketPath(home)) || strings.Contains(err.Error(), "Client.Timeout") {
			t.Errorf("Connect to a silent host: %v, want ErrNotAnswering naming the socket", err)
		}
	case <-time.After(45 * time.Second):
		t.Fatal("Connect to a silent host did not give up within its bound")
	}
	ln.Close()
}
