// Package payload parses what a coding agent's hook hands to
// `reprise hook <agent> <event> [args…]`: the JSON payload on stdin (or, for
// Codex notify, in the last argument) and the event name as configured. The
// result is an Event normalised across agents.
//
// The input comes from outside the app (another program's hook), so Parse
// refuses anything malformed with an error and never panics. Reading the
// environment (REPRISE_TERMINAL_ID, CLAUDE_CODE_SESSION_ID, …) is the caller's
// job.
package payload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kinds of events Reprise cares about, normalised across agents.
const (
	KindSessionStart = "session-start"
	KindPrompt       = "prompt"
	KindStop         = "stop"
	KindSessionEnd   = "session-end"
	KindProcessExit  = "process-exit"
	KindOther        = "other"
)

// Activities: what an event says about the agent's turn, for its attention
// state (backend/attention). Independent of Kind, which feeds the bindings
// truth table: a PreToolUse or a Notification is KindOther there, but says
// "working" or "needs input" here. "" means the event says nothing about
// the turn (an idle reminder, a SessionEnd, a compaction).
const (
	ActivityStart      = "start"       // a session started; no prompt yet
	ActivityPrompt     = "prompt"      // a prompt was submitted: a turn runs
	ActivityTool       = "tool"        // a tool is about to run or just ran: a turn runs
	ActivityNeedsInput = "needs-input" // a permission or question prompt is open
	ActivityStop       = "stop"        // the turn finished
	ActivityFailed     = "failed"      // the turn failed (API error, quota)
	// ActivityWaiting: the agent has waited for the user for a while
	// (Claude's idle_prompt, ~60 s after a turn). Not a state of its own:
	// attention.Next makes it idle unless a permission prompt is open.
	ActivityWaiting = "waiting"
)

// activityNames maps agent event names whose activity their Kind does not
// tell (tools, notifications, failures). Claude's names are the default for
// every agent that shares its vocabulary.
var activityNames = map[string]string{
	"PreToolUse":         ActivityTool,
	"PostToolUse":        ActivityTool,
	"PostToolUseFailure": ActivityTool,
	"BeforeTool":         ActivityTool, // Gemini
	"AfterTool":          ActivityTool, // Gemini
	"preToolUse":         ActivityTool, // Copilot
	"postToolUse":        ActivityTool, // Copilot
	"StopFailure":        ActivityFailed,
	// Codex (0.169) asks the user to approve a command or a patch: its
	// PermissionRequest hook runs as the approval prompt opens (Claude has
	// an event of the same name and meaning).
	"PermissionRequest": ActivityNeedsInput,
}

// needsInputTypes are Claude's Notification types that mean the agent is
// blocked on the user; auth_success and others say nothing about the turn.
var needsInputTypes = map[string]bool{"permission_prompt": true, "elicitation_dialog": true}

// activityOf returns an event's Activity.
func activityOf(ev Event) string {
	if a, ok := activityNames[ev.Name]; ok {
		return a
	}
	if ev.Name == "Notification" {
		if ev.Agent == "gemini" {
			// Gemini's Notification hook fires for tool permission requests
			// only (notification_type "ToolPermission").
			if ev.NotificationType == "" || ev.NotificationType == "ToolPermission" {
				return ActivityNeedsInput
			}
			return ""
		}
		if needsInputTypes[ev.NotificationType] {
			return ActivityNeedsInput
		}
		if ev.NotificationType == "idle_prompt" {
			return ActivityWaiting
		}
		return ""
	}
	switch ev.Kind {
	case KindSessionStart:
		if ev.Source == "compact" {
			return "" // a compaction mid-session, often mid-turn
		}
		return ActivityStart
	case KindPrompt:
		return ActivityPrompt
	case KindStop:
		return ActivityStop
	}
	return ""
}

// ProcessExit is the event name the launch wrapper uses:
// `reprise hook <agent> process-exit --status N`.
const ProcessExit = "process-exit"

// Limits on outside input.
const (
	MaxPayload = 1 << 20 // bytes of JSON
	// MaxPromptPayload bounds a prompt event's JSON instead (Limit): it
	// carries the whole prompt, and a user may paste a few MB into it.
	// Refusing it lost the only proof the session was prompted.
	MaxPromptPayload = 16 << 20
	MaxSessionIDLen  = 256 // bytes
	maxEventName     = 64
	maxToken         = 64   // source, reason
	maxPath          = 4096 // cwd, transcript
	// MaxPromptText is how much of a prompt's text an Event keeps (bytes).
	MaxPromptText = 400
)

var (
	// ErrInvalid is wrapped by every refusal of a malformed payload.
	ErrInvalid = errors.New("invalid hook payload")
	// ErrUnknownAgent means the agent id is not in the catalog.
	ErrUnknownAgent = errors.New("unknown agent")
)

// Event is one hook call, normalised.
type Event struct {
	Agent      string // catalog id
	Name       string // the agent's own event name, e.g. "SessionStart", "agent-turn-complete"
	Kind       string // one of the Kind constants
	SessionID  string // "" when the payload has none; otherwise valid per ValidSessionID
	Source     string // SessionStart source: startup|resume|clear|compact|fork
	Reason     string // SessionEnd reason
	Cwd        string
	Transcript string
	// Prompted: the event implies the user prompted this session (a prompt,
	// or the end of a turn, which only follows a prompt). Only a prompted
	// session has a transcript to resume.
	Prompted bool
	// Subagent: the payload comes from inside a subagent (agent_id present).
	// The caller drops these.
	Subagent   bool
	ExitStatus *int // KindProcessExit only
	// NotificationType is a Notification hook's notification_type
	// (permission_prompt, elicitation_dialog, idle_prompt, …).
	NotificationType string `json:",omitempty"`
	// Activity is what the event says about the turn (Activity*), "" for
	// nothing.
	Activity string `json:",omitempty"`
	// Prompt is a prompt event's text (Claude's UserPromptSubmit and the
	// agents that copy it carry it as "prompt"), whitespace and control
	// characters folded to single spaces and cut to MaxPromptText bytes: it
	// names the conversation in Sessions, it is not a transcript.
	Prompt string `json:",omitempty"`
}

// claudeLike is the PascalCase vocabulary Claude Code introduced and several
// agents copied.
var claudeLike = map[string]string{
	"SessionStart":     KindSessionStart,
	"UserPromptSubmit": KindPrompt,
	"Stop":             KindStop,
	"StopFailure":      KindStop, // the turn failed after the prompt: the transcript exists
	"SessionEnd":       KindSessionEnd,
}

// kinds maps, per agent, the event names Reprise installs (or the agent may
// send) to a Kind. Names not listed are KindOther.
var kinds = map[string]map[string]string{
	"claude": claudeLike,
	"codex": with(claudeLike, map[string]string{
		// notify, after each turn: the session was prompted.
		"agent-turn-complete": KindStop,
	}),
	"gemini": {
		"SessionStart": KindSessionStart,
		"BeforeAgent":  KindPrompt,
		"AfterAgent":   KindStop,
		"SessionEnd":   KindSessionEnd,
	},
	"copilot": {
		// camelCase names give camelCase payloads …
		"sessionStart":        KindSessionStart,
		"userPromptSubmitted": KindPrompt,
		"agentStop":           KindStop,
		"sessionEnd":          KindSessionEnd,
		// … PascalCase names give snake_case ones.
		"SessionStart":        KindSessionStart,
		"UserPromptSubmit":    KindPrompt,
		"UserPromptSubmitted": KindPrompt,
		"Stop":                KindStop,
		"SessionEnd":          KindSessionEnd,
	},
	"cursor-agent": {
		"sessionStart":       KindSessionStart,
		"beforeSubmitPrompt": KindPrompt,
		"stop":               KindStop,
		"sessionEnd":         KindSessionEnd,
	},
	"droid":      claudeLike,
	"kimi":       claudeLike,
	"mastracode": claudeLike,
	"vibe":       claudeLike,
	"grok": {
		"sessionStart":     KindSessionStart,
		"userPromptSubmit": KindPrompt,
		"stop":             KindStop,
		"sessionEnd":       KindSessionEnd,
	},
	// Plugins and extensions rather than hooks: nothing to map yet.
	"amp":      {},
	"opencode": {},
	"pi":       {},
}

func with(base, extra map[string]string) map[string]string {
	m := make(map[string]string, len(base)+len(extra))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// idKeys is where payloads carry the session id, in order of preference.
var idKeys = []string{"session_id", "sessionId", "conversation_id", "thread-id", "thread_id", "resourceId"}

// idKeysFor puts the agent's documented field first where it differs.
func idKeysFor(agent string) []string {
	switch agent {
	case "cursor-agent":
		// Cursor resumes by chat (conversation) id.
		return []string{"conversation_id", "session_id", "sessionId", "thread-id", "thread_id", "resourceId"}
	case "codex":
		// notify carries thread-id; hooks carry session_id (the same id).
		return []string{"session_id", "thread-id", "thread_id", "sessionId", "conversation_id", "resourceId"}
	}
	return idKeys
}

// Agents lists the catalog ids Parse accepts.
func Agents() []string {
	return []string{"claude", "codex", "gemini", "copilot", "cursor-agent", "droid", "kimi", "mastracode", "vibe", "grok", "amp", "opencode", "pi"}
}

// KindOf maps an agent's event name to a Kind; unknown names are KindOther.
func KindOf(agent, name string) string {
	if name == ProcessExit {
		return KindProcessExit
	}
	if k, ok := kinds[agent][name]; ok {
		return k
	}
	if _, builtin := kinds[agent]; !builtin {
		// A user's own agent: its launch wrapper reports process-exit, and
		// hooks it may run are read in Claude's vocabulary, the common one.
		if k, ok := claudeLike[name]; ok {
			return k
		}
	}
	return KindOther
}

// Limit is how many bytes of JSON Parse accepts for an agent's event.
func Limit(agent, event string) int {
	if KindOf(agent, event) == KindPrompt {
		return MaxPromptPayload
	}
	return MaxPayload
}

// customAgentID is the shape of a user-defined agent's id (as the catalog
// validates it).
var customAgentID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

// Parse reads one hook call. stdin is the hook's standard input; args are
// the arguments after `hook <agent> <event>`. When the last argument is not a
// flag it is the payload (Codex notify passes its JSON there) and stdin is
// not read. An empty payload is not an error: the Event then has no session
// id and the caller may fall back to the environment.
//
// For ProcessExit no payload is read: args must hold `--status N` (0–255).
func Parse(agent, event string, stdin []byte, args []string) (Event, error) {
	if _, ok := kinds[agent]; !ok && !customAgentID.MatchString(agent) {
		return Event{}, fmt.Errorf("%w %q", ErrUnknownAgent, agent)
	}
	if err := validName(event); err != nil {
		return Event{}, fmt.Errorf("%w: event name: %w", ErrInvalid, err)
	}
	ev := Event{Agent: agent, Name: event, Kind: KindOf(agent, event)}
	if event == ProcessExit {
		st, err := exitStatus(args)
		if err != nil {
			return Event{}, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		ev.ExitStatus = &st
		return ev, nil
	}

	data, fromArg := stdin, false
	if n := len(args); n > 0 && !strings.HasPrefix(args[n-1], "-") {
		data, fromArg = []byte(args[n-1]), true
	}
	if limit := Limit(agent, event); len(data) > limit {
		return Event{}, fmt.Errorf("%w: payload is %d bytes, over the %d limit", ErrInvalid, len(data), limit)
	}
	trimmed := bytes.TrimSpace(data) // no copy: a prompt payload may be MBs
	if len(trimmed) == 0 {
		ev.Prompted = prompted(ev.Kind)
		ev.Activity = activityOf(ev)
		return ev, nil
	}
	if trimmed[0] != '{' {
		return Event{}, fmt.Errorf("%w: payload is not a json object", ErrInvalid)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return Event{}, fmt.Errorf("%w: payload is not valid json: %w", ErrInvalid, err)
	}

	if fromArg {
		// Codex notify: the payload's type is the event that happened.
		t, ok, err := stringField(m, "type")
		if err != nil {
			return Event{}, err
		}
		if ok {
			if err := validName(t); err != nil {
				return Event{}, fmt.Errorf("%w: field %q: %w", ErrInvalid, "type", err)
			}
			ev.Name, ev.Kind = t, KindOf(agent, t)
		}
	}

	for _, key := range idKeysFor(agent) {
		s, ok, err := stringField(m, key)
		if err != nil {
			return Event{}, err
		}
		if !ok {
			continue
		}
		id := strings.TrimSpace(s)
		if err := ValidSessionID(id); err != nil {
			return Event{}, fmt.Errorf("%w: field %q: %w", ErrInvalid, key, err)
		}
		ev.SessionID = id
		break
	}

	var err error
	if ev.Source, err = textField(m, maxToken, "source"); err != nil {
		return Event{}, err
	}
	if ev.Reason, err = textField(m, maxToken, "reason"); err != nil {
		return Event{}, err
	}
	// Older Gemini releases call both "trigger".
	if ev.Kind == KindSessionStart && ev.Source == "" {
		if ev.Source, err = textField(m, maxToken, "trigger"); err != nil {
			return Event{}, err
		}
	}
	if ev.Kind == KindSessionEnd && ev.Reason == "" {
		if ev.Reason, err = textField(m, maxToken, "trigger"); err != nil {
			return Event{}, err
		}
	}
	if ev.Cwd, err = textField(m, maxPath, "cwd"); err != nil {
		return Event{}, err
	}
	if ev.Transcript, err = textField(m, maxPath, "transcript_path", "transcriptPath"); err != nil {
		return Event{}, err
	}
	if ev.NotificationType, err = textField(m, maxToken, "notification_type", "notificationType"); err != nil {
		return Event{}, err
	}
	ev.Subagent = present(m, "agent_id")
	if ev.Kind == KindPrompt {
		s, ok, err := stringField(m, "prompt")
		if err != nil {
			return Event{}, err
		}
		if ok {
			ev.Prompt = promptText(s)
		}
	}
	ev.Prompted = prompted(ev.Kind)
	ev.Activity = activityOf(ev)
	return ev, nil
}

// promptText folds runs of whitespace and control characters to one space
// and cuts the text to MaxPromptText bytes, at a rune boundary, with "…".
func promptText(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) <= MaxPromptText {
		return out
	}
	cut := MaxPromptText - len("…")
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return out[:cut] + "…"
}

func prompted(kind string) bool { return kind == KindPrompt || kind == KindStop }

// ValidSessionID reports whether id is acceptable as an agent session id:
// non-empty, at most MaxSessionIDLen bytes of valid UTF-8, printable (no
// control or format characters), no surrounding space. Accepted ids can be
// stored and passed as one argv element to the agent's resume command.
func ValidSessionID(id string) error {
	switch {
	case id == "":
		return errors.New("empty session id")
	case len(id) > MaxSessionIDLen:
		return fmt.Errorf("session id is %d bytes, over the %d limit", len(id), MaxSessionIDLen)
	case !utf8.ValidString(id):
		return errors.New("session id is not valid utf-8")
	case strings.TrimSpace(id) != id:
		return errors.New("session id has surrounding space")
	}
	for _, r := range id {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("session id has a non-printable character %U", r)
		}
	}
	return nil
}

func validName(s string) error {
	if s == "" || len(s) > maxEventName {
		return fmt.Errorf("want 1 to %d characters, got %d", maxEventName, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("character %q not allowed", c)
		}
	}
	return nil
}

func exitStatus(args []string) (int, error) {
	val, found := "", false
	for i := 0; i < len(args); i++ {
		if v, ok := strings.CutPrefix(args[i], "--status="); ok {
			val, found = v, true
		} else if args[i] == "--status" && i+1 < len(args) {
			val, found = args[i+1], true
			i++
		}
	}
	if !found {
		return 0, errors.New("process-exit needs --status N")
	}
	n, err := strconv.Atoi(val)
	if err != nil || n < 0 || n > 255 {
		return 0, fmt.Errorf("process-exit status %q is not a number from 0 to 255", val)
	}
	return n, nil
}

// present: the key is there with something other than null, "" or false.
func present(m map[string]json.RawMessage, key string) bool {
	raw, ok := m[key]
	if !ok {
		return false
	}
	switch strings.TrimSpace(string(raw)) {
	case "null", `""`, "false":
		return false
	}
	return true
}

// textField returns the first of keys that is present, checked to be a
// string of at most max bytes without control characters.
func textField(m map[string]json.RawMessage, max int, keys ...string) (string, error) {
	for _, key := range keys {
		s, ok, err := stringField(m, key)
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		if len(s) > max {
			return "", fmt.Errorf("%w: field %q is %d bytes, over the %d limit", ErrInvalid, key, len(s), max)
		}
		for _, r := range s {
			if unicode.IsControl(r) {
				return "", fmt.Errorf("%w: field %q has a control character %U", ErrInvalid, key, r)
			}
		}
		return s, nil
	}
	return "", nil
}

// stringField decodes m[key] as a JSON string. Absent or null is ok=false.
// Invalid UTF-8, raw or as an escaped lone surrogate (which encoding/json
// would silently turn into U+FFFD), is refused.
func stringField(m map[string]json.RawMessage, key string) (s string, ok bool, err error) {
	raw, found := m[key]
	if !found {
		return "", false, nil
	}
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if string(raw) == "null" {
		return "", false, nil
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", false, fmt.Errorf("%w: field %q must be a string", ErrInvalid, key)
	}
	if !utf8.Valid(raw) || hasLoneSurrogate(raw) {
		return "", false, fmt.Errorf("%w: field %q is not valid utf-8", ErrInvalid, key)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, fmt.Errorf("%w: field %q: %w", ErrInvalid, key, err)
	}
	return s, true, nil
}

// hasLoneSurrogate scans a JSON string literal for \uD800–\uDFFF escapes that
// are not a high surrogate followed by a low one.
func hasLoneSurrogate(lit []byte) bool {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(lit) || lit[i] != '\\' || lit[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(lit[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		if i+1 < len(lit) && lit[i+1] != 'u' {
			i++ // a two-byte escape such as \\ or \"
			continue
		}
		r, ok := hex4(i)
		if !ok {
			return false // malformed: json.Unmarshal reports it
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			lo, ok := hex4(i + 6)
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		default:
			i += 5
		}
	}
	return false
}
