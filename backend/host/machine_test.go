package host

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/ptyd"
	"github.com/reprise-dev/reprise/backend/ptyproto"
)

// olderDaemon is a real daemon seen through a connection that drops the
// facts field "contains" from every request, as a daemon started by an
// older Reprise (which keeps running across an upgrade) never decodes it.
func olderDaemon(t *testing.T) *ptyclient.Client {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "ptyd.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := ptyd.New(ptyd.Config{})
	go srv.Serve(ln)
	t.Cleanup(func() { ln.Close() })
	up, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	near, far := net.Pipe()
	t.Cleanup(func() { near.Close(); far.Close(); up.Close() })
	go func() {
		br := bufio.NewReader(far)
		for {
			f, err := ptyproto.ReadFrame(br)
			if err != nil {
				up.Close()
				return
			}
			f.Header.Contains = nil
			if ptyproto.WriteFrame(up, &f.Header, f.Payload) != nil {
				return
			}
		}
	}()
	go func() { io.Copy(far, up); far.Close() }()
	c, err := ptyclient.NewClient(near, ptyclient.Options{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A remote daemon that predates "contains" answers the stats and no scan:
// a Gemini chat file that exists there is then "unknown" — saying why,
// never "missing" and never "saved" — while one that is not there is
// still "missing" (the stat says so).
func TestRemoteGeminiChatOlderDaemonUnknown(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	chat := filepath.Join(home, ".gemini", "tmp", "proj", "chats", "session-x.jsonl")
	if err := os.MkdirAll(filepath.Dir(chat), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chat, []byte(`{"type":"user","content":"hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newRemoteMachine("old", []string{"HOME=" + home}, olderDaemon(t))
	ctx := context.Background()
	if err := m.prepare(ctx, "", "gemini", "s1", home, chat); err != nil {
		t.Fatal(err)
	}
	if saved, known, p := m.transcript("gemini", "s1", home, chat); saved || known || !strings.HasPrefix(p, chat) || !strings.Contains(p, "older Reprise") {
		t.Fatalf("older daemon, chat file there: saved=%v known=%v %q; want unknown, saying why", saved, known, p)
	}
	gone := filepath.Join(filepath.Dir(chat), "gone.jsonl")
	if err := m.prepare(ctx, "", "gemini", "s2", home, gone); err != nil {
		t.Fatal(err)
	}
	if saved, known, p := m.transcript("gemini", "s2", home, gone); saved || !known || p != gone {
		t.Fatalf("older daemon, chat file gone: saved=%v known=%v %q; want missing", saved, known, p)
	}
}
