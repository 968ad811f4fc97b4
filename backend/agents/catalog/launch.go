package catalog

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSessionIDLen bounds a session id in bytes.
const MaxSessionIDLen = 256

// MaxPromptLen bounds a prompt in bytes. A prompt travels in the agent's
// argv (stdin prompts too, inside the launch command), and argv, cwd and
// environment share the daemon's 64 KiB open frame (ptyproto.MaxHeader): a
// 100 KB prompt failed with "write open frame (…): frame too large".
const MaxPromptLen = 32 << 10

// Config is what argv building needs; the store's agent_configs rows
// (user-editable) convert to it.
type Config struct {
	ID, Label, Command string
	Args, PromptArgs   []string
	PromptTransport    string
	ResumeArgs         []string
	Env                map[string]string
	SessionIDArgs      []string
	SessionIDKind      string
}

// LaunchRequest says what to start: a new session, or an existing one by id,
// with or without a first prompt.
type LaunchRequest struct {
	Prompt          string // optional; "" = none
	ResumeSessionID string // resume this session; "" = start a new one
	PreassignID     string // used only when not resuming and the agent accepts a chosen id
}

// Launch is how to start the agent process.
type Launch struct {
	// Argv is [command, args…, (resumeArgs…, id) | (sessionIDArgs…,
	// preassigned id), promptArgs…, prompt].
	Argv []string
	// Stdin is the prompt and a newline when the prompt goes on stdin.
	Stdin []byte
	// Env is extra environment for the agent process (a copy).
	Env map[string]string
	// SessionID is the resumed or the pre-assigned id, "" if neither.
	SessionID string
}

// Errors returned by Build, ValidateSessionID and ValidateConfig, for
// errors.Is. The messages themselves name the agent.
var (
	ErrNoCommand         = errors.New("agent has no command")
	ErrResumeUnsupported = errors.New("agent cannot resume a session by id")
	ErrInvalidSessionID  = errors.New("invalid session id")
	ErrInvalidPrompt     = errors.New("invalid prompt")
	ErrInvalidConfig     = errors.New("invalid agent config")
)

// agentError carries a user-facing message and the sentinel it matches.
type agentError struct {
	msg  string
	kind error
}

func (e *agentError) Error() string { return e.msg }
func (e *agentError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &agentError{msg: fmt.Sprintf(format, args...), kind: kind}
}

// Build makes the argv (and stdin, env) that start the agent c as r asks.
//
// The config is checked with ValidateConfig first, so a hand-edited row
// cannot smuggle control characters into a launch. The session id is
// trimmed of surrounding white space and Launch.SessionID holds the trimmed
// id. A PreassignID is ignored when resuming or when the agent cannot take
// a chosen id.
//
// A prompt may hold anything but NUL (argv cannot carry it). A prompt that
// is placed positionally (no PromptArgs) must not start with "-": the agent
// would read it as an option.
func Build(c Config, r LaunchRequest) (Launch, error) {
	if strings.TrimSpace(c.Command) == "" {
		return Launch{}, errorf(ErrNoCommand, "agent %s has no command", c.ID)
	}
	if err := ValidateConfig(c); err != nil {
		return Launch{}, err
	}
	argv := append([]string{c.Command}, c.Args...)
	var id string
	switch {
	case r.ResumeSessionID != "":
		if err := ValidateSessionID(c, r.ResumeSessionID); err != nil {
			return Launch{}, err
		}
		id = strings.TrimSpace(r.ResumeSessionID)
		argv = append(argv, c.ResumeArgs...)
		argv = append(argv, id)
	case r.PreassignID != "" && len(c.SessionIDArgs) > 0:
		id = strings.TrimSpace(r.PreassignID)
		if !validSessionID(id) || (c.SessionIDKind == KindUUID && !isUUID(id)) {
			return Launch{}, errorf(ErrInvalidSessionID, "invalid session id for %s", label(c))
		}
		argv = append(argv, c.SessionIDArgs...)
		argv = append(argv, id)
	}

	if len(r.Prompt) > MaxPromptLen {
		return Launch{}, errorf(ErrInvalidPrompt, "prompt for %s is %d bytes, over the %d-byte limit", label(c), len(r.Prompt), MaxPromptLen)
	}
	if strings.IndexByte(r.Prompt, 0) >= 0 {
		return Launch{}, errorf(ErrInvalidPrompt, "prompt for %s contains a NUL byte", label(c))
	}
	if c.PromptTransport == TransportArgv && len(c.PromptArgs) == 0 && strings.HasPrefix(r.Prompt, "-") {
		return Launch{}, errorf(ErrInvalidPrompt, "prompt for %s starts with \"-\" and would be read as an option", label(c))
	}

	l := Launch{Argv: argv, Env: maps.Clone(c.Env), SessionID: id}
	if r.Prompt != "" {
		if c.PromptTransport == TransportStdin {
			l.Stdin = []byte(r.Prompt + "\n")
		} else {
			l.Argv = append(l.Argv, c.PromptArgs...)
			l.Argv = append(l.Argv, r.Prompt)
		}
	}
	return l, nil
}

// ValidateSessionID reports whether id can resume a session of the agent c:
// the agent must have resume args, and the id (trimmed of surrounding white
// space) must be non-empty, at most MaxSessionIDLen bytes, valid UTF-8
// without control characters, and not start with "-" (it would be read as
// an option).
func ValidateSessionID(c Config, id string) error {
	if len(c.ResumeArgs) == 0 {
		return errorf(ErrResumeUnsupported,
			"%s does not support resuming a session by id. Omit --resume-session to start a new session.", label(c))
	}
	if !validSessionID(strings.TrimSpace(id)) {
		return errorf(ErrInvalidSessionID, "Invalid resume session id for %s.", label(c))
	}
	return nil
}

// validSessionID checks an already trimmed id.
func validSessionID(id string) bool {
	return id != "" && len(id) <= MaxSessionIDLen && utf8.ValidString(id) &&
		!strings.HasPrefix(id, "-") && !strings.ContainsFunc(id, unicode.IsControl)
}

// label names the agent in messages.
func label(c Config) string {
	if strings.TrimSpace(c.Label) == "" {
		return c.ID
	}
	return c.Label
}

// ValidateConfig checks a config before it is stored or launched: the id is
// [a-z0-9][a-z0-9-]{0,31}; label and command are non-empty; the command has
// no white space; the prompt transport is argv or stdin; a session id kind
// is given exactly when it can be used; env names are portable
// ([A-Za-z_][A-Za-z0-9_]*); and no text anywhere holds a control character
// or invalid UTF-8. Errors match ErrInvalidConfig.
func ValidateConfig(c Config) error {
	if !validID(c.ID) {
		return errorf(ErrInvalidConfig, "agent id %q must be 1-32 of a-z, 0-9 and -, not starting with -", c.ID)
	}
	bad := func(format string, args ...any) error {
		return errorf(ErrInvalidConfig, "agent %s: "+format, append([]any{c.ID}, args...)...)
	}
	if strings.TrimSpace(c.Label) == "" {
		return bad("label is empty")
	}
	if !validText(c.Label) {
		return bad("label has a control character or invalid UTF-8")
	}
	if c.Command == "" {
		return bad("command is empty")
	}
	if !validText(c.Command) || strings.ContainsFunc(c.Command, unicode.IsSpace) {
		return bad("command %q has white space, a control character or invalid UTF-8", c.Command)
	}
	if c.PromptTransport != TransportArgv && c.PromptTransport != TransportStdin {
		return bad("prompt transport %q is neither %q nor %q", c.PromptTransport, TransportArgv, TransportStdin)
	}
	for _, list := range []struct {
		name string
		args []string
	}{
		{"args", c.Args}, {"prompt args", c.PromptArgs},
		{"resume args", c.ResumeArgs}, {"session id args", c.SessionIDArgs},
	} {
		for _, a := range list.args {
			if !validText(a) {
				return bad("%s: %q has a control character or invalid UTF-8", list.name, a)
			}
		}
	}
	switch {
	case len(c.SessionIDArgs) > 0 && c.SessionIDKind != KindUUID && c.SessionIDKind != KindAny:
		return bad("session id kind %q is neither %q nor %q", c.SessionIDKind, KindUUID, KindAny)
	case len(c.SessionIDArgs) == 0 && c.SessionIDKind != "":
		return bad("session id kind %q without session id args", c.SessionIDKind)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		if !validEnvName(k) {
			return bad("env name %q must match [A-Za-z_][A-Za-z0-9_]*", k)
		}
		if !validText(c.Env[k]) {
			return bad("env %s: value has a control character or invalid UTF-8", k)
		}
	}
	return nil
}

func validID(id string) bool {
	if id == "" || len(id) > 32 || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func validEnvName(k string) bool {
	if k == "" || '0' <= k[0] && k[0] <= '9' {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func validText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}

// isUUID reports whether s is a UUID in its canonical 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// NewUUID returns a random (version 4) UUID, lower-case, for pre-assigning
// a session id.
func NewUUID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails: crypto/rand crashes the program instead
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}
