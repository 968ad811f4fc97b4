package sdk_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
	"github.com/reprise-dev/reprise/sdk"
)

func newTestHost(t *testing.T) *testHost {
	t.Helper()
	th, err := startTestHost()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(th.stop)
	return th
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !until(cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestErrNoHost(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	sock := sdk.SocketPath(home)

	// Nothing at the socket path.
	if _, err := sdk.Connect(ctx, home); !errors.Is(err, sdk.ErrNoHost) {
		t.Fatalf("no socket: %v", err)
	}
	// A socket file left by a host that died: nobody accepts.
	if len(sock) < 100 {
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		ln.SetUnlinkOnClose(false)
		ln.Close()
		if _, err := os.Stat(sock); err != nil {
			t.Fatalf("stale socket not left behind: %v", err)
		}
		if _, err := sdk.Connect(ctx, home); !errors.Is(err, sdk.ErrNoHost) {
			t.Fatalf("stale socket: %v", err)
		}
	}
	// Every call says so, naming the socket.
	_, err := sdk.New(sock).Agents(ctx)
	if !errors.Is(err, sdk.ErrNoHost) || !strings.Contains(err.Error(), sock) {
		t.Fatalf("call without a host: %v", err)
	}
}

// A refusal carries the host's status and one-line message.
func TestAPIError(t *testing.T) {
	th := newTestHost(t)
	c, err := sdk.Connect(context.Background(), th.home.Dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateAgent(context.Background(), sdk.CreateAgentRequest{Agent: "claude", Cwd: "/no/such/dir"})
	var ae *sdk.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnprocessableEntity || ae.Message != "No such directory: /no/such/dir" {
		t.Fatalf("got %#v", err)
	}
	err = c.CloseTerminal(context.Background(), "t_0000000000000000")
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
		t.Fatalf("close of an unknown terminal: %#v", err)
	}
}

// Every call of the client against a real host, in the order a tool
// would make them: start, list, interrupt, resume, close, resume by id.
func TestClientAgainstHost(t *testing.T) {
	th := newTestHost(t)
	ctx := context.Background()
	c, err := sdk.Connect(ctx, th.home.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			st, _ := os.ReadFile(th.starts)
			t.Logf("starts:\n%s", st)
			ents, _ := os.ReadDir(th.home.ScrollbackDir())
			for _, e := range ents {
				b, _ := os.ReadFile(filepath.Join(th.home.ScrollbackDir(), e.Name()))
				t.Logf("scrollback %s:\n%q", e.Name(), b)
			}
		}
	})
	scrollbackHas := func(tid, text string) func() bool {
		return func() bool {
			b, _ := os.ReadFile(filepath.Join(th.home.ScrollbackDir(), tid+".log"))
			return bytes.Contains(b, []byte(text))
		}
	}

	agents, err := c.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(agents, func(a sdk.Agent) bool { return a.ID == "claude" }); i < 0 || !agents[i].Found || len(agents[i].ResumeArgs) == 0 {
		t.Fatalf("agents: %+v", agents)
	}

	run, err := c.CreateAgent(ctx, sdk.CreateAgentRequest{Agent: "claude", Prompt: "remember FIG-8", Cwd: th.work})
	if err != nil || run.SessionID == "" || run.PaneID == "" {
		t.Fatalf("create: %+v %v", run, err)
	}
	waitFor(t, "prompted", func() bool { b, err := c.Binding(ctx, run.TerminalID); return err == nil && b.Prompted })
	waitFor(t, "the agent's reply", scrollbackHas(run.TerminalID, "ack: remember FIG-8"))

	terms, err := c.Terminals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(terms, func(tm sdk.Terminal) bool { return tm.ID == run.TerminalID })
	if i < 0 || terms[i].Status != "running" || terms[i].PaneID != run.PaneID {
		t.Fatalf("terminals: %+v", terms)
	}
	for _, q := range []struct {
		all   bool
		query string
	}{{false, ""}, {true, "claude"}, {true, run.SessionID}, {false, th.work}} {
		ss, err := c.Sessions(ctx, q.all, q.query)
		if err != nil || !slices.ContainsFunc(ss, func(s sdk.Session) bool { return s.SessionID == run.SessionID && s.Live }) {
			t.Fatalf("sessions(all=%v, %q): %+v %v", q.all, q.query, ss, err)
		}
	}
	if ss, _ := c.Sessions(ctx, true, "no-such-thing"); len(ss) != 0 {
		t.Fatalf("a query matching nothing listed %+v", ss)
	}
	if cs, err := c.ResumeCandidates(ctx); err != nil || len(cs) != 0 {
		t.Fatalf("candidates while live: %+v %v", cs, err)
	}

	// Interrupt and resume.
	syscall.Kill(-terms[i].PID, syscall.SIGKILL)
	waitFor(t, "a candidate", func() bool {
		cs, _ := c.ResumeCandidates(ctx)
		return len(cs) == 1 && cs[0].TerminalID == run.TerminalID && cs[0].SessionID == run.SessionID
	})
	r, err := c.Resume(ctx, run.TerminalID)
	if err != nil || r.SessionID != run.SessionID || r.PaneID != run.PaneID || r.FromTerminal != run.TerminalID {
		t.Fatalf("resume: %+v %v", r, err)
	}
	waitFor(t, "the conversation back in the resumed terminal", scrollbackHas(r.TerminalID, "ack: remember FIG-8"))

	// Close it: the pane goes, the terminal is closed.
	if err := c.CloseTerminal(ctx, r.TerminalID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "closed", func() bool {
		ts, _ := c.Terminals(ctx)
		i := slices.IndexFunc(ts, func(tm sdk.Terminal) bool { return tm.ID == r.TerminalID })
		return i >= 0 && ts[i].Status == "closed" && ts[i].PaneID == ""
	})

	// The agent's own session id brings it back in a new tab.
	again, err := c.CreateAgent(ctx, sdk.CreateAgentRequest{Agent: "claude", ResumeSessionID: run.SessionID, Cwd: th.work})
	if err != nil || again.SessionID != run.SessionID || again.PaneID == run.PaneID {
		t.Fatalf("create with ResumeSessionID: %+v %v", again, err)
	}
	waitFor(t, "the conversation back by session id", scrollbackHas(again.TerminalID, "ack: remember FIG-8"))
	starts, _ := fake.ReadStarts(th.starts)
	last := starts[len(starts)-1]
	if !slices.Contains(last.Argv, "--resume") || !slices.Contains(last.Argv, run.SessionID) {
		t.Fatalf("last start %v", last.Argv)
	}

	// An agent without resume args refuses; a reset restores them.
	if a, err := c.SetResumeArgs(ctx, "claude", nil); err != nil || len(a.ResumeArgs) != 0 {
		t.Fatalf("set resume args: %+v %v", a, err)
	}
	_, err = c.CreateAgent(ctx, sdk.CreateAgentRequest{Agent: "claude", ResumeSessionID: run.SessionID, Cwd: th.work})
	var ae *sdk.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnprocessableEntity || !strings.Contains(ae.Message, "does not support resuming") {
		t.Fatalf("resume without resume args: %v", err)
	}
	if a, err := c.ResetAgent(ctx, "claude"); err != nil || !slices.Equal(a.ResumeArgs, []string{"--resume"}) {
		t.Fatalf("reset: %+v %v", a, err)
	}
	if err := c.NotifyHooks(ctx); err != nil {
		t.Fatal(err)
	}
}
