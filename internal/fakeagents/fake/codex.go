package fake

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CodexHome is where Codex keeps its state: $CODEX_HOME, or ~/.codex.
func CodexHome() (string, error) {
	if d := os.Getenv("CODEX_HOME"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".codex"), nil
}

// CodexHooksPath is codexHome/hooks.json.
func CodexHooksPath(codexHome string) string { return filepath.Join(codexHome, "hooks.json") }

// CodexTrustPath is the file of trusted hooks.json hashes (sha256 hex, one
// a line): the fake's stand-in for Codex's persisted hook trust.
func CodexTrustPath(codexHome string) string { return filepath.Join(codexHome, "trusted-hooks") }

// HashHooks is the trust hash of a hooks.json content.
func HashHooks(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// CodexHooksTrusted reports whether codexHome/trusted-hooks lists the hash
// of data.
func CodexHooksTrusted(codexHome string, data []byte) bool {
	trusted, err := os.ReadFile(CodexTrustPath(codexHome))
	if err != nil {
		return false
	}
	want := HashHooks(data)
	for _, line := range strings.Split(string(trusted), "\n") {
		if strings.EqualFold(strings.TrimSpace(line), want) {
			return true
		}
	}
	return false
}

// CodexRolloutPath is where a thread started at start keeps its rollout:
// sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<id>.jsonl, local time.
func CodexRolloutPath(codexHome string, start time.Time, threadID string) string {
	return filepath.Join(codexHome, "sessions", start.Format("2006"), start.Format("01"), start.Format("02"),
		"rollout-"+start.Format("2006-01-02T15-04-05")+"-"+threadID+".jsonl")
}

// ErrNoRollout means no rollout file holds the thread.
var ErrNoRollout = errors.New("no rollout found")

// FindCodexRollout searches codexHome/sessions for the thread's rollout.
func FindCodexRollout(codexHome, threadID string) (string, error) {
	if !IsUUID(threadID) {
		return "", ErrNoRollout
	}
	suffix := "-" + strings.ToLower(threadID) + ".jsonl"
	var found string
	err := filepath.WalkDir(filepath.Join(codexHome, "sessions"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		name := d.Name()
		if !d.IsDir() && strings.HasPrefix(name, "rollout-") && strings.HasSuffix(strings.ToLower(name), suffix) {
			found = path
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if found == "" {
		return "", ErrNoRollout
	}
	return found, nil
}

// CodexThreadMarker is the fake's record that a thread was created, kept
// from start whether or not a turn ever ran (real Codex keeps a state
// database): it tells "never prompted" from "unknown" on resume.
func CodexThreadMarker(codexHome, threadID string) string {
	return filepath.Join(codexHome, "fake-threads", threadID)
}

// rolloutLine is one line of a rollout, in the shape of Codex's own.
type rolloutLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"` // "session_meta" | "response_item"
	Payload   json.RawMessage `json:"payload"`
}

type sessionMeta struct {
	ID         string `json:"id"`
	Timestamp  string `json:"timestamp"`
	Cwd        string `json:"cwd"`
	Originator string `json:"originator"`
	CLIVersion string `json:"cli_version"`
}

type responseMessage struct {
	Type    string        `json:"type"` // "message"
	Role    string        `json:"role"`
	Content []contentItem `json:"content"`
}

type contentItem struct {
	Type string `json:"type"` // "input_text" | "output_text"
	Text string `json:"text"`
}

// CodexRollout writes a thread's rollout. The file appears with its first
// Append, that is when the first turn completes.
type CodexRollout struct {
	Path     string
	ThreadID string
	Cwd      string
	Start    time.Time
}

// Exists reports whether the rollout file has been written.
func (r *CodexRollout) Exists() bool { return fileExists(r.Path) }

// Append writes messages, preceded by the session_meta line when the file
// is new.
func (r *CodexRollout) Append(msgs ...Message) error {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	var lines []rolloutLine
	if !r.Exists() {
		meta, err := json.Marshal(sessionMeta{
			ID: r.ThreadID, Timestamp: r.Start.UTC().Format(time.RFC3339Nano), Cwd: r.Cwd,
			Originator: "codex_cli_rs", CLIVersion: "0.0.0-fake",
		})
		if err != nil {
			return err
		}
		lines = append(lines, rolloutLine{now, "session_meta", meta})
	}
	for _, m := range msgs {
		kind := "output_text"
		if m.Role == "user" {
			kind = "input_text"
		}
		p, err := json.Marshal(responseMessage{"message", m.Role, []contentItem{{kind, m.Text}}})
		if err != nil {
			return err
		}
		lines = append(lines, rolloutLine{now, "response_item", p})
	}
	for _, l := range lines {
		if err := appendJSONLine(r.Path, l); err != nil {
			return err
		}
	}
	return nil
}

// ReadCodexRollout reads a rollout's thread metadata and messages.
func ReadCodexRollout(path string) (*CodexRollout, []Message, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := &CodexRollout{Path: path}
	var msgs []Message
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var l rolloutLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		switch l.Type {
		case "session_meta":
			var m sessionMeta
			if json.Unmarshal(l.Payload, &m) == nil {
				r.ThreadID, r.Cwd = m.ID, m.Cwd
				r.Start, _ = time.Parse(time.RFC3339Nano, m.Timestamp)
			}
		case "response_item":
			var m responseMessage
			if json.Unmarshal(l.Payload, &m) != nil || m.Type != "message" {
				continue
			}
			var parts []string
			for _, c := range m.Content {
				parts = append(parts, c.Text)
			}
			msgs = append(msgs, Message{Role: m.Role, Text: strings.Join(parts, "\n")})
		}
	}
	if r.ThreadID == "" {
		return nil, nil, fmt.Errorf("%s: no session_meta line", path)
	}
	return r, msgs, sc.Err()
}

// ParseNotify finds the top-level `notify = ["prog", "arg", …]` of a Codex
// config.toml: before the first [table] header, basic ("…") or literal ('…')
// strings, on one or several lines. No notify is a nil slice and no error.
func ParseNotify(toml string) ([]string, error) {
	lines := strings.Split(toml, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "[") {
			return nil, nil // the top-level table ended
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(key) != "notify" {
			continue
		}
		value = strings.TrimSpace(value)
		// A multi-line array goes on until its closing bracket.
		for !arrayClosed(value) && i+1 < len(lines) {
			i++
			value += "\n" + lines[i]
		}
		return parseStringArray(value)
	}
	return nil, nil
}

// arrayClosed reports whether s holds a complete [ … ] outside strings.
func arrayClosed(s string) bool {
	_, err := parseStringArray(s)
	return err == nil || !errors.Is(err, errUnterminated)
}

var errUnterminated = errors.New("unterminated array")

// parseStringArray parses a TOML array of strings, allowing a trailing
// comma and a trailing comment.
func parseStringArray(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") {
		return nil, fmt.Errorf("notify: want an array, got %q", s)
	}
	out := []string{}
	i := 1
	skip := func() {
		for i < len(s) {
			switch {
			case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
				i++
			case s[i] == '#':
				for i < len(s) && s[i] != '\n' {
					i++
				}
			default:
				return
			}
		}
	}
	for {
		skip()
		if i >= len(s) {
			return nil, errUnterminated
		}
		if s[i] == ']' {
			i++
			skip()
			if i < len(s) {
				return nil, fmt.Errorf("notify: unexpected %q after the array", s[i:])
			}
			return out, nil
		}
		var str string
		switch s[i] {
		case '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, errUnterminated
			}
			if err := json.Unmarshal([]byte(s[i:j+1]), &str); err != nil {
				return nil, fmt.Errorf("notify: bad string %s: %w", s[i:j+1], err)
			}
			i = j + 1
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errUnterminated
			}
			str = s[i+1 : i+1+j]
			i += j + 2
		default:
			return nil, fmt.Errorf("notify: want a string at %q", s[i:])
		}
		out = append(out, str)
		skip()
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		skip()
		if i < len(s) && s[i] != ']' {
			return nil, fmt.Errorf("notify: want ',' or ']' at %q", s[i:])
		}
	}
}
