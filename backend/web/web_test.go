package web

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/internal/testenv"
)

var reprise, fakeBin string

func TestMain(m *testing.M) {
	testenv.Main(m, func(b *testenv.Binaries) { reprise, fakeBin = b.Reprise, b.FakeBin })
}

func startServer(t *testing.T) *Server {
	s, _, _ := startServerHost(t)
	return s
}

func startServerHost(t testing.TB) (*Server, *host.Host, paths.Home) {
	t.Helper()
	return startServerWith(t, Limits{})
}

func startServerWith(t testing.TB, lim Limits) (*Server, *host.Host, paths.Home) {
	t.Helper()
	dir, _ := os.MkdirTemp("", "rw")
	home := paths.Home{Dir: dir}
	h, err := host.Start(context.Background(), host.Config{
		Home: home, Exe: reprise, Shell: []string{"/bin/sh"},
		BaseEnv: []string{"PATH=" + fakeBin + ":/usr/bin:/bin", "PS1=$ ", "HOME=" + dir},
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Listen(h, Options{Assets: fstest.MapFS{"index.html": {Data: []byte("<h1>Reprise</h1>")}}, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close(context.Background())
		h.Close()
		testenv.StopInstance(dir)
		os.RemoveAll(dir)
	})
	return s, h, home
}

func TestTokenAndOrigin(t *testing.T) {
	s := startServer(t)
	base := "http://" + s.Addr()
	cases := []struct {
		name, path, origin string
		want               int
	}{
		// The page is the public bundle; the token guards the WebSocket.
		{"page without token", "/", "", 200},
		{"ws without token", "/ws", "", 401},
		{"ws with a wrong token", "/ws?token=nope", "", 401},
		{"ws with the token as a bearer header", "/ws", "", 426}, // authorized; not an upgrade
		{"ws from a foreign origin", "/ws?token=" + s.Token(), "http://evil.example", 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", base+tc.path, nil)
			if strings.Contains(tc.name, "bearer") {
				req.Header.Set("Authorization", "Bearer "+s.Token())
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
	if _, err := Listen(nil, Options{Listen: "0.0.0.0:0"}); err == nil {
		t.Fatal("a non-loopback listen address was accepted")
	}
}

// page is a minimal client of the frontend protocol.
type page struct {
	t      testing.TB
	c      *websocket.Conn
	mu     sync.Mutex
	nextID uint64
	waits  map[uint64]chan map[string]json.RawMessage
	out    map[uint32]*strings.Builder
	events chan string
	// onEvent, when set (under mu), sees every event with its data.
	onEvent func(event string, data json.RawMessage)
	// What crossed from the backend: messages and payload bytes.
	rxMsgs, rxBytes atomic.Int64
}

func connect(t testing.TB, s *Server, origin string) *page {
	t.Helper()
	hdr := http.Header{}
	if origin != "" {
		hdr.Set("Origin", origin)
	}
	c, _, err := websocket.Dial(context.Background(), s.WSURL()+"?token="+s.Token(), &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(8 << 20)
	p := &page{t: t, c: c, waits: map[uint64]chan map[string]json.RawMessage{}, out: map[uint32]*strings.Builder{}, events: make(chan string, 100)}
	go p.read()
	t.Cleanup(func() { c.CloseNow() })
	return p
}

func (p *page) read() {
	for {
		typ, data, err := p.c.Read(context.Background())
		if err != nil {
			return
		}
		p.rxMsgs.Add(1)
		p.rxBytes.Add(int64(len(data)))
		if typ == websocket.MessageBinary {
			h := binary.BigEndian.Uint32(data[1:5])
			p.mu.Lock()
			if p.out[h] == nil {
				p.out[h] = &strings.Builder{}
			}
			p.out[h].Write(data[5:])
			p.mu.Unlock()
			p.c.Write(context.Background(), websocket.MessageText, []byte(fmt.Sprintf(`{"method":"ack","params":{"handle":%d,"bytes":%d}}`, h, len(data)-5)))
			continue
		}
		var m map[string]json.RawMessage
		json.Unmarshal(data, &m)
		if ev, ok := m["event"]; ok {
			p.mu.Lock()
			f := p.onEvent
			p.mu.Unlock()
			if f != nil {
				var name string
				json.Unmarshal(ev, &name)
				f(name, m["data"])
			}
			select {
			case p.events <- string(ev):
			default:
			}
			continue
		}
		var id uint64
		json.Unmarshal(m["id"], &id)
		p.mu.Lock()
		ch := p.waits[id]
		p.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

func (p *page) call(method string, params any, result any) error {
	return p.callWithin(method, params, result, 10*time.Second)
}

// callWithin is call waiting up to d for the reply.
func (p *page) callWithin(method string, params any, result any, d time.Duration) error {
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	ch := make(chan map[string]json.RawMessage, 1)
	p.waits[id] = ch
	p.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err := p.c.Write(context.Background(), websocket.MessageText, b); err != nil {
		return err
	}
	select {
	case m := <-ch:
		if e, ok := m["error"]; ok {
			var s string
			json.Unmarshal(e, &s)
			return fmt.Errorf("%s", s)
		}
		if result != nil {
			return json.Unmarshal(m["result"], result)
		}
		return nil
	case <-time.After(d):
		return fmt.Errorf("%s: no response in %v", method, d)
	}
}

func (p *page) input(handle uint32, s string) {
	b := make([]byte, 5+len(s))
	b[0] = kindInput
	binary.BigEndian.PutUint32(b[1:5], handle)
	copy(b[5:], s)
	p.c.Write(context.Background(), websocket.MessageBinary, b)
}

func (p *page) text(h uint32) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.out[h] == nil {
		return ""
	}
	return p.out[h].String()
}

func (p *page) waitText(h uint32, want string) {
	p.t.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(p.text(h), want) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.t.Fatalf("timed out waiting for %q; have %q", want, p.text(h))
}

type helloResult struct {
	Layout    api.Layout     `json:"layout"`
	Terminals []api.Terminal `json:"terminals"`
}

type attachResult struct {
	Handle uint32 `json:"handle"`
}

func firstTerminal(t *testing.T, p *page) (helloResult, uint32) {
	t.Helper()
	var hello helloResult
	if err := p.call("hello", nil, &hello); err != nil {
		t.Fatal(err)
	}
	if len(hello.Layout.Tabs) != 1 {
		t.Fatalf("want one tab, got %d", len(hello.Layout.Tabs))
	}
	var a attachResult
	if err := p.call("attach", map[string]any{"terminalId": hello.Layout.Tabs[0].Root.TerminalID, "cols": 100, "rows": 30}, &a); err != nil {
		t.Fatal(err)
	}
	return hello, a.Handle
}

func TestEchoAndBurstOrder(t *testing.T) {
	s := startServer(t)
	p := connect(t, s, "http://"+s.Addr())
	_, h := firstTerminal(t, p)
	p.input(h, "echo hel''lo-$((6*7))\n")
	p.waitText(h, "hello-42")

	// 200 characters typed in one burst, one frame per keystroke, arrive in order.
	var want strings.Builder
	for i := 0; i < 200; i++ {
		want.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789"[i%36])
	}
	p.input(h, "stty -echo; read x; echo \"got:$x\"\n")
	time.Sleep(200 * time.Millisecond)
	for _, r := range want.String() {
		p.input(h, string(r))
	}
	p.input(h, "\n")
	p.waitText(h, "got:"+want.String())
}

// Keys for a handle the host no longer has (detached, or its terminal gone
// with the daemon) were dropped with a debug line only; the page kept
// showing them as typed. Now the page is told, with the byte count.
func TestInputToADetachedHandleIsReportedLost(t *testing.T) {
	s := startServer(t)
	p := connect(t, s, "")
	_, h := firstTerminal(t, p)
	if err := p.call("detach", map[string]any{"handle": h}, nil); err != nil {
		t.Fatal(err)
	}
	p.input(h, "echo lost\n")
	deadline := time.After(8 * time.Second)
	for {
		select {
		case ev := <-p.events:
			if ev == `"inputLost"` {
				return
			}
		case <-deadline:
			t.Fatal("no inputLost event for input to a detached handle")
		}
	}
}

func TestLayoutOpsBroadcast(t *testing.T) {
	s := startServer(t)
	p1 := connect(t, s, "")
	p2 := connect(t, s, wailsLikeOrigin(s))
	hello, _ := firstTerminal(t, p1)
	var l api.Layout
	if err := p1.call("layout.split", map[string]any{"paneId": hello.Layout.Tabs[0].Root.ID, "direction": "column"}, &l); err != nil {
		t.Fatal(err)
	}
	if l.Tabs[0].Root.Type != api.NodeSplit || len(l.Tabs[0].Root.Children) != 2 {
		t.Fatalf("split did not happen: %+v", l.Tabs[0].Root)
	}
	select {
	case ev := <-p2.events:
		if !strings.Contains(ev, "layout") {
			t.Fatalf("unexpected event %s", ev)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("second page got no layout event")
	}
	if err := p1.call("layout.split", map[string]any{"paneId": "nope", "direction": "row"}, nil); err == nil {
		t.Fatal("split of a missing pane succeeded")
	}
	if err := p1.call("no.such.method", nil, nil); err == nil || !strings.Contains(err.Error(), "unknown method") {
		t.Fatalf("unknown method: %v", err)
	}
}

func wailsLikeOrigin(*Server) string { return "" }

// A page that keeps N lines asks for N: the replay holds the last N lines, whole.
func TestAttachReplaysAtMostTheLinesAsked(t *testing.T) {
	s, _, _ := startServerHost(t)
	setup := connect(t, s, "")
	hello, h0 := firstTerminal(t, setup)
	setup.input(h0, "seq -f 'row %05g' 1 3000\n")
	setup.waitText(h0, "row 03000")
	tid := hello.Layout.Tabs[0].Root.TerminalID

	p := connect(t, s, "")
	var h helloResult
	if err := p.call("hello", nil, &h); err != nil {
		t.Fatal(err)
	}
	var a attachResult
	if err := p.call("attach", map[string]any{"terminalId": tid, "cols": 100, "rows": 30, "lines": 100}, &a); err != nil {
		t.Fatal(err)
	}
	p.waitText(a.Handle, "row 03000")
	got := p.text(a.Handle)
	if !strings.Contains(got, "row 02905") || strings.Contains(got, "row 02800") {
		t.Fatalf("replay of 100 lines: want about rows 2902–3000, got %d bytes starting %q", len(got), got[:min(40, len(got))])
	}
	if n := strings.Count(got, "\n"); n > 100 {
		t.Fatalf("replay has %d lines, want at most 100", n)
	}
}
