package attention

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/hooks/payload"
)

// step is one row of a scenario: a hook call as the agent makes it (parsed
// by the real payload parser), or something the host observes, then the
// time that passes, and the state Derive must report after it.
type step struct {
	hook    string // "Event {json}" for claude (or agent:Event {json})
	observe string // bindings.KindTerminalExit, KindDispose, KindProcessExit:<status>, "dead" (the terminal's process is gone, not yet recorded)
	wait    time.Duration
	want    string
	stale   bool
	detail  string // a substring of Detail, when set
}

// world folds steps the way the host does: subagent events dropped, the
// truth table decides the binding, Records decides the activity.
type world struct {
	t        *testing.T
	b        *bindings.Binding
	activity string
	at       time.Time
	running  bool
	now      time.Time
}

func (w *world) apply(s step) {
	w.t.Helper()
	var in bindings.Input
	var ev payload.Event
	switch {
	case s.hook != "":
		agent, rest := "claude", s.hook
		if a, r, ok := strings.Cut(rest, ":"); ok && !strings.ContainsAny(a, " {") {
			agent, rest = a, r
		}
		name, body, _ := strings.Cut(rest, " ")
		var err error
		if ev, err = payload.Parse(agent, name, []byte(body), nil); err != nil {
			w.t.Fatalf("parse %s: %v", s.hook, err)
		}
		if ev.Subagent {
			break // the host drops these (host.handleHook)
		}
		in = bindings.Input{Kind: ev.Kind, AgentID: ev.Agent, SessionID: ev.SessionID, Source: ev.Source,
			Reason: ev.Reason, Prompted: ev.Prompted, At: w.now}
	case strings.HasPrefix(s.observe, bindings.KindProcessExit):
		var st int
		fmt.Sscanf(strings.TrimPrefix(s.observe, bindings.KindProcessExit+":"), "%d", &st)
		// The wrapper's shell keeps the terminal running: only the binding
		// says the agent is gone.
		in = bindings.Input{Kind: bindings.KindProcessExit, Status: &st, At: w.now}
	case s.observe == "dead":
		w.running = false
	case s.observe != "":
		in = bindings.Input{Kind: s.observe, At: w.now}
		w.running = false
	}
	if in.Kind != "" {
		next, _, changed := bindings.Decide(w.b, in)
		if changed {
			w.b = &next
		}
		prev := w.activity
		if w.at.Before(next.StartedAt) {
			prev = ""
		}
		if a, ok := Next(prev, ev, next, changed); ok {
			w.activity, w.at = a, w.now
		}
	}
	w.now = w.now.Add(s.wait)
}

func (w *world) state() State {
	return Derive(Input{Binding: *w.b, Activity: w.activity, ActivityAt: w.at, Running: w.running, Now: w.now})
}

const sid = `"session_id":"s-1"`

func TestDerive(t *testing.T) {
	launch := bindings.Input{Kind: bindings.KindLaunch, AgentID: "claude", SessionID: "s-1"}
	sec := time.Second
	scenarios := map[string][]step{
		"a turn": {
			{want: Starting},
			{hook: `SessionStart {` + sid + `,"source":"startup"}`, wait: sec, want: Idle}, // up, at its prompt
			{hook: `UserPromptSubmit {` + sid + `,"prompt":"hi"}`, wait: sec, want: Working},
			{hook: `PreToolUse {` + sid + `,"tool_name":"Bash"}`, wait: sec, want: Working},
			{hook: `PostToolUse {` + sid + `,"tool_name":"Bash"}`, wait: sec, want: Working},
			{hook: `Stop {` + sid + `}`, wait: sec, want: Idle},
			// The idle reminder is an "other" event to the truth table: it
			// must not hide the finished turn, nor wake it.
			{hook: `Notification {` + sid + `,"notification_type":"idle_prompt"}`, wait: time.Hour, want: Idle},
			{hook: `Notification {` + sid + `,"notification_type":"auth_success"}`, wait: sec, want: Idle},
		},
		"a turn cancelled with Esc (no Stop) ends with the idle reminder": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: time.Minute, want: Working},
			{hook: `Notification {` + sid + `,"notification_type":"idle_prompt"}`, wait: StaleAfter, want: Idle},
		},
		"the idle reminder while a permission prompt is open keeps it open": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{hook: `Notification {` + sid + `,"notification_type":"permission_prompt"}`, wait: time.Minute, want: NeedsInput},
			{hook: `Notification {` + sid + `,"notification_type":"idle_prompt"}`, wait: time.Hour, want: NeedsInput},
			{hook: `PostToolUse {` + sid + `}`, wait: sec, want: Working},
		},
		"needs input, then the user answers": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{hook: `Notification {` + sid + `,"notification_type":"permission_prompt"}`, wait: time.Hour, want: NeedsInput},
			{hook: `PostToolUse {` + sid + `}`, wait: sec, want: Working},
			{hook: `Notification {` + sid + `,"notification_type":"elicitation_dialog"}`, wait: sec, want: NeedsInput},
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
		},
		"a turn that fails": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{hook: `StopFailure {` + sid + `,"error":"rate_limit"}`, wait: time.Hour, want: FailedTurn},
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{hook: `Stop {` + sid + `}`, wait: sec, want: Idle},
		},
		"subagents never change the parent": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{hook: `Stop {` + sid + `,"agent_id":"sub-1"}`, wait: sec, want: Working},
			{hook: `Notification {` + sid + `,"agent_id":"sub-1","notification_type":"permission_prompt"}`, wait: sec, want: Working},
			{hook: `StopFailure {` + sid + `,"agent_id":"sub-1"}`, wait: sec, want: Working},
			{hook: `Stop {` + sid + `}`, wait: sec, want: Idle},
			{hook: `UserPromptSubmit {` + sid + `,"agent_id":"sub-1"}`, wait: sec, want: Idle},
		},
		"a subagent's own events never change the parent": {
			// SubagentStop / SubagentStart are not installed; were a user to
			// install them, they still say nothing about the parent's turn.
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{hook: `SubagentStop {` + sid + `,"agent_id":"sub-1","agent_type":"general-purpose"}`, wait: sec, want: Working},
			{hook: `SubagentStop {` + sid + `}`, wait: sec, want: Working},
			{hook: `codex:SubagentStop {` + sid + `}`, wait: sec, want: Working},
			{hook: `codex:PermissionRequest {` + sid + `,"agent_id":"sub-1","tool_name":"Bash"}`, wait: sec, want: Working},
			{hook: `Stop {` + sid + `}`, wait: sec, want: Idle},
			{hook: `SubagentStop {` + sid + `}`, wait: sec, want: Idle},
		},
		"a long silence": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: StaleAfter - sec, want: Working},
			{wait: sec, want: Working, stale: true},
			{hook: `PostToolUse {` + sid + `}`, wait: sec, want: Working}, // activity again: no longer stale
			{wait: StaleAfter, want: Working, stale: true},
		},
		"a silence while waiting for the user is not stale": {
			{hook: `Notification {` + sid + `,"notification_type":"permission_prompt"}`, wait: 3 * StaleAfter, want: NeedsInput},
		},
		"the process dies mid-turn": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{observe: "dead", want: Interrupted}, // before the host has recorded it
			{observe: bindings.KindTerminalExit, wait: sec, want: Interrupted},
			// Stragglers after the end change nothing.
			{hook: `PostToolUse {` + sid + `}`, wait: sec, want: Interrupted},
			{hook: `Stop {` + sid + `}`, wait: sec, want: Interrupted},
		},
		"killed: the wrapper reports a signal": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{observe: bindings.KindProcessExit + ":137", wait: sec, want: Interrupted, detail: "exit status 137"},
		},
		"the agent exits on its own with an error": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{observe: bindings.KindProcessExit + ":1", wait: sec, want: Exited, detail: "exit status 1"},
		},
		"a goodbye": {
			{hook: `Stop {` + sid + `}`, wait: sec, want: Idle},
			{hook: `SessionEnd {` + sid + `,"reason":"prompt_input_exit"}`, wait: sec, want: Exited},
			{observe: bindings.KindProcessExit + ":0", wait: sec, want: Exited},
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Exited}, // a straggler
		},
		"the pane closed": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{observe: bindings.KindDispose, wait: sec, want: Exited},
		},
		"a new session after the window starts fresh": {
			{hook: `UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{observe: bindings.KindProcessExit + ":0", wait: bindings.Window + sec, want: Exited},
			// A later agent in the same terminal (the wrapper's shell): the
			// old session's "working" must not carry over.
			{hook: `SessionStart {"session_id":"s-2","source":"startup"}`, wait: sec, want: Idle},
		},
		"gemini": {
			{hook: `gemini:BeforeAgent {` + sid + `}`, wait: sec, want: Working},
			{hook: `gemini:Notification {` + sid + `,"notification_type":"ToolPermission"}`, wait: sec, want: NeedsInput},
			{hook: `gemini:AfterTool {` + sid + `}`, wait: sec, want: Working},
			{hook: `gemini:AfterAgent {` + sid + `}`, wait: sec, want: Idle},
		},
		// As the real Codex 0.169 ran them in the conformance suite.
		"codex: an approval": {
			{hook: `codex:UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{hook: `codex:PermissionRequest {` + sid + `,"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"touch x"}}`, wait: time.Hour, want: NeedsInput},
			{hook: `codex:PostToolUse {` + sid + `,"hook_event_name":"PostToolUse","tool_name":"Bash"}`, wait: sec, want: Working},
			{hook: `codex:Stop {` + sid + `,"hook_event_name":"Stop"}`, wait: sec, want: Idle},
		},
		"codex notify": {
			{hook: `codex:UserPromptSubmit {` + sid + `}`, wait: sec, want: Working},
			{hook: `codex:agent-turn-complete {"type":"agent-turn-complete","thread-id":"s-1"}`, wait: sec, want: Idle},
		},
	}
	for name, steps := range scenarios {
		t.Run(name, func(t *testing.T) {
			start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			in := launch
			in.At = start
			b, _, _ := bindings.Decide(nil, in)
			w := &world{t: t, b: &b, running: true, now: start}
			for i, s := range steps {
				w.apply(s)
				got := w.state()
				if got.State != s.want || got.Stale != s.stale {
					t.Fatalf("row %d (%s%s): %s stale=%v (%s), want %s stale=%v", i, s.hook, s.observe, got.State, got.Stale, got.Detail, s.want, s.stale)
				}
				if !strings.Contains(got.Detail, s.detail) {
					t.Fatalf("row %d: detail %q, want it to say %q", i, got.Detail, s.detail)
				}
				if got.Stale && (got.QuietFor < StaleAfter || !strings.Contains(got.Detail, "no activity for")) {
					t.Fatalf("row %d: stale with quietFor %v, detail %q", i, got.QuietFor, got.Detail)
				}
			}
		})
	}
}

// Working never outlives the process, whatever the last activity says.
func TestDeriveDeadProcessIsNeverLive(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	b := bindings.Binding{AgentID: "claude", StartedAt: now.Add(-time.Minute), LastEventAt: now}
	for _, a := range []string{"", payload.ActivityStart, payload.ActivityPrompt, payload.ActivityTool, payload.ActivityNeedsInput, payload.ActivityStop, payload.ActivityFailed} {
		if got := Derive(Input{Binding: b, Activity: a, ActivityAt: now, Running: false, Now: now}); got.State != Interrupted {
			t.Errorf("activity %q with the process gone: %s, want %s", a, got.State, Interrupted)
		}
	}
}
