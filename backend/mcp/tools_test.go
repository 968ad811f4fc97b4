package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reprise-dev/reprise/backend/api"
)

// fakeBackend records calls and answers with canned values, or fails.
type fakeBackend struct {
	mu    sync.Mutex
	calls []string
	err   error  // every call fails with it
	panic string // every call panics with it
}

func (f *fakeBackend) record(format string, args ...any) error {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	err, p := f.err, f.panic
	f.mu.Unlock()
	if p != "" {
		panic(p)
	}
	return err
}

// heal makes later calls succeed.
func (f *fakeBackend) heal() {
	f.mu.Lock()
	f.err, f.panic = nil, ""
	f.mu.Unlock()
}

func (f *fakeBackend) lastCall() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return ""
	}
	return f.calls[len(f.calls)-1]
}

func (f *fakeBackend) Agents(ctx context.Context) ([]api.Agent, error) {
	return []api.Agent{{ID: "claude", Label: "Claude Code", Command: "claude", Found: true}}, f.record("Agents")
}
func (f *fakeBackend) CreateAgent(ctx context.Context, r api.CreateAgentRequest) (api.CreateAgentResult, error) {
	return api.CreateAgentResult{TerminalID: "t_1", PaneID: "p_1", Argv: []string{r.Agent}, SessionID: "s-1"},
		f.record("CreateAgent agent=%s prompt=%q resume=%s cwd=%s default=%s pane=%s", r.Agent, r.Prompt, r.ResumeSessionID, r.Cwd, r.DefaultCwd, r.PaneID)
}
func (f *fakeBackend) Terminals(ctx context.Context) ([]api.Terminal, error) {
	return nil, f.record("Terminals") // nil must still list as []
}
func (f *fakeBackend) Sessions(ctx context.Context, all bool, q string) ([]api.Session, error) {
	return []api.Session{{AgentID: "claude", SessionID: "s-1"}}, f.record("Sessions all=%v q=%q", all, q)
}
func (f *fakeBackend) ResumeCandidates(ctx context.Context) ([]api.Binding, error) {
	return []api.Binding{{TerminalID: "t_1", AgentID: "claude", Candidate: true}}, f.record("ResumeCandidates")
}
func (f *fakeBackend) AgentStates(ctx context.Context) ([]api.AgentState, error) {
	return []api.AgentState{{TerminalID: "t_1", AgentID: "claude", State: api.AgentNeedsInput}}, f.record("AgentStates")
}
func (f *fakeBackend) Resume(ctx context.Context, tid string) (api.ResumeResult, error) {
	return api.ResumeResult{TerminalID: "t_2", FromTerminal: tid}, f.record("Resume %s", tid)
}

// connect serves NewServer(b) to an in-memory client.
func connect(t *testing.T, b Backend, opts ServerOptions) *mcpsdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcpsdk.NewInMemoryTransports()
	ss, err := NewServer(b, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func listTools(t *testing.T, cs *mcpsdk.ClientSession) []*mcpsdk.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// callTool calls a tool; a protocol error fails the test, an error result
// is returned for the caller to judge.
func callTool(t *testing.T, cs *mcpsdk.ClientSession, name string, args any) *mcpsdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

func resultText(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

const snapDir = "testdata/toolsnaps"

// toolSnap is what a snapshot pins: the tool as clients see it, minus
// nothing — name, title, description, input schema, annotations.
func toolSnap(t *testing.T, tool *mcpsdk.Tool) []byte {
	t.Helper()
	raw, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	keep := map[string]any{}
	for _, k := range []string{"name", "title", "description", "inputSchema", "annotations"} {
		if v, ok := m[k]; ok {
			keep[k] = v
		}
	}
	out, err := json.MarshalIndent(keep, "", "  ") // maps marshal with sorted keys
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// TestToolSnapshots compares every tool with its committed snapshot, like
// github-mcp-server's __toolsnaps__. A changed schema or description is a
// change of the contract with models: review it, then accept it with
// UPDATE_TOOLSNAPS=1 go test ./backend/mcp/.
func TestToolSnapshots(t *testing.T) {
	update := os.Getenv("UPDATE_TOOLSNAPS") != ""
	tools := listTools(t, connect(t, &fakeBackend{}, ServerOptions{}))
	if update {
		if err := os.MkdirAll(snapDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range tools {
		t.Run(tool.Name, func(t *testing.T) {
			got := toolSnap(t, tool)
			path := filepath.Join(snapDir, tool.Name+".snap")
			if update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("tool %s has no snapshot %s; create it with UPDATE_TOOLSNAPS=1 go test ./backend/mcp/ and review it:\n%s", tool.Name, path, got)
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("tool %s no longer matches %s (accept with UPDATE_TOOLSNAPS=1 go test ./backend/mcp/)\n--- snapshot\n%s\n+++ now\n%s", tool.Name, path, want, got)
			}
		})
	}
	if update {
		removeStaleSnaps(t, tools)
	}
}

// TestEveryToolHasASnapshot fails when a tool is added without a snapshot,
// or a snapshot outlives its tool.
func TestEveryToolHasASnapshot(t *testing.T) {
	var names []string
	for _, tool := range listTools(t, connect(t, &fakeBackend{}, ServerOptions{})) {
		names = append(names, tool.Name)
	}
	entries, err := os.ReadDir(snapDir)
	if err != nil {
		t.Fatal(err)
	}
	var snaps []string
	for _, e := range entries {
		snaps = append(snaps, strings.TrimSuffix(e.Name(), ".snap"))
	}
	for _, n := range names {
		if !slices.Contains(snaps, n) {
			t.Errorf("tool %s has no snapshot in %s (UPDATE_TOOLSNAPS=1 go test ./backend/mcp/)", n, snapDir)
		}
	}
	for _, s := range snaps {
		if !slices.Contains(names, s) {
			t.Errorf("snapshot %s.snap names no tool; delete it (UPDATE_TOOLSNAPS=1 does)", s)
		}
	}
}

func removeStaleSnaps(t *testing.T, tools []*mcpsdk.Tool) {
	entries, _ := os.ReadDir(snapDir)
	for _, e := range entries {
		if !slices.ContainsFunc(tools, func(tool *mcpsdk.Tool) bool { return tool.Name+".snap" == e.Name() }) {
			os.Remove(filepath.Join(snapDir, e.Name()))
		}
	}
}

var sentenceBreak = regexp.MustCompile(`[.!?]\s+[A-Z]`)

// The hints clients use to decide what needs the user's approval.
func TestToolAnnotations(t *testing.T) {
	readOnly := []string{"agents_list", "terminals_list", "sessions_list", "resume_candidates", "agents_status"}
	acting := []string{"agents_create", "resume"}
	tools := listTools(t, connect(t, &fakeBackend{}, ServerOptions{}))
	if len(tools) != len(readOnly)+len(acting) {
		t.Errorf("%d tools; this test knows %d", len(tools), len(readOnly)+len(acting))
	}
	for _, tool := range tools {
		a := tool.Annotations
		switch {
		case a == nil:
			t.Errorf("%s: no annotations", tool.Name)
		case slices.Contains(readOnly, tool.Name):
			if !a.ReadOnlyHint {
				t.Errorf("%s lists state and should be read-only", tool.Name)
			}
		case slices.Contains(acting, tool.Name):
			if a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
				t.Errorf("%s starts an agent: not read-only, not destructive; got %+v", tool.Name, a)
			}
		default:
			t.Errorf("unexpected tool %s", tool.Name)
		}
		if n := len(sentenceBreak.FindAllString(tool.Description, -1)); tool.Description == "" || n > 1 || !strings.HasSuffix(tool.Description, ".") {
			t.Errorf("%s: description should be one or two sentences: %q", tool.Name, tool.Description)
		}
	}
}

func TestToolsCallTheBackend(t *testing.T) {
	cases := []struct {
		tool     string
		args     map[string]any
		wantCall string
		wantKey  string // a top-level key of the structured result
	}{
		{"agents_create", map[string]any{"agent": "claude", "prompt": "hi 'there'"}, `CreateAgent agent=claude prompt="hi 'there'" resume= cwd= default=/default/dir pane=`, "terminalId"},
		{"agents_create", map[string]any{"agent": "codex", "resumeSessionId": "s-9", "cwd": "/w"}, `CreateAgent agent=codex prompt="" resume=s-9 cwd=/w default=/default/dir pane=`, "sessionId"},
		{"agents_list", nil, "Agents", "agents"},
		{"terminals_list", map[string]any{}, "Terminals", "terminals"},
		{"sessions_list", nil, `Sessions all=false q=""`, "sessions"},
		{"sessions_list", map[string]any{"all": true, "query": "repo"}, `Sessions all=true q="repo"`, "sessions"},
		{"resume_candidates", nil, "ResumeCandidates", "candidates"},
		{"agents_status", nil, "AgentStates", "agents"},
		{"resume", map[string]any{"terminalId": "t_1"}, "Resume t_1", "fromTerminalId"},
	}
	b := &fakeBackend{}
	cs := connect(t, b, ServerOptions{DefaultCwd: "/default/dir"})
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			res := callTool(t, cs, tc.tool, tc.args)
			if res.IsError {
				t.Fatalf("error result: %s", resultText(res))
			}
			if got := b.lastCall(); got != tc.wantCall {
				t.Fatalf("backend got %s, want %s", got, tc.wantCall)
			}
			m, ok := res.StructuredContent.(map[string]any)
			if !ok || m[tc.wantKey] == nil {
				t.Fatalf("structured content %#v lacks %q", res.StructuredContent, tc.wantKey)
			}
			// The text content is the same JSON, for clients that read only text.
			var fromText map[string]any
			if err := json.Unmarshal([]byte(resultText(res)), &fromText); err != nil || fromText[tc.wantKey] == nil {
				t.Fatalf("text content %q: %v", resultText(res), err)
			}
		})
	}
	// An empty list is [], not null: "no terminals", not "unknown".
	res := callTool(t, cs, "terminals_list", nil)
	if !strings.Contains(resultText(res), `"terminals":[]`) {
		t.Fatalf("empty list: %s", resultText(res))
	}
}

// Every failure is a tool result with IsError and one readable line; the
// server keeps serving afterwards.
func TestToolFailuresAreErrorResults(t *testing.T) {
	hostErr := func() *fakeBackend {
		return &fakeBackend{err: errors.New(`unknown agent "nope" (see` + "\n" + "`reprise agents list`)")}
	}
	cases := []struct {
		name    string
		b       *fakeBackend
		tool    string
		args    map[string]any
		want    string
		reached bool // the backend was called
	}{
		{"host error, one line", hostErr(), "agents_create", map[string]any{"agent": "nope"}, "unknown agent \"nope\" (see; `reprise agents list`)", true},
		{"host error on a list", hostErr(), "resume_candidates", nil, `unknown agent "nope"`, true},
		{"panic", &fakeBackend{panic: "boom"}, "agents_list", nil, "internal error in agents_list: boom", true},
		{"missing agent", &fakeBackend{}, "agents_create", map[string]any{"prompt": "x"}, "agent", false},
		{"empty agent", &fakeBackend{}, "agents_create", map[string]any{"agent": ""}, "minLength", false},
		{"unknown argument", &fakeBackend{}, "resume", map[string]any{"terminalId": "t_1", "force": true}, "force", false},
		{"wrong type", &fakeBackend{}, "sessions_list", map[string]any{"all": "yes"}, "all", false},
		{"missing terminal id", &fakeBackend{}, "resume", nil, "terminalId", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := connect(t, tc.b, ServerOptions{})
			res := callTool(t, cs, tc.tool, tc.args)
			text := resultText(res)
			if !res.IsError || !strings.Contains(text, tc.want) || strings.Contains(text, "\n") {
				t.Fatalf("got IsError=%v %q, want an error result containing %q on one line", res.IsError, text, tc.want)
			}
			if reached := tc.b.lastCall() != ""; reached != tc.reached {
				t.Fatalf("backend reached: %v, want %v", reached, tc.reached)
			}
			// Still serving.
			tc.b.heal()
			if res := callTool(t, cs, "agents_list", nil); res.IsError {
				t.Fatalf("after a failure: %s", resultText(res))
			}
		})
	}
}

func TestAgentEnvDropsTheCallersMarkers(t *testing.T) {
	in := []string{"PATH=/bin", "CLAUDECODE=1", "CLAUDE_CODE_ENTRYPOINT=cli", "CODEX_THREAD_ID=x", "HOME=/h", "CLAUDECODEX=keep"}
	got := agentEnv(in)
	want := []string{"PATH=/bin", "HOME=/h", "CLAUDECODEX=keep"}
	if !slices.Equal(got, want) {
		t.Fatalf("agentEnv(%q) = %q, want %q", in, got, want)
	}
}
