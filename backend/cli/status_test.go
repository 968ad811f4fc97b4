package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
)

// `agents status --json` through the real chain: hooks as an agent runs
// them (`reprise hook`), the host's inbox, the local API, the SDK, the CLI.
// One terminal waits on a permission prompt; one had a subagent's Stop,
// which must not end its parent's turn.
func TestAgentsStatusJSON(t *testing.T) {
	th := startTestHost(t)
	tids := th.newTerminals(t, 2)
	asking, busy := tids[0], tids[1]
	for _, h := range []struct{ tid, event, payload string }{
		{asking, "SessionStart", `{"session_id":"s-ask","source":"startup"}`},
		{asking, "UserPromptSubmit", `{"session_id":"s-ask","prompt":"delete the logs"}`},
		{asking, "Notification", `{"session_id":"s-ask","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`},
		{busy, "SessionStart", `{"session_id":"s-busy","source":"startup"}`},
		{busy, "UserPromptSubmit", `{"session_id":"s-busy","prompt":"review"}`},
		{busy, "Stop", `{"session_id":"s-busy","agent_id":"sub-1"}`},
		{busy, "Notification", `{"session_id":"s-busy","notification_type":"auth_success"}`},
	} {
		if err := th.hook(h.tid, h.event, h.payload); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{asking: api.AgentNeedsInput, busy: api.AgentWorking}
	var states []api.AgentState
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, stdout, stderr := runCLI("agents", "status", "--json", "--home", th.home.Dir)
		if code != 0 {
			t.Fatalf("agents status --json: exit %d, stderr %q", code, stderr)
		}
		states = nil
		if err := json.Unmarshal([]byte(stdout), &states); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, stdout)
		}
		got := map[string]string{}
		for _, s := range states {
			got[s.TerminalID] = s.State
		}
		// The subagent's Stop is drained before the auth notification, so once
		// it has been applied (lastEvent other) the answer is final.
		b, err := th.h.Binding(context.Background(), busy)
		if err == nil && b.LastEvent == "other" && got[asking] == want[asking] {
			if got[busy] != want[busy] || len(got) != 2 {
				t.Fatalf("states %v, want %v", got, want)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("states %v, want %v", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, s := range states {
		if s.PaneID == "" || s.AgentID != "claude" || s.Since.IsZero() || s.Detail == "" {
			t.Errorf("state %+v: want a pane, the agent, since and detail", s)
		}
	}
	// The table form names both.
	code, stdout, _ := runCLI("agents", "status", "--home", th.home.Dir)
	if code != 0 || !strings.HasPrefix(stdout, "TERMINAL") || !strings.Contains(stdout, "needs-input") || !strings.Contains(stdout, "working") {
		t.Errorf("agents status: exit %d, stdout %q", code, stdout)
	}
}

// --watch prints a line per change, not per poll, and a line for an agent
// that left; it stops cleanly when its context ends (Ctrl+C).
func TestWatchStatesPrintsChanges(t *testing.T) {
	lists := [][]api.AgentState{
		{{TerminalID: "t_1", AgentID: "claude", State: api.AgentWorking, Detail: "working"}},
		{{TerminalID: "t_1", AgentID: "claude", State: api.AgentWorking, Detail: "working"}},
		{{TerminalID: "t_1", AgentID: "claude", State: api.AgentNeedsInput, Detail: "waiting for your input"}},
		{},
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	list := func(context.Context) ([]api.AgentState, error) {
		if n == len(lists) {
			cancel()
			return nil, ctx.Err()
		}
		n++
		return lists[n-1], nil
	}
	var out bytes.Buffer
	if err := watchStates(ctx, list, &out, false, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "t_1  claude  working") || !strings.Contains(lines[1], "needs-input") || !strings.Contains(lines[2], "t_1  gone") {
		t.Fatalf("watch printed:\n%s", out.String())
	}
	// A host error ends the watch with it.
	boom := errors.New("host went away")
	err := watchStates(context.Background(), func(context.Context) ([]api.AgentState, error) { return nil, boom }, &out, true, time.Millisecond)
	if !errors.Is(err, boom) {
		t.Fatalf("watch error %v, want %v", err, boom)
	}
}
