package ptyd

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/ptyproto"
)

// A handoff frame that comes without the two descriptors is refused with
// one error and the connection ends: no hang, nothing served.
func TestHandoffWithoutDescriptorsRefused(t *testing.T) {
	_, sock := startServer(t, Config{})
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if err := ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.THello, Version: ptyproto.Version, Client: "relay", Features: []string{ptyproto.FeatureHandoff}}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := ptyproto.ReadFrame(conn)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Type != ptyproto.THello || !f.Header.Has(ptyproto.FeatureHandoff) {
		t.Fatalf("hello %+v does not offer the handoff", f.Header)
	}
	if err := ptyproto.WriteFrame(conn, &ptyproto.Header{Type: ptyproto.THandoff}, nil); err != nil {
		t.Fatal(err)
	}
	f, err = ptyproto.ReadFrame(conn)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Type != ptyproto.TError || !strings.Contains(f.Header.Error, "2 file descriptors") {
		t.Fatalf("got %+v, want an error about the descriptors", f.Header)
	}
	if _, err := ptyproto.ReadFrame(conn); err == nil {
		t.Fatal("the connection stayed open after the refusal")
	}
}

// A client that does not ask for the handoff (the host, an older relay)
// is not offered it, and a daemon configured as an older one offers it to
// nobody.
func TestHandoffOnlyOffered(t *testing.T) {
	for _, tc := range []struct {
		cfg   Config
		ask   bool
		offer bool
	}{{Config{}, true, true}, {Config{}, false, false}, {Config{NoHandoff: true}, true, false}} {
		_, sock := startServer(t, tc.cfg)
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		h := &ptyproto.Header{Type: ptyproto.THello, Version: ptyproto.Version}
		if tc.ask {
			h.Features = []string{ptyproto.FeatureHandoff}
		}
		if err := ptyproto.WriteFrame(conn, h, nil); err != nil {
			t.Fatal(err)
		}
		f, err := ptyproto.ReadFrame(conn)
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Header.Has(ptyproto.FeatureHandoff); got != tc.offer {
			t.Errorf("config %+v, asked %v: offered %v, want %v", tc.cfg, tc.ask, got, tc.offer)
		}
	}
}
