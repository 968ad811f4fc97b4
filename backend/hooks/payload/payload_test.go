package payload

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// Payloads shaped like the ones in ../shared/AGENTS.md and the vendors' docs.
func TestParseAgents(t *testing.T) {
	const (
		uuid   = "0f8e4c1a-6b7d-4e2a-9c3b-5a1d2e3f4a5b"
		uuidv7 = "01976f1e-5c3a-7d2b-8e4f-0a1b2c3d4e5f"
	)
	type want struct {
		name, kind, id, source, reason, cwd, transcript string
		prompted, subagent                              bool
	}
	cases := []struct {
		agent, event string
		stdin        string
		args         []string
		want         want
	}{
		{"claude", "SessionStart",
			`{"session_id":"` + uuid + `","transcript_path":"/home/u/.claude/projects/-work-app/` + uuid + `.jsonl","cwd":"/work/app","hook_event_name":"SessionStart","source":"startup"}`, nil,
			want{name: "SessionStart", kind: KindSessionStart, id: uuid, source: "startup", cwd: "/work/app", transcript: "/home/u/.claude/projects/-work-app/" + uuid + ".jsonl"}},
		{"claude", "UserPromptSubmit",
			`{"session_id":"` + uuid + `","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"fix the \"bug\" ✓"}`, nil,
			want{name: "UserPromptSubmit", kind: KindPrompt, id: uuid, cwd: "/w", prompted: true}},
		{"claude", "Stop", `{"session_id":"` + uuid + `","hook_event_name":"Stop","stop_hook_active":false}`, nil,
			want{name: "Stop", kind: KindStop, id: uuid, prompted: true}},
		{"claude", "StopFailure", `{"session_id":"` + uuid + `","hook_event_name":"StopFailure","error":"server_error"}`, nil,
			want{name: "StopFailure", kind: KindStop, id: uuid, prompted: true}},
		{"claude", "SessionEnd", `{"session_id":"` + uuid + `","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`, nil,
			want{name: "SessionEnd", kind: KindSessionEnd, id: uuid, reason: "prompt_input_exit"}},
		{"claude", "Stop", `{"session_id":"` + uuid + `","agent_id":"a-1","agent_type":"Explore","hook_event_name":"Stop"}`, nil,
			want{name: "Stop", kind: KindStop, id: uuid, prompted: true, subagent: true}},
		{"claude", "SessionStart", `{"session_id":"` + uuid + `","agent_type":"reviewer","source":"clear"}`, nil,
			want{name: "SessionStart", kind: KindSessionStart, id: uuid, source: "clear"}},
		{"claude", "PreToolUse", `{"session_id":"` + uuid + `","tool_name":"Bash","tool_input":{"command":"ls"}}`, nil,
			want{name: "PreToolUse", kind: KindOther, id: uuid}},

		{"codex", "SessionStart", `{"session_id":"` + uuidv7 + `","cwd":"/w","hook_event_name":"SessionStart","source":"resume","model":"gpt-5"}`, nil,
			want{name: "SessionStart", kind: KindSessionStart, id: uuidv7, source: "resume", cwd: "/w"}},
		{"codex", "SessionEnd", `{"session_id":"` + uuidv7 + `","hook_event_name":"SessionEnd","reason":"other"}`, nil,
			want{name: "SessionEnd", kind: KindSessionEnd, id: uuidv7, reason: "other"}},
		{"codex", "notify", "", []string{`{"type":"agent-turn-complete","thread-id":"` + uuidv7 + `","turn-id":"12","cwd":"/w","input-messages":["hi"],"last-assistant-message":"done"}`},
			want{name: "agent-turn-complete", kind: KindStop, id: uuidv7, cwd: "/w", prompted: true}},
		{"codex", "agent-turn-complete", "ignored", []string{`{"type":"agent-turn-complete","thread-id":"` + uuidv7 + `"}`},
			want{name: "agent-turn-complete", kind: KindStop, id: uuidv7, prompted: true}},
		{"codex", "notify", "", []string{`{"type":"approval-requested","thread-id":"` + uuidv7 + `"}`},
			want{name: "approval-requested", kind: KindOther, id: uuidv7}},

		{"gemini", "SessionStart", `{"session_id":"g-1","transcript_path":"/t.json","cwd":"/w","hook_event_name":"SessionStart","timestamp":"2026-11-02T10:00:00Z","source":"startup"}`, nil,
			want{name: "SessionStart", kind: KindSessionStart, id: "g-1", source: "startup", cwd: "/w", transcript: "/t.json"}},
		{"gemini", "SessionStart", `{"session_id":"g-1","trigger":"resume"}`, nil,
			want{name: "SessionStart", kind: KindSessionStart, id: "g-1", source: "resume"}},
		{"gemini", "BeforeAgent", `{"session_id":"g-1","prompt":"hi"}`, nil,
			want{name: "BeforeAgent", kind: KindPrompt, id: "g-1", prompted: true}},
		{"gemini", "AfterAgent", `{"session_id":"g-1","prompt_response":"ok"}`, nil,
			want{name: "AfterAgent", kind: KindStop, id: "g-1", prompted: true}},
		{"gemini", "SessionEnd", `{"session_id":"g-1","reason":"exit"}`, nil,
			want{name: "SessionEnd", kind: KindSessionEnd, id: "g-1", reason: "exit"}},

		{"copilot", "sessionStart", `{"sessionId":"` + uuid + `","timestamp":1704614400000,"cwd":"/w","source":"new","initialPrompt":"x"}`, nil,
			want{name: "sessionStart", kind: KindSessionStart, id: uuid, source: "new", cwd: "/w"}},
		{"copilot", "userPromptSubmitted", `{"sessionId":"` + uuid + `","timestamp":1,"cwd":"/w","prompt":"go"}`, nil,
			want{name: "userPromptSubmitted", kind: KindPrompt, id: uuid, cwd: "/w", prompted: true}},
		{"copilot", "agentStop", `{"sessionId":"` + uuid + `","transcriptPath":"/t.jsonl","stopReason":"end_turn"}`, nil,
			want{name: "agentStop", kind: KindStop, id: uuid, transcript: "/t.jsonl", prompted: true}},
		{"copilot", "sessionEnd", `{"sessionId":"` + uuid + `","reason":"complete"}`, nil,
			want{name: "sessionEnd", kind: KindSessionEnd, id: uuid, reason: "complete"}},
		{"copilot", "SessionStart", `{"session_id":"` + uuid + `","source":"resume"}`, nil,
			want{name: "SessionStart", kind: KindSessionStart, id: uuid, source: "resume"}},

		{"cursor-agent", "sessionStart", `{"conversation_id":"c-9","generation_id":"g","session_id":"other","hook_event_name":"sessionStart","workspace_roots":["/w"]}`, nil,
			want{name: "sessionStart", kind: KindSessionStart, id: "c-9"}},
		{"cursor-agent", "beforeSubmitPrompt", `{"conversation_id":"c-9","prompt":"p"}`, nil,
			want{name: "beforeSubmitPrompt", kind: KindPrompt, id: "c-9", prompted: true}},
		{"cursor-agent", "stop", `{"conversation_id":"c-9","status":"completed"}`, nil,
			want{name: "stop", kind: KindStop, id: "c-9", prompted: true}},
		{"cursor-agent", "sessionEnd", `{"conversation_id":"c-9","reason":"user_close"}`, nil,
			want{name: "sessionEnd", kind: KindSessionEnd, id: "c-9", reason: "user_close"}},

		{"droid", "SessionStart", `{"session_id":"d-1","source":"resume","cwd":"/w"}`, nil,
			want{name: "SessionStart", kind: KindSessionStart, id: "d-1", source: "resume", cwd: "/w"}},
		{"kimi", "UserPromptSubmit", `{"hook_event_name":"UserPromptSubmit","session_id":"session_abc","cwd":"/w","prompt":"hi"}`, nil,
			want{name: "UserPromptSubmit", kind: KindPrompt, id: "session_abc", cwd: "/w", prompted: true}},
		{"mastracode", "SessionStart", `{"resourceId":"res-1","hook_event_name":"SessionStart"}`, nil,
			want{name: "SessionStart", kind: KindSessionStart, id: "res-1"}},
		{"mastracode", "Stop", `{"session_id":"thr-1","resourceId":"res-1","run_id":"r"}`, nil,
			want{name: "Stop", kind: KindStop, id: "thr-1", prompted: true}},
		{"grok", "sessionStart", `{"sessionId":"` + uuid + `","cwd":"/w"}`, nil,
			want{name: "sessionStart", kind: KindSessionStart, id: uuid, cwd: "/w"}},
		{"vibe", "Stop", `{"session_id":"v-1"}`, nil,
			want{name: "Stop", kind: KindStop, id: "v-1", prompted: true}},

		// No payload: the caller falls back to the environment.
		{"claude", "SessionStart", "", nil, want{name: "SessionStart", kind: KindSessionStart}},
		{"gemini", "BeforeAgent", " \n", nil, want{name: "BeforeAgent", kind: KindPrompt, prompted: true}},
		// Names are matched exactly, per agent.
		{"claude", "sessionStart", `{}`, nil, want{name: "sessionStart", kind: KindOther}},
		{"cursor-agent", "SessionStart", `{}`, nil, want{name: "SessionStart", kind: KindOther}},
		{"amp", "session.start", `{"sessionId":"T-1"}`, nil, want{name: "session.start", kind: KindOther, id: "T-1"}},
		// Surrounding space is trimmed; unknown fields and null are ignored.
		{"claude", "Stop", `{"session_id":"  abc \t","extra":{"deep":[1,2,{"x":null}]},"cwd":null}`, nil,
			want{name: "Stop", kind: KindStop, id: "abc", prompted: true}},
		{"claude", "Stop", `{"session_id":null,"sessionId":"fallback"}`, nil,
			want{name: "Stop", kind: KindStop, id: "fallback", prompted: true}},
		{"claude", "Stop", `{"session_id":"caf\u00e9-\ud83d\ude00"}`, nil,
			want{name: "Stop", kind: KindStop, id: "café-😀", prompted: true}},
	}
	for _, tc := range cases {
		t.Run(tc.agent+"/"+tc.event, func(t *testing.T) {
			ev, err := Parse(tc.agent, tc.event, []byte(tc.stdin), tc.args)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := want{ev.Name, ev.Kind, ev.SessionID, ev.Source, ev.Reason, ev.Cwd, ev.Transcript, ev.Prompted, ev.Subagent}
			if got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
			if ev.Agent != tc.agent || ev.ExitStatus != nil {
				t.Fatalf("agent %q exit %v", ev.Agent, ev.ExitStatus)
			}
		})
	}
}

func TestParseProcessExit(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--status", "0"}, 0},
		{[]string{"--status", "129"}, 129},
		{[]string{"--status=137"}, 137},
		{[]string{"--verbose", "--status", "1"}, 1},
	} {
		ev, err := Parse("codex", ProcessExit, []byte("not json, not read"), tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if ev.Kind != KindProcessExit || ev.ExitStatus == nil || *ev.ExitStatus != tc.want || ev.Prompted || ev.SessionID != "" {
			t.Fatalf("%v: got %+v", tc.args, ev)
		}
	}
	for _, args := range [][]string{nil, {"--status"}, {"--status", "x"}, {"--status", "-1"}, {"--status", "256"}, {"--status=99999999999999999999"}} {
		if _, err := Parse("codex", ProcessExit, nil, args); !errors.Is(err, ErrInvalid) {
			t.Fatalf("%q: got %v, want ErrInvalid", args, err)
		}
	}
}

func TestParseHostile(t *testing.T) {
	cases := []struct {
		name         string
		agent, event string
		stdin        string
		args         []string
		mention      string // the error names this
	}{
		{"oversize", "claude", "Stop", `{"session_id":"a","pad":"` + strings.Repeat("x", MaxPayload) + `"}`, nil, "limit"},
		{"oversize arg", "codex", "notify", "", []string{`{"pad":"` + strings.Repeat("x", MaxPayload) + `"}`}, "limit"},
		{"invalid json", "claude", "Stop", `{"session_id":"a"`, nil, "json"},
		{"trailing garbage", "claude", "Stop", `{"session_id":"a"} {}`, nil, "json"},
		{"array", "claude", "Stop", `[{"session_id":"a"}]`, nil, "object"},
		{"string", "claude", "Stop", `"a"`, nil, "object"},
		{"number", "claude", "Stop", `42`, nil, "object"},
		{"null", "claude", "Stop", `null`, nil, "object"},
		{"arg not object", "codex", "notify", "", []string{`[1,2]`}, "object"},
		{"id number", "claude", "Stop", `{"session_id":12345}`, nil, "session_id"},
		{"id object", "claude", "Stop", `{"session_id":{"id":"a"}}`, nil, "session_id"},
		{"id array", "copilot", "sessionStart", `{"sessionId":["a"]}`, nil, "sessionId"},
		{"id bool", "cursor-agent", "stop", `{"conversation_id":true}`, nil, "conversation_id"},
		{"id empty", "claude", "Stop", `{"session_id":""}`, nil, "session_id"},
		{"id blank", "claude", "Stop", `{"session_id":" \t "}`, nil, "session_id"},
		{"id newline", "claude", "Stop", `{"session_id":"abc\ndef"}`, nil, "session_id"},
		{"id nul", "claude", "Stop", `{"session_id":"abc\u0000"}`, nil, "session_id"},
		{"id esc", "claude", "Stop", `{"session_id":"abc\u001b[2J"}`, nil, "session_id"},
		{"id del", "claude", "Stop", "{\"session_id\":\"abc\x7f\"}", nil, "session_id"},
		{"id c1", "claude", "Stop", `{"session_id":"abc\u0085x"}`, nil, "session_id"},
		{"id bidi override", "claude", "Stop", `{"session_id":"abc\u202edef"}`, nil, "session_id"},
		{"id invalid utf-8", "claude", "Stop", "{\"session_id\":\"abc\xff\xfe\"}", nil, "session_id"},
		{"id lone surrogate", "claude", "Stop", `{"session_id":"abc\ud800"}`, nil, "session_id"},
		{"id lone low surrogate", "claude", "Stop", `{"session_id":"\udc00abc"}`, nil, "session_id"},
		{"id too long", "claude", "Stop", `{"session_id":"` + strings.Repeat("a", MaxSessionIDLen+1) + `"}`, nil, "session_id"},
		{"thread-id number", "codex", "notify", "", []string{`{"type":"agent-turn-complete","thread-id":7}`}, "thread-id"},
		{"type number", "codex", "notify", "", []string{`{"type":1}`}, "type"},
		{"type with space", "codex", "notify", "", []string{`{"type":"rm -rf"}`}, "type"},
		{"resourceId object", "mastracode", "SessionStart", `{"resourceId":{}}`, nil, "resourceId"},
		{"source number", "claude", "SessionStart", `{"session_id":"a","source":1}`, nil, "source"},
		{"reason control", "claude", "SessionEnd", `{"session_id":"a","reason":"x\ny"}`, nil, "reason"},
		{"cwd object", "claude", "Stop", `{"session_id":"a","cwd":{}}`, nil, "cwd"},
		{"transcript too long", "claude", "Stop", `{"session_id":"a","transcript_path":"/` + strings.Repeat("a", maxPath) + `"}`, nil, "transcript_path"},
		{"deep nesting", "claude", "Stop", `{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, nil, "json"},
		{"agent id that no agent can have", "../x", "Stop", `{}`, nil, "unknown agent"},
		{"agent id with upper case", "Claude", "Stop", `{}`, nil, "unknown agent"},
		{"empty event", "claude", "", `{}`, nil, "event"},
		{"event with space", "claude", "Session Start", `{}`, nil, "event"},
		{"event with quote", "claude", "Stop'", `{}`, nil, "event"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := Parse(tc.agent, tc.event, []byte(tc.stdin), tc.args)
			if err == nil {
				t.Fatalf("accepted: %+v", ev)
			}
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnknownAgent) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.mention) {
				t.Fatalf("error %q does not mention %q", msg, tc.mention)
			}
			if first, _ := utf8.DecodeRuneInString(msg); first >= 'A' && first <= 'Z' {
				t.Fatalf("error %q is capitalised", msg)
			}
		})
	}
}

func TestValidSessionID(t *testing.T) {
	good := []string{"a", "0f8e4c1a-6b7d-4e2a-9c3b-5a1d2e3f4a5b", "T-0f8e4c1a", "ses_01JX", "with inner space", "café", strings.Repeat("x", MaxSessionIDLen)}
	bad := []string{"", " a", "a ", "a\tb", "a\x00", "\u200b", "a\u2028b", "\xff", strings.Repeat("x", MaxSessionIDLen+1)}
	for _, id := range good {
		if err := ValidSessionID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range bad {
		if err := ValidSessionID(id); err == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestKindTableCoversEveryAgent(t *testing.T) {
	for _, a := range Agents() {
		if _, ok := kinds[a]; !ok {
			t.Errorf("agent %q has no kind table", a)
		}
	}
	if len(kinds) != len(Agents()) {
		t.Errorf("kinds has %d agents, Agents() %d", len(kinds), len(Agents()))
	}
}

// FuzzParse: never panics; whatever it accepts is within the rules. The seed
// corpus lives in testdata/fuzz/FuzzParse and runs with every `go test`.
func FuzzParse(f *testing.F) {
	f.Add("claude", "SessionStart", []byte(`{"session_id":"abc","source":"startup","cwd":"/w"}`), "")
	f.Add("codex", "notify", []byte(nil), `{"type":"agent-turn-complete","thread-id":"t"}`)
	f.Add("copilot", "sessionStart", []byte(`{"sessionId":"\ud83d\ude00"}`), "")
	f.Add("cursor-agent", "stop", []byte(`{"conversation_id":"\ud800x"}`), "")
	f.Add("codex", ProcessExit, []byte(nil), "--status=3")
	f.Fuzz(func(t *testing.T, agent, event string, stdin []byte, lastArg string) {
		var args []string
		if lastArg != "" {
			args = []string{lastArg}
		}
		ev, err := Parse(agent, event, stdin, args)
		if err != nil {
			if ev != (Event{}) {
				t.Fatalf("error %v with a non-zero event %+v", err, ev)
			}
			return
		}
		if ev.SessionID != "" {
			if err := ValidSessionID(ev.SessionID); err != nil {
				t.Fatalf("accepted session id %q: %v", ev.SessionID, err)
			}
		}
		switch ev.Kind {
		case KindSessionStart, KindPrompt, KindStop, KindSessionEnd, KindOther:
			if ev.ExitStatus != nil {
				t.Fatalf("exit status on %s", ev.Kind)
			}
		case KindProcessExit:
			if ev.ExitStatus == nil || *ev.ExitStatus < 0 || *ev.ExitStatus > 255 {
				t.Fatalf("process-exit without a valid status: %+v", ev)
			}
		default:
			t.Fatalf("unknown kind %q", ev.Kind)
		}
		if ev.Prompted != (ev.Kind == KindPrompt || ev.Kind == KindStop) {
			t.Fatalf("prompted %v for kind %s", ev.Prompted, ev.Kind)
		}
		for _, s := range []string{ev.Source, ev.Reason, ev.Cwd, ev.Transcript, ev.Name} {
			if !utf8.ValidString(s) || strings.ContainsAny(s, "\x00\n\r") {
				t.Fatalf("accepted field %q", s)
			}
		}
	})
}

// A user's own agent (any valid catalog id) is accepted: its launch wrapper
// reports process-exit, and its hooks are read in Claude's vocabulary.
func TestParseCustomAgent(t *testing.T) {
	ev, err := Parse("my-agent", ProcessExit, nil, []string{"--status", "3"})
	if err != nil || ev.Kind != KindProcessExit || ev.ExitStatus == nil || *ev.ExitStatus != 3 {
		t.Fatalf("process-exit: %+v %v", ev, err)
	}
	ev, err = Parse("my-agent", "SessionStart", []byte(`{"session_id":"s1","source":"resume"}`), nil)
	if err != nil || ev.Kind != KindSessionStart || ev.SessionID != "s1" {
		t.Fatalf("session start: %+v %v", ev, err)
	}
}

// The attention state reads Activity: which events say a turn runs, waits
// on the user, finished or failed.
func TestParseActivity(t *testing.T) {
	const id = `"session_id":"s-1"`
	cases := []struct {
		agent, event, stdin string
		args                []string
		kind, activity      string
		notification        string
	}{
		{"claude", "SessionStart", `{` + id + `,"source":"startup"}`, nil, KindSessionStart, ActivityStart, ""},
		{"claude", "SessionStart", `{` + id + `,"source":"compact"}`, nil, KindSessionStart, "", ""},
		{"claude", "UserPromptSubmit", `{` + id + `,"prompt":"hi"}`, nil, KindPrompt, ActivityPrompt, ""},
		{"claude", "PreToolUse", `{` + id + `,"tool_name":"Bash"}`, nil, KindOther, ActivityTool, ""},
		{"claude", "PostToolUse", `{` + id + `,"tool_name":"Bash"}`, nil, KindOther, ActivityTool, ""},
		{"claude", "Notification", `{` + id + `,"notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`, nil, KindOther, ActivityNeedsInput, "permission_prompt"},
		{"claude", "Notification", `{` + id + `,"notification_type":"elicitation_dialog"}`, nil, KindOther, ActivityNeedsInput, "elicitation_dialog"},
		{"claude", "Notification", `{` + id + `,"notification_type":"idle_prompt"}`, nil, KindOther, ActivityWaiting, "idle_prompt"},
		{"claude", "Notification", `{` + id + `,"notification_type":"auth_success"}`, nil, KindOther, "", "auth_success"},
		{"claude", "Notification", `{` + id + `}`, nil, KindOther, "", ""},
		{"claude", "Stop", `{` + id + `}`, nil, KindStop, ActivityStop, ""},
		{"claude", "StopFailure", `{` + id + `,"error":"rate_limit"}`, nil, KindStop, ActivityFailed, ""},
		{"claude", "SessionEnd", `{` + id + `,"reason":"other"}`, nil, KindSessionEnd, "", ""},
		{"claude", "Stop", "", nil, KindStop, ActivityStop, ""}, // no payload at all
		{"codex", "notify", "", []string{`{"type":"agent-turn-complete","thread-id":"t-1"}`}, KindStop, ActivityStop, ""},
		// Codex 0.169, as observed: an approval prompt opens.
		{"codex", "PermissionRequest", `{` + id + `,"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"touch shell-9678.txt","description":"Create the file"},"permission_mode":"default","turn_id":"t"}`, nil, KindOther, ActivityNeedsInput, ""},
		{"codex", "PostToolUse", `{` + id + `,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"touch shell-9678.txt"},"tool_response":""}`, nil, KindOther, ActivityTool, ""},
		{"codex", "SubagentStop", `{` + id + `}`, nil, KindOther, "", ""},
		{"claude", "SubagentStop", `{` + id + `,"agent_id":"a-1"}`, nil, KindOther, "", ""},
		{"gemini", "BeforeAgent", `{` + id + `}`, nil, KindPrompt, ActivityPrompt, ""},
		{"gemini", "AfterTool", `{` + id + `}`, nil, KindOther, ActivityTool, ""},
		{"gemini", "Notification", `{` + id + `,"notification_type":"ToolPermission"}`, nil, KindOther, ActivityNeedsInput, "ToolPermission"},
		// Gemini 0.61, as observed.
		{"gemini", "Notification", `{` + id + `,"hook_event_name":"Notification","message":"Tool Confirm Shell Command requires execution","notification_type":"ToolPermission","details":{"type":"exec","command":"touch x"}}`, nil, KindOther, ActivityNeedsInput, "ToolPermission"},
		{"gemini", "AfterAgent", `{` + id + `}`, nil, KindStop, ActivityStop, ""},
	}
	for _, c := range cases {
		ev, err := Parse(c.agent, c.event, []byte(c.stdin), c.args)
		if err != nil {
			t.Errorf("%s %s: %v", c.agent, c.event, err)
			continue
		}
		if ev.Kind != c.kind || ev.Activity != c.activity || ev.NotificationType != c.notification {
			t.Errorf("%s %s %s: kind %q activity %q type %q, want %q %q %q", c.agent, c.event, c.stdin,
				ev.Kind, ev.Activity, ev.NotificationType, c.kind, c.activity, c.notification)
		}
	}
	// A notification_type that is not a string is refused like any other field.
	if _, err := Parse("claude", "Notification", []byte(`{"notification_type":7}`), nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("numeric notification_type: %v, want ErrInvalid", err)
	}
}

// A prompt event keeps the prompt's text, folded to one line and bounded,
// for Sessions to name the conversation; other events keep none.
func TestParsePromptText(t *testing.T) {
	long := strings.Repeat("é", MaxPromptText) // 2 bytes each
	for _, tc := range []struct {
		name, event, body, want string
	}{
		{"claude", "UserPromptSubmit", `{"session_id":"s1","prompt":"fix the\n\tlogin  bug\u0007 please"}`, "fix the login bug please"},
		{"leading space", "UserPromptSubmit", `{"session_id":"s1","prompt":"  \n hi"}`, "hi"},
		{"no prompt field", "UserPromptSubmit", `{"session_id":"s1"}`, ""},
		{"not a prompt event", "Stop", `{"session_id":"s1","prompt":"x"}`, ""},
		{"bounded at a rune", "UserPromptSubmit", `{"session_id":"s1","prompt":"` + long + `"}`, strings.Repeat("é", (MaxPromptText-len("…"))/2) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := Parse("claude", tc.event, []byte(tc.body), nil)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Prompt != tc.want {
				t.Errorf("Prompt = %q, want %q", ev.Prompt, tc.want)
			}
			if len(ev.Prompt) > MaxPromptText || !utf8.ValidString(ev.Prompt) {
				t.Errorf("Prompt is %d bytes (limit %d), valid utf-8 %v", len(ev.Prompt), MaxPromptText, utf8.ValidString(ev.Prompt))
			}
		})
	}
	if _, err := Parse("claude", "UserPromptSubmit", []byte(`{"session_id":"s1","prompt":"\ud800"}`), nil); err == nil {
		t.Error("a lone surrogate in the prompt was accepted")
	}
}

// A prompt event carries the whole prompt, which may be MBs of pasted
// text: it is taken up to MaxPromptPayload; every other event keeps the
// 1 MiB bound.
func TestParseHugePrompt(t *testing.T) {
	big := `{"session_id":"a","prompt":"` + strings.Repeat("x", 3<<20) + `"}`
	ev, err := Parse("claude", "UserPromptSubmit", []byte(big), nil)
	if err != nil || ev.SessionID != "a" || !ev.Prompted || len(ev.Prompt) > MaxPromptText {
		t.Fatalf("a 3 MiB prompt: %+v (prompt %d bytes), %v", ev.SessionID, len(ev.Prompt), err)
	}
	if _, err := Parse("gemini", "BeforeAgent", []byte(big), nil); err != nil {
		t.Fatalf("gemini's prompt event: %v", err)
	}
	if _, err := Parse("claude", "Stop", []byte(big), nil); err == nil {
		t.Fatal("a 3 MiB Stop payload was taken")
	}
	over := `{"session_id":"a","prompt":"` + strings.Repeat("x", MaxPromptPayload) + `"}`
	if _, err := Parse("claude", "UserPromptSubmit", []byte(over), nil); err == nil {
		t.Fatal("a prompt payload over MaxPromptPayload was taken")
	}
}
