package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
)

// attention is what the permission scenario needs to know about one CLI:
// which hook opens the approval prompt, what the prompt looks like, how a
// person approves it, and which hooks say "working again" and "turn over".
type attention struct {
	asks     string   // the hook that fires as the approval prompt opens
	asked    []string // the approval prompt on screen
	approve  string   // the keys that approve once
	resumes  string   // the first hook after the approval: the tool runs
	finishes string   // the hook that ends the turn
}

var attentions = map[string]attention{
	"claude": {asks: "Notification", asked: []string{"Do you want to proceed?"}, approve: "\r", resumes: "PostToolUse", finishes: "Stop"},
	"codex":  {asks: "PermissionRequest", asked: []string{"Would you like to run the following command?", "Allow command?"}, approve: "y", resumes: "PostToolUse", finishes: "Stop"},
	"gemini": {asks: "Notification", asked: []string{"Allow execution", "Allow once"}, approve: "\r", resumes: "AfterTool", finishes: "AfterAgent"},
}

// stateLog records the agentState of every binding event the host pushes
// for a terminal: what a WebSocket client (the pane's pill) sees.
type stateLog struct {
	mu  sync.Mutex
	seq []seenState
}

type seenState struct {
	At    time.Time
	State string
	Event string // the binding's last event kind
}

func (r *rig) watchStates(tid string) *stateLog {
	l := &stateLog{}
	ch := r.h.Subscribe()
	done := make(chan struct{})
	r.t.Cleanup(func() { r.h.Unsubscribe(ch); <-done })
	go func() {
		defer close(done)
		for ev := range ch {
			b, ok := ev.Data.(api.Binding)
			if ev.Kind != api.EventBinding || !ok || b.TerminalID != tid || b.AgentState == "" {
				continue
			}
			l.mu.Lock()
			l.seq = append(l.seq, seenState{At: time.Now(), State: b.AgentState, Event: b.LastEvent})
			l.mu.Unlock()
		}
	}()
	return l
}

// states is the sequence seen so far, repeats folded.
func (l *stateLog) states() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.seq {
		if len(out) == 0 || out[len(out)-1] != s.State {
			out = append(out, s.State)
		}
	}
	return out
}

// agentStatus is this terminal's entry in `reprise agents status --json`.
func (r *rig) agentStatus(tid string) api.AgentState {
	r.t.Helper()
	out := r.cliOut("agents", "status", "--json")
	var ss []api.AgentState
	if err := json.Unmarshal([]byte(out), &ss); err != nil {
		r.t.Fatalf("agents status --json: %v\n%s", err, out)
	}
	for _, s := range ss {
		if s.TerminalID == tid {
			return s
		}
	}
	r.t.Fatalf("agents status --json lists no %s:\n%s", tid, out)
	return api.AgentState{}
}

func (r *rig) waitStatus(tid, want string, d time.Duration) api.AgentState {
	r.t.Helper()
	var last api.AgentState
	r.waitFor(fmt.Sprintf("agents status %s (last %q; hooks %s)", want, last.State, r.hookSummary(tid)), d, func() bool {
		last = r.agentStatus(tid)
		return last.State == want
	})
	return last
}

// trimPayload keeps what a reader needs of a hook payload: the event, the
// fields the states read, and the names of the rest.
func trimPayload(c hookCall) string {
	var m map[string]any
	if json.Unmarshal(c.Payload, &m) != nil {
		return c.Event + " (no JSON payload)"
	}
	keep := map[string]any{}
	var rest []string
	for k, v := range m {
		switch k {
		case "hook_event_name", "notification_type", "message", "title", "tool_name", "type", "agent_id":
			if s, ok := v.(string); ok && len(s) > 80 {
				v = s[:80] + "…"
			}
			keep[k] = v
		case "tool_input":
			b, _ := json.Marshal(v)
			keep[k] = head(string(b), 80)
		default:
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	b, _ := json.Marshal(keep)
	return fmt.Sprintf("%s: `%s` + %s", c.Event, b, strings.Join(rest, ","))
}

// scenarioPermission: the stand-in model makes the agent call its shell
// tool; the CLI asks the user to approve the command → the pane's state is
// needs-input (and stays so while nobody answers); approving it → working
// (the command runs); the turn finishes → idle. States are read as a
// client reads them: the agentState pushed with each binding event, and
// `reprise agents status --json`.
func scenarioPermission(t *testing.T, id string) {
	p, at := profiles[id], attentions[id]
	r := newRig(t, id, "a tool needs approval → needs-input → approve → working → idle", rigOptions{askApproval: true})
	s := launch(r, p)
	log := r.watchStates(s.tid)
	// Before any prompt: starting (no hook event yet; Codex runs its
	// SessionStart only with the first prompt) or idle (SessionStart came:
	// the agent is at its prompt).
	if st := r.agentStatus(s.tid); st.State != api.AgentStarting && st.State != api.AgentIdle {
		t.Errorf("before the prompt: %s (%s), want %s or %s", st.State, st.Detail, api.AgentStarting, api.AgentIdle)
	}
	cw := codeword(ShellPrefix)
	file := filepath.Join(r.work, ShellFile(cw))
	seen := r.count(s.tid, p.promptHook)
	r.submitLine(s.tid, "Please run the command for "+cw+".", func() bool { return r.count(s.tid, p.promptHook) > seen })

	ask := r.waitHook(s.tid, at.asks, turnTimeout)
	r.waitShows(s.tid, turnTimeout, at.asked...)
	st := r.waitStatus(s.tid, api.AgentNeedsInput, hookTimeout)
	r.res.Payloads = append(r.res.Payloads, trimPayload(ask))
	// Nobody answers for a while: the state holds, and the command has not run.
	time.Sleep(2 * time.Second)
	if again := r.agentStatus(s.tid); again.State != api.AgentNeedsInput {
		t.Errorf("needs-input did not hold while the prompt was open: %s (%s)", again.State, again.Detail)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatalf("%s exists before the approval: the CLI did not ask", file)
	}
	r.res.note("agents status while the prompt is open: %s (%s)", st.State, st.Detail)

	r.keys(s.tid, at.approve)
	work := r.waitHook(s.tid, at.resumes, turnTimeout)
	r.res.Payloads = append(r.res.Payloads, trimPayload(work))
	fin := r.waitHook(s.tid, at.finishes, turnTimeout)
	r.waitShows(s.tid, turnTimeout, ReplyMarker+": I will remember "+cw)
	end := r.waitStatus(s.tid, api.AgentIdle, hookTimeout)
	r.res.Payloads = append(r.res.Payloads, trimPayload(fin))
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	r.res.note("agents status after the turn: %s (%s)", end.State, end.Detail)

	// The sequence a client saw: working (prompt) → needs-input → working
	// (the approved tool) → idle.
	time.Sleep(500 * time.Millisecond)
	got := log.states()
	want := []string{api.AgentWorking, api.AgentNeedsInput, api.AgentWorking, api.AgentIdle}
	if !containsInOrder(got, want) {
		t.Errorf("states pushed to clients %v, want %v in order", got, want)
	}
	var drove []string
	calls := r.calls(s.tid)
	log.mu.Lock()
	for i, e := range log.seq {
		if i > 0 && log.seq[i-1].State == e.State {
			continue
		}
		// The hook behind a state: the last one the spy logged before the
		// event was pushed.
		hook := "?"
		for _, c := range calls {
			if !c.At.After(e.At) {
				hook = c.Event
				if c.Event == "Notification" {
					var m map[string]any
					_ = json.Unmarshal(c.Payload, &m)
					if nt, _ := m["notification_type"].(string); nt != "" {
						hook += "(" + nt + ")"
					}
				}
			}
		}
		drove = append(drove, hook+" → "+e.State)
	}
	log.mu.Unlock()
	r.res.States = strings.Join(drove, ", ")
	record(r, s.tid)
	recordBinding(r, r.binding(s.tid))
	r.res.note("%d %s hook(s) for the one approval", r.count(s.tid, at.asks), at.asks)
}

// containsInOrder: want is a subsequence of got.
func containsInOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}
