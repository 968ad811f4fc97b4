package localapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// reprise is the real binary (the daemon and the hooks), fakeBin the fake
// claude, codex and gemini; built once.
var reprise, fakeBin string

func TestMain(m *testing.M) {
	testenv.Main(m, func(b *testenv.Binaries) { reprise, fakeBin = b.Reprise, b.FakeBin })
}

// instance is a host in this process serving its API on a temp home.
type instance struct {
	home     paths.Home
	userHome string
	work     string
	starts   string
	h        *host.Host
	srv      *localapi.Server
	client   *http.Client
}

func newInstance(t *testing.T) *instance {
	t.Helper()
	dir, err := os.MkdirTemp("", "rl") // short: socket paths are limited to 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	in := &instance{home: paths.Home{Dir: dir}, userHome: filepath.Join(dir, "u"), work: filepath.Join(dir, "work"), starts: filepath.Join(dir, "starts.log")}
	os.MkdirAll(in.userHome, 0o700)
	os.MkdirAll(in.work, 0o755)
	t.Cleanup(func() {
		stopInstance(in.home)
		os.RemoveAll(dir)
	})
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	in.h, err = host.Start(context.Background(), host.Config{
		Home: in.home, Exe: reprise, Shell: []string{"/bin/sh"}, Logger: logger,
		BaseEnv: []string{"PATH=" + fakeBin + ":/usr/bin:/bin", "PS1=$ ", "HOME=" + in.userHome, fake.StartLogEnv + "=" + in.starts},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.h.Close() })
	in.srv, err = localapi.Listen(in.h, in.home.HostSocket(), logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.srv.Close(context.Background()) })
	in.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", in.home.HostSocket())
		},
	}}
	return in
}

// stopInstance kills every process started for a home — terminals, agents,
// the hooks they run, the daemon — so that nothing writes into it (an
// agent's goodbye hook, say) after the test removes it.
func stopInstance(home paths.Home) { testenv.StopInstance(home.Dir) }

// do makes one request; every answer must be JSON, and every failure a
// one-line {"error": …}.
func (in *instance) do(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://reprise"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := in.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			return resp.StatusCode, string(b) // the mux's own answer: no such route
		}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	if resp.StatusCode >= 300 {
		var e localapi.Error
		if err := json.Unmarshal(b, &e); err != nil || e.Error == "" || strings.Contains(e.Error, "\n") {
			t.Errorf("%s %s: failure body %q is not a one-line {\"error\"}", method, path, b)
		}
	}
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func decode[T any](t *testing.T, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return v
}

func TestSocketIsPrivate(t *testing.T) {
	// Even with a permissive umask, and over a stale socket file left by a
	// crashed host.
	old := syscall.Umask(0)
	in := newInstance(t)
	syscall.Umask(old)

	st, err := os.Stat(in.home.HostSocket())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a 0600 socket", st.Mode())
	}
	dir, err := os.Stat(in.home.RunDir())
	if err != nil {
		t.Fatal(err)
	}
	if dir.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory mode %v, want 0700", dir.Mode().Perm())
	}

	// Restarting over a leftover socket file replaces it; closing removes it.
	// (Answering first makes sure the server's Serve goroutine runs: a
	// Serve that starts after Close unlinks the socket path when it gives
	// up, which would remove the next server's socket.)
	if code, _ := in.do(t, "GET", "/v1/version", ""); code != 200 {
		t.Fatalf("version: %d", code)
	}
	if err := in.srv.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(in.home.HostSocket()); !os.IsNotExist(err) {
		t.Fatalf("socket left after Close: %v", err)
	}
	if err := os.WriteFile(in.home.HostSocket(), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	srv, err := localapi.Listen(in.h, in.home.HostSocket(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("listen over a stale file: %v", err)
	}
	defer srv.Close(context.Background())
	if st, err := os.Stat(in.home.HostSocket()); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("relistened socket: %v %v", st.Mode(), err)
	}
	if code, _ := in.do(t, "GET", "/v1/version", ""); code != 200 {
		t.Fatalf("version after relisten: %d", code)
	}
}

// step is one request of TestRoutes. Paths and bodies may name values
// saved by earlier steps as {name}.
type step struct {
	route      string // the pattern in server.go this step exercises
	method     string
	path, body string
	want       int
	contains   string
	save       map[string]string // name → top-level JSON field of the answer
	wait       func(t *testing.T, in *instance, vars map[string]string)
}

// TestRoutes calls every route of the API: its happy path and its error
// codes (400 bad JSON, 404 unknown, 409 conflict, 422 refusal). It fails
// when server.go gains a route no step calls.
// TestOversizedBody: a body over the 1 MiB bound is refused as such (413,
// one line), and starts nothing. Before, it was cut at the bound and a
// valid request was answered "bad request body: unexpected end of JSON
// input".
func TestOversizedBody(t *testing.T) {
	in := newInstance(t)
	big, _ := json.Marshal(api.CreateAgentRequest{Agent: "claude", Prompt: strings.Repeat("x", localapi.MaxBody), Cwd: in.work})
	code, body := in.do(t, "POST", "/v1/agents/run", string(big))
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "over the 1048576-byte limit") {
		t.Errorf("POST /v1/agents/run with %d bytes: %d %s, want 413 naming the limit", len(big), code, body)
	}
	if _, body := in.do(t, "GET", "/v1/terminals", ""); strings.Contains(body, "claude") {
		t.Errorf("the refused request started an agent: %s", body)
	}
}

func TestRoutes(t *testing.T) {
	t.Setenv(localapi.DebugEnv, "1") // so the debug routes are served and checked too
	in := newInstance(t)
	promptedAndLive := func(t *testing.T, in *instance, vars map[string]string) {
		waitFor(t, "the agent to be prompted", func() bool {
			_, body := in.do(t, "GET", "/v1/bindings/"+vars["agentTerminal"], "")
			b := decode[api.Binding](t, body)
			return b.Prompted && b.EndReason == ""
		})
	}
	steps := []step{
		{route: "GET /v1/version", method: "GET", path: "/v1/version", want: 200, contains: `"api":1`},
		{route: "GET /v1/agents", method: "GET", path: "/v1/agents", want: 200, contains: `"id":"claude"`},
		{route: "GET /v1/agents/{id}", method: "GET", path: "/v1/agents/claude", want: 200, contains: `"found":true`},
		{route: "GET /v1/agents/{id}", method: "GET", path: "/v1/agents/nope", want: 404, contains: `unknown agent \"nope\"`},

		{route: "PUT /v1/agents/{id}", method: "PUT", path: "/v1/agents/mine", body: `{"label":"Mine","command":"claude","promptTransport":"argv"}`, want: 200, contains: `"builtin":false`},
		{route: "PUT /v1/agents/{id}", method: "PUT", path: "/v1/agents/mine", body: `{"label":`, want: 400, contains: "bad request body"},
		{route: "PUT /v1/agents/{id}", method: "PUT", path: "/v1/agents/mine", body: `{"label":"","command":"claude"}`, want: 422, contains: "label is empty"},
		{route: "PUT /v1/agents/{id}", method: "PUT", path: "/v1/agents/Bad%20Id", body: `{"label":"x","command":"claude"}`, want: 422, contains: "must be 1-32 of a-z"},

		{route: "PUT /v1/agents/{id}/resume-args", method: "PUT", path: "/v1/agents/mine/resume-args", body: `{"resumeArgs":["--resume"]}`, want: 200, contains: `"resumeArgs":["--resume"]`},
		{route: "PUT /v1/agents/{id}/resume-args", method: "PUT", path: "/v1/agents/mine/resume-args", body: `["--resume"]`, want: 400, contains: "bad request body"},
		{route: "PUT /v1/agents/{id}/resume-args", method: "PUT", path: "/v1/agents/nope/resume-args", body: `{"resumeArgs":[]}`, want: 404, contains: `unknown agent \"nope\"`},

		{route: "POST /v1/agents/{id}/reset", method: "POST", path: "/v1/agents/mine/reset", want: 409, contains: "only builtin agents have defaults"},
		{route: "POST /v1/agents/{id}/reset", method: "POST", path: "/v1/agents/nope/reset", want: 404, contains: `unknown agent \"nope\"`},

		{route: "DELETE /v1/agents/{id}", method: "DELETE", path: "/v1/agents/claude", want: 409, contains: "builtin agents can be reset, not deleted"},
		{route: "DELETE /v1/agents/{id}", method: "DELETE", path: "/v1/agents/mine", want: 200, contains: `{}`},
		{route: "DELETE /v1/agents/{id}", method: "DELETE", path: "/v1/agents/mine", want: 404, contains: `unknown agent \"mine\"`},

		{route: "POST /v1/agents/{id}/hooks", method: "POST", path: "/v1/agents/codex/hooks", want: 200, contains: `"installed":true`},
		{route: "DELETE /v1/agents/{id}/hooks", method: "DELETE", path: "/v1/agents/codex/hooks", want: 200, contains: `"installed":false`},
		{route: "POST /v1/agents/{id}/hooks", method: "POST", path: "/v1/agents/nope/hooks", want: 404, contains: `nope`},

		{route: "POST /v1/agents/run", method: "POST", path: "/v1/agents/run", body: `{"agent":"claude","prompt":"remember OLIVE-3","cwd":"{work}"}`, want: 200, contains: `"terminalId"`,
			save: map[string]string{"agentTerminal": "terminalId", "session": "sessionId"}, wait: promptedAndLive},
		{route: "POST /v1/agents/run", method: "POST", path: "/v1/agents/run", body: `{"agent":`, want: 400, contains: "bad request body"},
		{route: "POST /v1/agents/run", method: "POST", path: "/v1/agents/run", body: `{"agent":"claude","cwd":"/no/such/dir"}`, want: 422, contains: "No such directory: /no/such/dir"},
		{route: "POST /v1/agents/run", method: "POST", path: "/v1/agents/run", body: `{"agent":"nope"}`, want: 404, contains: `unknown agent \"nope\"`},
		{route: "PUT /v1/agents/{id}/resume-args", method: "PUT", path: "/v1/agents/codex/resume-args", body: `{"resumeArgs":[]}`, want: 200, contains: `"id":"codex"`},
		{route: "POST /v1/agents/run", method: "POST", path: "/v1/agents/run", body: `{"agent":"codex","resumeSessionId":"abc","cwd":"{work}"}`, want: 422,
			contains: "Codex does not support resuming a session by id"},
		{route: "POST /v1/agents/{id}/reset", method: "POST", path: "/v1/agents/codex/reset", want: 200, contains: `"resumeArgs":["resume"]`},

		{route: "GET /v1/terminals", method: "GET", path: "/v1/terminals", want: 200, contains: `"id":"{agentTerminal}"`},
		{route: "GET /v1/bindings/{terminalId}", method: "GET", path: "/v1/bindings/{agentTerminal}", want: 200, contains: `"sessionId":"{session}"`},
		{route: "GET /v1/bindings/{terminalId}", method: "GET", path: "/v1/bindings/t_0000000000000000", want: 404, contains: "not found"},
		{route: "GET /v1/candidates", method: "GET", path: "/v1/candidates", want: 200, contains: `[]`},
		{route: "GET /v1/agent-states", method: "GET", path: "/v1/agent-states", want: 200, contains: `"terminalId":"{agentTerminal}","paneId":"p`},
		{route: "GET /v1/sessions", method: "GET", path: "/v1/sessions", want: 200, contains: `"sessionId":"{session}"`},
		{route: "GET /v1/sessions", method: "GET", path: "/v1/sessions?all=1&q=no-such-thing", want: 200, contains: `[]`},
		{route: "GET /v1/sessions", method: "GET", path: "/v1/sessions?all=true&q={session}", want: 200, contains: `"live":true`},

		{route: "POST /v1/resume", method: "POST", path: "/v1/resume", body: `{}`, want: 400, contains: "terminalId is required"},
		{route: "POST /v1/resume", method: "POST", path: "/v1/resume", body: `{"terminalId":`, want: 400, contains: "bad request body"},
		{route: "POST /v1/resume", method: "POST", path: "/v1/resume", body: `{"terminalId":"{agentTerminal}"}`, want: 422, contains: "it is still running"},
		{route: "POST /v1/resume", method: "POST", path: "/v1/resume", body: `{"terminalId":"t_0000000000000000"}`, want: 404, contains: "no agent ran in terminal t_0000000000000000"},

		{route: "POST /v1/hooks/notify", method: "POST", path: "/v1/hooks/notify", want: 200, contains: `{}`},

		{route: "GET /v1/settings/{key}", method: "GET", path: "/v1/settings/agents.onInterrupt", want: 200, contains: `{"value":"banner"}`},
		{route: "GET /v1/settings/{key}", method: "GET", path: "/v1/settings/no.such", want: 422, contains: `unknown setting \"no.such\"`},
		{route: "PUT /v1/settings/{key}", method: "PUT", path: "/v1/settings/scrollback.persist", body: `{"value":"false"}`, want: 200, contains: `{}`},
		{route: "GET /v1/settings/{key}", method: "GET", path: "/v1/settings/scrollback.persist", want: 200, contains: `{"value":"false"}`},
		{route: "PUT /v1/settings/{key}", method: "PUT", path: "/v1/settings/scrollback.persist", body: `{"value":"sometimes"}`, want: 422, contains: "is not one of"},
		{route: "PUT /v1/settings/{key}", method: "PUT", path: "/v1/settings/scrollback.persist", body: `{"value":`, want: 400, contains: "bad request body"},

		{route: "POST /v1/terminals/{id}/close", method: "POST", path: "/v1/terminals/{agentTerminal}/close", want: 200, contains: `{}`},
		{route: "GET /v1/terminals", method: "GET", path: "/v1/terminals", want: 200, contains: `"status":"closed"`},
		{route: "POST /v1/terminals/{id}/close", method: "POST", path: "/v1/terminals/t_0000000000000000/close", want: 404, contains: "not found"},

		{route: "DELETE /v1/sessions/{agent}/{session}", method: "DELETE", path: "/v1/sessions/claude/{session}", want: 200, contains: `{}`},
		{route: "GET /v1/sessions", method: "GET", path: "/v1/sessions?all=1&q={session}", want: 200, contains: `[]`},
		{route: "DELETE /v1/sessions/{agent}/{session}", method: "DELETE", path: "/v1/sessions/claude/{session}", want: 404, contains: "not found"},

		{route: "GET /v1/restore", method: "GET", path: "/v1/restore", want: 200, contains: `"recovered":false`},
		{route: "GET /v1/debug/streams", method: "GET", path: "/v1/debug/streams", want: 200, contains: `[]`},
		{route: "GET /v1/debug/marks", method: "GET", path: "/v1/debug/marks", want: 200, contains: `[]`},

		{method: "GET", path: "/v1/nothing-here", want: 404},
		{method: "DELETE", path: "/v1/version", want: 405},
	}
	vars := map[string]string{"work": in.work}
	expand := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	tested := map[string]bool{}
	for i, s := range steps {
		tested[s.route] = true
		name := fmt.Sprintf("%02d %s %s", i, s.method, s.path)
		ok := t.Run(name, func(t *testing.T) {
			path, body := expand(s.path), expand(s.body)
			code, got := in.do(t, s.method, path, body)
			want := expand(s.contains)
			if code != s.want || !strings.Contains(got, want) {
				t.Fatalf("%s %s %s: %d %s; want %d containing %s", s.method, path, body, code, got, s.want, want)
			}
			for name, field := range s.save {
				vars[name] = decode[map[string]any](t, got)[field].(string)
			}
			if s.wait != nil {
				s.wait(t, in, vars)
			}
		})
		if !ok && (s.save != nil || s.wait != nil) {
			t.Fatal("later steps depend on this one")
		}
	}

	src, err := os.ReadFile("server.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`mux\.HandleFunc\("([^"]+)"`).FindAllStringSubmatch(string(src), -1) {
		if !tested[m[1]] {
			t.Errorf("route %q has no step in TestRoutes", m[1])
		}
	}
}

// The resume flow over HTTP: an interrupted agent is a candidate, resume
// relaunches it with its session id in the same pane, a repeat returns the
// same terminal.
func TestResumeOverHTTP(t *testing.T) {
	in := newInstance(t)
	code, body := in.do(t, "POST", "/v1/agents/run", fmt.Sprintf(`{"agent":"claude","prompt":"remember QUINCE-5","cwd":%q}`, in.work))
	if code != 200 {
		t.Fatalf("run: %d %s", code, body)
	}
	run := decode[api.CreateAgentResult](t, body)
	waitFor(t, "prompted", func() bool {
		_, body := in.do(t, "GET", "/v1/bindings/"+run.TerminalID, "")
		return decode[api.Binding](t, body).Prompted
	})
	_, body = in.do(t, "GET", "/v1/terminals", "")
	terms := decode[[]api.Terminal](t, body)
	i := slices.IndexFunc(terms, func(tm api.Terminal) bool { return tm.ID == run.TerminalID })
	if i < 0 {
		t.Fatalf("terminal %s not listed", run.TerminalID)
	}
	syscall.Kill(-terms[i].PID, syscall.SIGKILL)
	waitFor(t, "a candidate", func() bool {
		_, body := in.do(t, "GET", "/v1/candidates", "")
		return strings.Contains(body, `"terminalId":"`+run.TerminalID+`"`)
	})

	code, body = in.do(t, "POST", "/v1/resume", fmt.Sprintf(`{"terminalId":%q}`, run.TerminalID))
	if code != 200 {
		t.Fatalf("resume: %d %s", code, body)
	}
	r := decode[api.ResumeResult](t, body)
	if r.SessionID != run.SessionID || r.PaneID != run.PaneID || r.FromTerminal != run.TerminalID {
		t.Fatalf("resumed %+v from %+v", r, run)
	}
	waitFor(t, "the relaunch", func() bool {
		s, _ := fake.ReadStarts(in.starts)
		return len(s) == 2 && slices.Contains(s[1].Argv, run.SessionID) && slices.Contains(s[1].Argv, "--resume")
	})
	_, body = in.do(t, "POST", "/v1/resume", fmt.Sprintf(`{"terminalId":%q}`, run.TerminalID))
	if again := decode[api.ResumeResult](t, body); again.TerminalID != r.TerminalID {
		t.Fatalf("repeat resume named %s, want %s", again.TerminalID, r.TerminalID)
	}
	if _, body := in.do(t, "GET", "/v1/candidates", ""); body != "[]" {
		t.Fatalf("candidates after resume: %s", body)
	}
}

// GET /v1/debug/streams is served only with REPRISE_DEBUG_API=1 and counts,
// per viewer and terminal, the bytes handed to the frontend and the bytes it
// acknowledged.
func TestDebugStreams(t *testing.T) {
	off := newInstance(t)
	for _, route := range []string{"/v1/debug/streams", "/v1/debug/marks"} {
		if code, _ := off.do(t, "GET", route, ""); code != http.StatusNotFound {
			t.Fatalf("%s without %s: status %d, want 404", route, localapi.DebugEnv, code)
		}
	}

	t.Setenv(localapi.DebugEnv, "1")
	in := newInstance(t)
	ctx := context.Background()
	lay, err := in.h.Layout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tid := lay.Tabs[0].Root.TerminalID
	v := in.h.NewViewer()
	got := make(chan int, 1024)
	if _, _, err := v.Attach(ctx, tid, 80, 24, host.Stream{OnData: func(p []byte) { got <- len(p) }}); err != nil {
		t.Fatal(err)
	}
	if err := v.Input(ctx, tid, []byte("echo debug-$((6*7))\n")); err != nil {
		t.Fatal(err)
	}
	stats := func() []host.StreamStat {
		_, body := in.do(t, "GET", "/v1/debug/streams", "")
		return decode[[]host.StreamStat](t, body)
	}
	var received int64
	waitFor(t, "output counted as sent", func() bool {
		for drained := false; !drained; {
			select {
			case n := <-got:
				received += int64(n)
			default:
				drained = true
			}
		}
		st := stats()
		return received > 0 && len(st) == 1 && st[0].TerminalID == tid && st[0].Sent == received
	})
	if st := stats()[0]; st.Acked != 0 || st.LastAckUnixMs != 0 {
		t.Fatalf("nothing acknowledged yet, got %+v", st)
	}
	before := time.Now().UnixMilli()
	if err := v.Ack(tid, 5); err != nil {
		t.Fatal(err)
	}
	if st := stats()[0]; st.Acked != 5 || st.LastAckUnixMs < before {
		t.Fatalf("after acknowledging 5 bytes: %+v", st)
	}
	v.Close()
	if st := stats(); len(st) != 0 {
		t.Fatalf("a closed viewer is still listed: %+v", st)
	}
}

// A directory at the socket path was reported as "address already in use".
func TestDirectoryAtSocketPath(t *testing.T) {
	in := newInstance(t)
	sock := filepath.Join(in.home.RunDir(), "other.sock")
	if err := os.MkdirAll(filepath.Join(sock, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := localapi.Listen(in.h, sock, slog.New(slog.DiscardHandler))
	if err == nil {
		t.Fatal("listened over a directory")
	}
	msg := err.Error()
	if !strings.Contains(msg, sock) || !strings.Contains(msg, "is a directory") || strings.Contains(msg, "address already in use") {
		t.Fatalf("error %q does not say the path is a directory", msg)
	}
}

// An idle keep-alive client is closed after the idle timeout, and past the
// cap a new connection is closed at once: a stuck client cannot hold the
// host's descriptors.
func TestListenerLimits(t *testing.T) {
	defer localapi.SetLimits(2, 200*time.Millisecond)()
	in := newInstance(t)
	dial := func() net.Conn {
		c, err := net.Dial("unix", in.home.HostSocket())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	c := dial()
	io.WriteString(c, "GET /v1/version HTTP/1.1\r\nHost: reprise\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("version: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle keep-alive connection: read %v, want EOF (closed by the server)", err)
	}

	waitOpen := func(n int) {
		for deadline := time.Now().Add(10 * time.Second); in.srv.OpenConns() != n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d connections open, want %d", in.srv.OpenConns(), n)
			}
		}
	}
	waitOpen(0) // the closed one has left the count
	hold := []net.Conn{dial(), dial()}
	for deadline := time.Now().Add(10 * time.Second); in.srv.OpenConns() != 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, want the 2 held", in.srv.OpenConns())
		}
	}
	over := dial()
	over.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := over.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("connection over the cap: %v, want closed at once", err)
	}
	_ = hold
}
