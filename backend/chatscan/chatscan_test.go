package chatscan

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/safefile"
)

func write(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The scan finds a reply anywhere within its bound (also across a chunk
// boundary), says "no match" only after reading the whole file, and says
// "incomplete" — not "no match" — when it stopped at a bound first.
func TestContains(t *testing.T) {
	dir := t.TempDir()
	reply := []byte(`{"type": "gemini", "content": "hi"}`)
	straddle := append(bytes.Repeat([]byte(" "), chunk+overlap-10), reply...)
	atLimit := bytes.Repeat([]byte("x"), Limit) // exactly the bound, no more: all read
	for _, tc := range []struct {
		name       string
		content    []byte
		found      bool
		incomplete bool
	}{
		{"reply", []byte(`{"messages":[{"type":"user","content":"hi"},{"type": "gemini","content":"ho"}]}`), true, false},
		{"prompt only", []byte(`{"messages":[{"type":"user","content":"say \"type\": gemini"}]}`), false, false},
		{"empty", nil, false, false},
		{"reply across chunks", straddle, true, false},
		{"exactly the bound", atLimit, false, false},
		{"reply past the bound", append(bytes.Repeat([]byte("x"), Limit), reply...), false, true},
		{"reply just inside the bound", append(bytes.Repeat([]byte("x"), Limit-len(reply)), reply...), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, dir, strings.ReplaceAll(tc.name, " ", "-"), tc.content)
			r, err := Contains(context.Background(), p, GeminiReply)
			if err != nil {
				t.Fatal(err)
			}
			if r.Found != tc.found || (r.Incomplete != "") != tc.incomplete {
				t.Fatalf("result %+v; want found %v, incomplete %v", r, tc.found, tc.incomplete)
			}
		})
	}
}

// A FIFO (no writer: an open would block forever) and a device are refused
// unread; an unknown pattern name is refused before anything is opened; an
// ended context stops the scan as incomplete.
func TestContainsRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "chat.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Contains(context.Background(), fifo, GeminiReply)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, safefile.ErrNotRegular) {
			t.Fatalf("fifo: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the scan hung on a FIFO")
	}
	if _, err := Contains(context.Background(), "/dev/zero", GeminiReply); !errors.Is(err, safefile.ErrNotRegular) {
		t.Fatalf("device: %v", err)
	}
	p := write(t, dir, "c.json", []byte(`{"type":"gemini"}`))
	if _, err := Contains(context.Background(), p, `"type"`); !errors.Is(err, ErrUnknownPattern) {
		t.Fatalf("a pattern of the caller's: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := Contains(ctx, p, GeminiReply); err != nil || r.Found || !strings.Contains(r.Incomplete, "time") {
		t.Fatalf("ended context: %+v, %v", r, err)
	}
}
