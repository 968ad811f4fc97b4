package connlimit

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// Past the cap a connection is closed at once and logged; closing one
// frees its slot.
func TestCap(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuf
	ln := Wrap(raw, 2, slog.New(slog.NewTextHandler(&logs, nil)))
	defer ln.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	dial()
	dial()
	s1, s2 := <-accepted, <-accepted
	_ = s2
	over := dial()
	over.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := over.Read(make([]byte, 1)); err != io.EOF && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("the connection over the cap was not closed: %v", err)
	}
	if ln.Open() != 2 || ln.Refused() != 1 {
		t.Fatalf("open %d refused %d, want 2 and 1", ln.Open(), ln.Refused())
	}
	if !strings.Contains(logs.String(), "too many open connections") {
		t.Fatalf("no log line for the refusal: %q", logs.String())
	}
	s1.Close()
	s1.Close() // twice: counted once
	if ln.Open() != 1 {
		t.Fatalf("open %d after a close, want 1", ln.Open())
	}
	dial()
	select {
	case <-accepted:
	case <-time.After(10 * time.Second):
		t.Fatal("a connection under the cap was not accepted")
	}
}
