package web

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tests of the listener's hardening (issue 19), over real loopback
// sockets. Whether the server still holds its end of a connection is read
// from the kernel (/proc/net/tcp and /proc/self/fd), not from the server's
// own bookkeeping, so the tests see a leaked descriptor even when the
// server believes it closed it.

// rawConn is a client that speaks HTTP/WebSocket by hand, so it can
// misbehave: stay idle, never read, half-close, send garbage.
type rawConn struct {
	t  *testing.T
	c  *net.TCPConn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string, rcvbuf int) *rawConn {
	t.Helper()
	d := net.Dialer{}
	if rcvbuf > 0 {
		// Set before connect, so the window the client advertises stays
		// small and the server's writes block sooner.
		d.Control = func(_, _ string, c syscall.RawConn) error {
			return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf) })
		}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c.(*net.TCPConn), br: bufio.NewReader(c)}
}

func (r *rawConn) send(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.c, s); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rawConn) response() *http.Response {
	r.t.Helper()
	r.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer r.c.SetReadDeadline(time.Time{})
	resp, err := http.ReadResponse(r.br, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// upgrade does the WebSocket handshake by hand.
func (r *rawConn) upgrade(host, path string) {
	r.t.Helper()
	var key [16]byte
	rand.Read(key[:])
	r.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + base64.StdEncoding.EncodeToString(key[:]) + "\r\n\r\n")
	if resp := r.response(); resp.StatusCode != http.StatusSwitchingProtocols {
		r.t.Fatalf("websocket handshake: %s", resp.Status)
	}
}

// frame writes one masked client frame.
func (r *rawConn) frame(opcode byte, payload []byte) error {
	var h []byte
	h = append(h, 0x80|opcode)
	switch n := len(payload); {
	case n < 126:
		h = append(h, 0x80|byte(n))
	case n < 1<<16:
		h = append(h, 0x80|126, byte(n>>8), byte(n))
	default:
		h = append(h, 0x80|127)
		h = binary.BigEndian.AppendUint64(h, uint64(n))
	}
	var mask [4]byte
	rand.Read(mask[:])
	h = append(h, mask[:]...)
	p := make([]byte, len(payload))
	for i := range payload {
		p[i] = payload[i] ^ mask[i%4]
	}
	_, err := r.c.Write(append(h, p...))
	return err
}

// serverHolds reports whether this process still has a descriptor open on
// the server's end of the connection c.
func serverHolds(t *testing.T, serverAddr string, c *rawConn) bool {
	t.Helper()
	local := procAddr(t, serverAddr)
	remote := procAddr(t, c.c.LocalAddr().String())
	own := map[string]bool{}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			own[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 10 && f[1] == local && f[2] == remote && own[f[9]] {
			return true
		}
	}
	return false
}

// procAddr writes 127.0.0.1:8080 the way /proc/net/tcp does: 0100007F:1F90.
func procAddr(t *testing.T, addr string) string {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	ip := net.ParseIP(h).To4()
	port, _ := strconv.Atoi(p)
	return fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], port)
}

// waitReleased fails unless the server lets go of c within limit (a bound
// for a hung test, not a measured time).
func waitReleased(t *testing.T, s *Server, c *rawConn, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for serverHolds(t, s.Addr(), c) {
		if time.Now().After(deadline) {
			t.Fatalf("the server still holds the connection after %s", limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// After a 401 the server closes the connection: an unauthenticated client
// cannot keep a descriptor by idling on a keep-alive connection.
func TestUnauthorizedConnectionIsClosed(t *testing.T) {
	s := startServer(t)
	for _, path := range []string{"/ws", "/ws?token=wrong"} {
		c := dialRaw(t, s.Addr(), 0)
		c.send("GET " + path + " HTTP/1.1\r\nHost: " + s.Addr() + "\r\n\r\n")
		resp := c.response()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s: status %d, want 401", path, resp.StatusCode)
		}
		if !resp.Close {
			t.Errorf("%s: the 401 does not say Connection: close", path)
		}
		waitReleased(t, s, c, 5*time.Second)
	}
}

// A WebSocket that ends without a close handshake is released.
func TestWebSocketEndsWithoutHandshakeAreReleased(t *testing.T) {
	s := startServer(t)
	cases := []struct {
		name string
		end  func(c *rawConn)
	}{
		{"client sends FIN", func(c *rawConn) { c.c.CloseWrite() }},
		{"client process dies", func(c *rawConn) { c.c.Close() }},
		{"protocol error", func(c *rawConn) { c.c.Write([]byte{0x81, 0x01, 'x'}) }}, // unmasked frame
		{"garbage opcode", func(c *rawConn) { c.frame(0x3, nil) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, s.Addr(), 0)
			c.upgrade(s.Addr(), "/ws?token="+s.Token())
			if !serverHolds(t, s.Addr(), c) {
				t.Fatal("the server does not hold the open WebSocket (the probe is broken)")
			}
			tc.end(c)
			waitReleased(t, s, c, 10*time.Second)
		})
	}
}

// The server only answers to its own names: a page on another name that
// resolves to 127.0.0.1 (DNS rebinding) gets 403.
func TestHostHeaderIsChecked(t *testing.T) {
	s := startServer(t)
	_, port, _ := net.SplitHostPort(s.Addr())
	cases := []struct {
		host, path string
		want       int
	}{
		{s.Addr(), "/", 200},
		{"localhost:" + port, "/", 200},
		{"evil.example:" + port, "/", 403},
		{"evil.example", "/", 403},
		{"127.0.0.1:1", "/", 403},
		{"evil.example:" + port, "/ws?token=" + s.Token(), 403},
		{"evil.example:" + port, "/healthz", 403},
	}
	for _, tc := range cases {
		c := dialRaw(t, s.Addr(), 0)
		c.send("GET " + tc.path + " HTTP/1.1\r\nHost: " + tc.host + "\r\n\r\n")
		if got := c.response().StatusCode; got != tc.want {
			t.Errorf("Host %s %s: status %d, want %d", tc.host, tc.path, got, tc.want)
		}
	}
}

// No response may be framed by another page (clickjacking).
func TestFrameHeaders(t *testing.T) {
	s := startServer(t)
	for _, path := range []string{"/", "/ws", "/healthz", "/nope"} {
		resp, err := http.Get("http://" + s.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Frame-Options"); got != "DENY" {
			t.Errorf("%s: X-Frame-Options %q, want DENY", path, got)
		}
		if got := resp.Header.Get("Content-Security-Policy"); !strings.Contains(got, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy %q, want frame-ancestors 'none'", path, got)
		}
		if got := resp.Header.Get("Referrer-Policy"); got != "no-referrer" {
			t.Errorf("%s: Referrer-Policy %q, want no-referrer", path, got)
		}
	}
}

// The browser holds no ambient credential: cookies are scoped by host, not
// port, so a cookie for 127.0.0.1 would go to every other server on
// 127.0.0.1. The server sets none, accepts none, and the page address
// carries the token in its fragment, which browsers never send to a
// server (not in the request line, not in Referer).
func TestNoAmbientCredential(t *testing.T) {
	s := startServer(t)
	u := s.URL()
	if strings.Contains(u, "?token=") || !strings.Contains(u, "#token="+s.Token()) {
		t.Fatalf("page URL %s: want the token in the fragment only", u)
	}
	for _, path := range []string{"/", "/?token=" + s.Token(), "/ws?token=" + s.Token()} {
		resp, err := http.Get("http://" + s.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if sc := resp.Header.Values("Set-Cookie"); len(sc) > 0 {
			t.Errorf("%s sets a cookie: %q", path, sc)
		}
	}
	// A request carrying the old cookie (what a browser would send to any
	// port of 127.0.0.1) is not authenticated by it.
	req, _ := http.NewRequest("GET", "http://"+s.Addr()+"/ws", nil)
	req.AddCookie(&http.Cookie{Name: "reprise_token", Value: s.Token()})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("websocket with only a cookie: status %d, want 401", resp.StatusCode)
	}
	// A page served from another port of the same host may not use a
	// stolen token from its origin either.
	c := dialRaw(t, s.Addr(), 0)
	var key [16]byte
	rand.Read(key[:])
	c.send("GET /ws?token=" + s.Token() + " HTTP/1.1\r\nHost: " + s.Addr() + "\r\nOrigin: http://127.0.0.1:1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + base64.StdEncoding.EncodeToString(key[:]) + "\r\n\r\n")
	if got := c.response().StatusCode; got != http.StatusForbidden {
		t.Fatalf("websocket from another port's origin: status %d, want 403", got)
	}
}

// Tokens rotate per launch unless pinned with a token file.
func TestTokenRotation(t *testing.T) {
	a, b := NewToken(), NewToken()
	if a == b || len(a) != 48 {
		t.Fatalf("tokens %q and %q", a, b)
	}
	s1 := startServer(t)
	s2 := startServer(t)
	if s1.Token() == s2.Token() {
		t.Fatal("two launches share a token")
	}
	pin := filepath.Join(t.TempDir(), "token")
	p1, err := LoadOrCreateToken(pin)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := LoadOrCreateToken(pin)
	if err != nil || p1 != p2 {
		t.Fatalf("pinned token changed: %q, %q, %v", p1, p2, err)
	}
	if fi, err := os.Stat(pin); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode: %v %v", fi.Mode(), err)
	}
	if _, err := hex.DecodeString(p1); err != nil {
		t.Fatal(err)
	}
	// A pinned file the user broke is an error, not replaced; a FIFO is
	// refused at once instead of blocking serve's start.
	bad := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(bad, []byte("short\n"), 0o600)
	if _, err := LoadOrCreateToken(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("malformed token file: %v", err)
	}
	if b, _ := os.ReadFile(bad); string(b) != "short\n" {
		t.Fatalf("malformed token file was rewritten: %q", b)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateToken(fifo); err == nil {
		t.Fatal("a FIFO as the token file was accepted")
	}
}

// A page that never reads its socket: what the server queues for it stays
// bounded, and it is disconnected with "events overflowed; reconnect"
// instead of growing the host's memory.
func TestNeverReadingPageIsBounded(t *testing.T) {
	// No keepalive pings during the test: a ping stuck behind the blocked
	// write would close the socket before the notice (TestPingReleasesFrozenPage
	// covers that path), and the flood can outlast a ping interval under load.
	s, _, _ := startServerWith(t, Limits{PingInterval: time.Hour})
	c := dialRaw(t, s.Addr(), 4096)
	c.upgrade(s.Addr(), "/ws?token="+s.Token())
	// Every request is answered with an error line that quotes its 32 KiB
	// method name: 32 KiB queued per request, and the client reads none.
	big := bytes.Repeat([]byte("x"), 32<<10)
	sent := 0
	var werr error
	for i := 1; i <= 2000 && werr == nil && s.queueStats().overflows == 0; i++ {
		c.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		werr = c.frame(0x1, []byte(fmt.Sprintf(`{"id":%d,"method":"%s"}`, i, big)))
		sent++
	}
	t.Logf("sent %d requests (%d MiB of answers) before the overflow (write error: %v)", sent, sent*len(big)>>20, werr)
	// The page wakes up: it reads what arrived, answers, then the server's goodbye.
	c.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	reason, err := readUntilClose(c.br)
	if err != nil {
		t.Fatalf("the server never closed the connection of a page that does not read: %v", err)
	}
	// The page read again right after the overflow, so the goodbye got
	// through behind the write that was in flight.
	if reason != overflowReason {
		t.Fatalf("close reason %q, want %q", reason, overflowReason)
	}
	waitReleased(t, s, c, 10*time.Second)
	st := s.queueStats()
	if st.overflows < 1 {
		t.Fatal("no overflow recorded")
	}
	if st.peakMsgs > maxQueuedMessages || st.peakBytes > maxQueuedBytes+(64<<10) {
		t.Fatalf("queue grew to %d messages / %d bytes; bound %d / %d", st.peakMsgs, st.peakBytes, maxQueuedMessages, maxQueuedBytes)
	}
}

// readUntilClose reads server frames until a close frame (its reason) or
// the end of the stream ("" when the server could not even send its close
// frame because the page's buffers were full).
func readUntilClose(br *bufio.Reader) (string, error) {
	for {
		var h [2]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
				return "", nil
			}
			return "", err
		}
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(br, b[:]); err != nil {
				return "", nil
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(br, b[:]); err != nil {
				return "", nil
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(br, p); err != nil {
			return "", nil
		}
		if h[0]&0x0f == 0x8 {
			if len(p) >= 2 {
				return string(p[2:]), nil
			}
			return "", nil
		}
	}
}

// A page that stops answering (a frozen client, a peer gone without a FIN)
// is released once it misses a pong; a page that reads is not.
func TestPingReleasesFrozenPage(t *testing.T) {
	s, _, _ := startServerWith(t, Limits{PingInterval: 100 * time.Millisecond, PingTimeout: 200 * time.Millisecond})
	live := connect(t, s, "")
	frozen := dialRaw(t, s.Addr(), 0)
	frozen.upgrade(s.Addr(), "/ws?token="+s.Token())
	waitReleased(t, s, frozen, 10*time.Second)
	// The reading page lived through the same pings.
	if err := live.call("hello", nil, nil); err != nil {
		t.Fatalf("a page that reads was dropped by the keepalive: %v", err)
	}
}

// An idle keep-alive connection is closed after IdleTimeout, even one
// that made a good request.
func TestIdleKeepAliveIsClosed(t *testing.T) {
	s, _, _ := startServerWith(t, Limits{IdleTimeout: 200 * time.Millisecond})
	c := dialRaw(t, s.Addr(), 0)
	c.send("GET / HTTP/1.1\r\nHost: " + s.Addr() + "\r\n\r\n")
	if resp := c.response(); resp.StatusCode != 200 || resp.Close {
		t.Fatalf("status %d close %v, want a 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	waitReleased(t, s, c, 10*time.Second)
}

// Past MaxConns a connection is closed at once; pages already connected
// keep working, and a slot freed is usable again.
func TestConnectionCap(t *testing.T) {
	s, _, _ := startServerWith(t, Limits{MaxConns: 3})
	p := connect(t, s, "")
	idle := []*rawConn{dialRaw(t, s.Addr(), 0), dialRaw(t, s.Addr(), 0)}
	deadline := time.Now().Add(10 * time.Second)
	for s.ln.Open() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, want 3", s.ln.Open())
		}
		time.Sleep(10 * time.Millisecond)
	}
	over := dialRaw(t, s.Addr(), 0)
	over.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := over.br.ReadByte(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the connection over the cap was not closed: %v", err)
	}
	if err := p.call("hello", nil, nil); err != nil {
		t.Fatalf("the connected page stopped working: %v", err)
	}
	idle[0].c.Close()
	for s.ln.Open() >= 3 {
		if time.Now().After(deadline) {
			t.Fatal("a closed connection did not free its slot")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c := dialRaw(t, s.Addr(), 0)
	c.send("GET /healthz HTTP/1.1\r\nHost: " + s.Addr() + "\r\n\r\n")
	if resp := c.response(); resp.StatusCode != 200 {
		t.Fatalf("after a slot was freed: status %d", resp.StatusCode)
	}
}
