package ptyd

import (
	"bytes"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

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

// handOver does the relay's part by hand: a hello with the feature, then
// the handoff frame with in (the channel's read end) and out (its write
// end) attached. It returns the relay's connection.
func handOver(t *testing.T, sock string, in, out *os.File) *net.UnixConn {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	uc := c.(*net.UnixConn)
	t.Cleanup(func() { uc.Close() })
	_ = uc.SetDeadline(time.Now().Add(10 * time.Second))
	if err := ptyproto.WriteFrame(uc, &ptyproto.Header{Type: ptyproto.THello, Version: ptyproto.Version, Client: "relay", Features: []string{ptyproto.FeatureHandoff}}, nil); err != nil {
		t.Fatal(err)
	}
	if f, err := ptyproto.ReadFrame(uc); err != nil || !f.Header.Has(ptyproto.FeatureHandoff) {
		t.Fatalf("hello: %v %+v", err, f)
	}
	var frame bytes.Buffer
	_ = ptyproto.WriteFrame(&frame, &ptyproto.Header{Type: ptyproto.THandoff}, nil)
	if _, _, err := uc.WriteMsgUnix(frame.Bytes(), unix.UnixRights(int(in.Fd()), int(out.Fd())), nil); err != nil {
		t.Fatal(err)
	}
	if f, err := ptyproto.ReadFrame(uc); err != nil || f.Header.Type != ptyproto.TOK {
		t.Fatalf("handoff: %v %+v", err, f)
	}
	_ = uc.SetDeadline(time.Time{})
	return uc
}

// A channel handed over ends when the relay does (its ssh session was
// killed): the daemon lets go of it, as a relay that died let go of the
// bytes it copied; and the other way round, when the host's end closes the
// daemon ends the relay's connection.
func TestHandedChannelFollowsRelay(t *testing.T) {
	_, sock := startServer(t, Config{})
	pipes := func() (inR, inW, outR, outW *os.File) {
		var err error
		if inR, inW, err = os.Pipe(); err != nil {
			t.Fatal(err)
		}
		if outR, outW, err = os.Pipe(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { inR.Close(); inW.Close(); outR.Close(); outW.Close() })
		return
	}
	// The relay ends: the host reads EOF.
	inR, _, outR, outW := pipes()
	uc := handOver(t, sock, inR, outW)
	inR.Close()
	outW.Close()
	uc.Close()
	got := make(chan error, 1)
	go func() { _, err := io.ReadAll(outR); got <- err }()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("read after the relay ended: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon kept the channel of a relay that ended")
	}
	// The host hangs up: the relay's connection ends.
	inR, inW, _, outW := pipes()
	uc = handOver(t, sock, inR, outW)
	inR.Close()
	outW.Close()
	inW.Close()
	_ = uc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, uc); err != nil {
		t.Fatalf("the relay's connection did not end after the host hung up: %v", err)
	}
}
