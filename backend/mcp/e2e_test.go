package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
	"github.com/reprise-dev/reprise/internal/testenv"
	"github.com/reprise-dev/reprise/sdk"
)

// reprise is the real binary (its mcp, ptyd and hook subcommands), and
// fakeBin holds the fake claude and codex; built once in TestMain.
var reprise, fakeBin string

func TestMain(m *testing.M) {
	testenv.Main(m, func(b *testenv.Binaries) { reprise, fakeBin = b.Reprise, b.FakeBin })
}

// testEnv is one isolated Reprise instance: its home, a user HOME for the
// fake agents' state, a work directory and the fakes' start log.
type testEnv struct {
	home     paths.Home
	userHome string
	work     string
	starts   string
}

func newEnv(t *testing.T) testEnv {
	t.Helper()
	dir, err := os.MkdirTemp("", "rx") // short: socket paths are limited to 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	e := testEnv{home: paths.Home{Dir: dir}, userHome: filepath.Join(dir, "u"), work: filepath.Join(dir, "work"), starts: filepath.Join(dir, "starts.log")}
	for _, d := range []string{e.userHome, e.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		stopInstance(e.home)
		os.RemoveAll(dir)
	})
	return e
}

// agentEnv is what terminals of this instance start from.
func (e testEnv) agentEnv() []string {
	return []string{"PATH=" + fakeBin + ":/usr/bin:/bin", "HOME=" + e.userHome, "SHELL=/bin/sh", "PS1=$ ", fake.StartLogEnv + "=" + e.starts}
}

// startHost runs a host in this process and serves its local API, as the
// desktop app does. stop (also run at cleanup) closes both.
func (e testEnv) startHost(t *testing.T) (h *host.Host, stop func()) {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := host.Start(context.Background(), host.Config{Home: e.home, Exe: reprise, Shell: []string{"/bin/sh"}, BaseEnv: e.agentEnv(), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := localapi.Listen(h, e.home.HostSocket(), logger)
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	stop = sync.OnceFunc(func() {
		srv.Close(context.Background())
		h.Close()
	})
	t.Cleanup(stop)
	return h, stop
}

// mcpProcess is a running `reprise mcp` and the client session talking to
// it over its stdin and stdout.
type mcpProcess struct {
	cs     *mcpsdk.ClientSession
	cmd    *exec.Cmd
	stderr *syncBuffer
}

func (e testEnv) startMCP(t *testing.T) *mcpProcess {
	t.Helper()
	cmd := exec.Command(reprise, "mcp")
	cmd.Dir = e.work // agents_create's default cwd
	cmd.Env = append(e.agentEnv(), "REPRISE_HOME="+e.home.Dir, "CLAUDECODE=1")
	p := &mcpProcess{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = p.stderr
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.cs = cs
	t.Cleanup(func() {
		p.close(t)
		if t.Failed() {
			t.Logf("reprise mcp stderr:\n%s", p.stderr)
		}
	})
	return p
}

// close closes stdin, as MCP clients do, and checks the server exits 0.
func (p *mcpProcess) close(t *testing.T) {
	t.Helper()
	if p.cs == nil {
		return
	}
	err := p.cs.Close()
	p.cs = nil
	if err != nil || p.cmd.ProcessState == nil || p.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("reprise mcp did not exit cleanly on EOF: %v (state %v)\nstderr:\n%s", err, p.cmd.ProcessState, p.stderr)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// call calls a tool that must succeed and decodes its structured result.
func call[T any](t *testing.T, cs *mcpsdk.ClientSession, tool string, args any) T {
	t.Helper()
	res := callTool(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s: %s", tool, resultText(res))
	}
	var out T
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: decode %s: %v", tool, b, err)
	}
	return out
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

// The scenario through MCP: a model starts Claude with a codeword,
// the agent's terminal is killed, the model finds the candidate and
// resumes it, and the conversation comes back.
func TestStdioEndToEnd(t *testing.T) {
	e := newEnv(t)
	e.startHost(t)
	p := e.startMCP(t)
	cs := p.cs

	if init := cs.InitializeResult(); init == nil || init.ServerInfo.Name != "reprise" {
		t.Fatalf("initialize: %+v", init)
	}
	var names []string
	for _, tool := range listTools(t, cs) {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"agents_create", "agents_list", "agents_status", "resume", "resume_candidates", "sessions_list", "terminals_list"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	agents := call[agentsOutput](t, cs, "agents_list", nil)
	if i := slices.IndexFunc(agents.Agents, func(a api.Agent) bool { return a.ID == "claude" }); i < 0 || !agents.Agents[i].Found {
		t.Fatalf("claude not listed as found: %+v", agents)
	}

	// No cwd: the agent runs where `reprise mcp` was started.
	created := call[api.CreateAgentResult](t, cs, "agents_create", map[string]any{"agent": "claude", "prompt": "remember MANGO-42"})
	if created.TerminalID == "" || created.SessionID == "" {
		t.Fatalf("agents_create: %+v", created)
	}
	waitFor(t, "the session to be prompted", func() bool {
		ss := call[sessionsOutput](t, cs, "sessions_list", map[string]any{"query": created.SessionID})
		return len(ss.Sessions) == 1 && ss.Sessions[0].Live && ss.Sessions[0].FirstPromptAt != nil
	})
	// Prompted means the turn began; wait for the reply too, so the kill
	// interrupts a conversation that has an answer to bring back.
	waitFor(t, "the agent's reply", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.home.ScrollbackDir(), created.TerminalID+".log"))
		return bytes.Contains(b, []byte("ack: remember MANGO-42"))
	})
	starts, _ := fake.ReadStarts(e.starts)
	if len(starts) != 1 || starts[0].Cwd != e.work {
		t.Fatalf("starts %+v, want one in %s", starts, e.work)
	}

	// Interrupt: kill -9 the terminal's whole process group.
	terms := call[terminalsOutput](t, cs, "terminals_list", nil)
	i := slices.IndexFunc(terms.Terminals, func(tm api.Terminal) bool { return tm.ID == created.TerminalID })
	if i < 0 || terms.Terminals[i].PID <= 0 || terms.Terminals[i].Status != api.StatusRunning {
		t.Fatalf("agent terminal in %+v", terms)
	}
	if err := syscall.Kill(-terms.Terminals[i].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a resume candidate", func() bool {
		cands := call[candidatesOutput](t, cs, "resume_candidates", nil)
		return slices.ContainsFunc(cands.Candidates, func(b api.Binding) bool { return b.TerminalID == created.TerminalID })
	})

	resumed := call[api.ResumeResult](t, cs, "resume", map[string]any{"terminalId": created.TerminalID})
	if resumed.SessionID != created.SessionID || resumed.PaneID != created.PaneID || resumed.TerminalID == created.TerminalID {
		t.Fatalf("resume: %+v (created %+v)", resumed, created)
	}
	waitFor(t, "the agent's relaunch", func() bool { starts, _ = fake.ReadStarts(e.starts); return len(starts) == 2 })
	if !containsSeq(starts[1].Argv, "--resume", created.SessionID) {
		t.Fatalf("the relaunch was %v, want --resume %s", starts[1].Argv, created.SessionID)
	}
	scrollback := filepath.Join(e.home.ScrollbackDir(), resumed.TerminalID+".log")
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(scrollback)
			st, _ := os.ReadFile(e.starts)
			t.Logf("resumed terminal's scrollback:\n%q\nstarts:\n%s", b, st)
		}
	})
	waitFor(t, "the codeword in the resumed terminal's scrollback", func() bool {
		b, _ := os.ReadFile(scrollback)
		return bytes.Contains(b, []byte("ack: remember MANGO-42"))
	})
	again := call[api.ResumeResult](t, cs, "resume", map[string]any{"terminalId": created.TerminalID})
	if again.TerminalID != resumed.TerminalID {
		t.Fatalf("a repeated resume named %s, want %s", again.TerminalID, resumed.TerminalID)
	}

	t.Run("errors are tool results", func(t *testing.T) {
		cases := []struct {
			tool string
			args map[string]any
			want string
		}{
			{"agents_create", map[string]any{"agent": "nope"}, `unknown agent "nope"`},
			{"agents_create", map[string]any{"agent": "claude", "cwd": "/no/such/dir"}, "No such directory: /no/such/dir"},
			{"resume", map[string]any{"terminalId": "t_0000000000000000"}, "no agent ran in terminal t_0000000000000000"},
			{"resume", map[string]any{"terminalId": resumed.TerminalID}, "it is still running"},
		}
		for _, tc := range cases {
			res := callTool(t, cs, tc.tool, tc.args)
			if text := resultText(res); !res.IsError || !strings.Contains(text, tc.want) {
				t.Errorf("%s %v: IsError=%v %q, want an error result with %q", tc.tool, tc.args, res.IsError, text, tc.want)
			}
		}
	})
}

// With no host running, `reprise mcp` starts one in-process on the first
// call, serves the local API from it while it runs, and lets go of the
// home when its client disconnects.
func TestStdioStartsAHostWhenNoneRuns(t *testing.T) {
	e := newEnv(t)
	p := e.startMCP(t)

	created := call[api.CreateAgentResult](t, p.cs, "agents_create", map[string]any{"agent": "claude", "prompt": "remember KIWI-7"})
	// The agent's hooks reach the in-process host: the session becomes prompted.
	waitFor(t, "the session to be prompted", func() bool {
		ss := call[sessionsOutput](t, p.cs, "sessions_list", nil)
		return slices.ContainsFunc(ss.Sessions, func(s api.Session) bool { return s.SessionID == created.SessionID && s.FirstPromptAt != nil })
	})
	// Other clients reach the same host through the socket.
	c, err := sdk.Connect(context.Background(), e.home.Dir)
	if err != nil {
		t.Fatalf("the in-process host does not serve the local API: %v", err)
	}
	if b, err := c.Binding(context.Background(), created.TerminalID); err != nil || b.AgentID != "claude" {
		t.Fatalf("binding over the socket: %+v %v", b, err)
	}
	if _, err := host.Start(context.Background(), host.Config{Home: e.home, Exe: reprise}); !errors.Is(err, host.ErrHostRunning) {
		t.Fatalf("while reprise mcp runs its host holds the home: %v", err)
	}

	p.close(t)
	h, _ := e.startHost(t) // the lock was released
	if tm, err := h.Terminal(context.Background(), created.TerminalID); err != nil || tm.Status != api.StatusRunning {
		t.Fatalf("the agent's terminal should outlive reprise mcp: %+v %v", tm, err)
	}
}

// stopInstance kills every process started for a home — terminals, agents,
// the hooks they run, the daemon — so that nothing writes into it (an
// agent's goodbye hook, say) after the test removes it.
func stopInstance(home paths.Home) { testenv.StopInstance(home.Dir) }

// A host that goes away while `reprise mcp` runs (the app was closed) is
// replaced by one in-process at the next call.
func TestStdioOutlivesTheHost(t *testing.T) {
	e := newEnv(t)
	_, stop := e.startHost(t)
	p := e.startMCP(t)
	before := call[terminalsOutput](t, p.cs, "terminals_list", nil)
	stop()
	after := call[terminalsOutput](t, p.cs, "terminals_list", nil)
	if len(before.Terminals) == 0 || len(after.Terminals) != len(before.Terminals) || after.Terminals[0].ID != before.Terminals[0].ID {
		t.Fatalf("terminals before %+v, after %+v", before, after)
	}
	if _, err := sdk.Connect(context.Background(), e.home.Dir); err != nil {
		t.Fatalf("the replacement host does not serve the socket: %v", err)
	}
}

func containsSeq(argv []string, a, b string) bool {
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == a && argv[i+1] == b {
			return true
		}
	}
	return false
}
