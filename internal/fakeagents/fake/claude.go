package fake

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Message is one side of a turn as kept on disk.
type Message struct {
	Role string // "user" or "assistant"
	Text string
}

// ClaudeConfigDir is where Claude Code keeps its state: $CLAUDE_CONFIG_DIR,
// or ~/.claude.
func ClaudeConfigDir() (string, error) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".claude"), nil
}

// ClaudeProjectDirName is cwd with every character that is not an ASCII
// letter or digit replaced by '-': "/home/a/my.app" → "-home-a-my-app".
// Like the real CLI's JavaScript it counts UTF-16 code units, so a
// character beyond the BMP becomes "--".
func ClaudeProjectDirName(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// ClaudeTranscriptPath is configDir/projects/<project>/<id>.jsonl.
func ClaudeTranscriptPath(configDir, cwd, sessionID string) string {
	return filepath.Join(configDir, "projects", ClaudeProjectDirName(cwd), sessionID+".jsonl")
}

// ClaudeRegistryPath is configDir/sessions/<pid>.json.
func ClaudeRegistryPath(configDir string, pid int) string {
	return filepath.Join(configDir, "sessions", fmt.Sprintf("%d.json", pid))
}

// ClaudeRegistry is the content of a registry file: which session a live
// process runs.
type ClaudeRegistry struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
}

// WriteClaudeRegistry writes the file atomically, so a reader never sees
// half of it.
func WriteClaudeRegistry(configDir string, r ClaudeRegistry) error {
	path := ClaudeRegistryPath(configDir, r.PID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// LoadClaudeHooks merges the hook config of every level Claude Code reads,
// in its order: user settings, <cwd>/.claude/settings.json,
// <cwd>/.claude/settings.local.json, then --settings (a file path, or inline
// JSON when it starts with '{'; "" when not given). A broken settings file
// is skipped with a warning, as the real CLI does; a broken --settings is an
// error, because the real CLI refuses to start.
func LoadClaudeHooks(configDir, cwd, settingsFlag string) (cfg HookConfig, warnings []string, err error) {
	var levels []HookConfig
	for _, path := range []string{
		filepath.Join(configDir, "settings.json"),
		filepath.Join(cwd, ".claude", "settings.json"),
		filepath.Join(cwd, ".claude", "settings.local.json"),
	} {
		c, err := LoadHookFile(path)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("Warning: ignoring invalid settings: %v", err))
			continue
		}
		levels = append(levels, c)
	}
	if settingsFlag != "" {
		var data []byte
		if strings.HasPrefix(strings.TrimSpace(settingsFlag), "{") {
			data = []byte(settingsFlag)
		} else {
			data, err = os.ReadFile(settingsFlag)
			if err != nil {
				return nil, warnings, fmt.Errorf("settings file not found: %s", settingsFlag)
			}
		}
		c, err := ParseHookFile(data)
		if err != nil {
			return nil, warnings, fmt.Errorf("invalid --settings: %w", err)
		}
		levels = append(levels, c)
	}
	return Merge(levels...), warnings, nil
}

// claudeEntry is one transcript line, in the shape of Claude Code's own.
type claudeEntry struct {
	Type       string          `json:"type"` // "user" | "assistant"
	UUID       string          `json:"uuid"`
	ParentUUID *string         `json:"parentUuid"`
	SessionID  string          `json:"sessionId"`
	Cwd        string          `json:"cwd"`
	Timestamp  string          `json:"timestamp"`
	Message    json.RawMessage `json:"message"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ClaudeTranscript appends a conversation to a transcript file.
type ClaudeTranscript struct {
	Path      string
	SessionID string
	Cwd       string
	last      string // uuid of the last entry, the next one's parent
}

// Append writes one message as a transcript line, creating the file.
func (t *ClaudeTranscript) Append(m Message) error {
	var msg any
	if m.Role == "user" {
		msg = struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}{"user", m.Text}
	} else {
		msg = struct {
			Role    string      `json:"role"`
			Content []textBlock `json:"content"`
		}{"assistant", []textBlock{{"text", m.Text}}}
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	e := claudeEntry{
		Type:      m.Role,
		UUID:      NewUUIDv4(),
		SessionID: t.SessionID,
		Cwd:       t.Cwd,
		Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
		Message:   raw,
	}
	if t.last != "" {
		p := t.last
		e.ParentUUID = &p
	}
	if err := appendJSONLine(t.Path, e); err != nil {
		return err
	}
	t.last = e.UUID
	return nil
}

// ReadClaudeTranscript reads the messages of a transcript file and returns
// a ClaudeTranscript that continues it.
func ReadClaudeTranscript(path string) ([]Message, *ClaudeTranscript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	t := &ClaudeTranscript{Path: path}
	var msgs []Message
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var e claudeEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil || (e.Type != "user" && e.Type != "assistant") {
			continue
		}
		var m struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(e.Message, &m) != nil {
			continue
		}
		msgs = append(msgs, Message{Role: e.Type, Text: contentText(m.Content)})
		t.SessionID, t.Cwd, t.last = e.SessionID, e.Cwd, e.UUID
	}
	return msgs, t, sc.Err()
}

// contentText flattens a message content: a string, or a list of blocks
// whose text parts are joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []textBlock
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func appendJSONLine(path string, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}

// ClaudeTranscriptExists reports whether a session has a transcript in cwd's
// project: what "already in use" and "No conversation found" hinge on.
func ClaudeTranscriptExists(configDir, cwd, sessionID string) bool {
	return IsUUID(sessionID) && fileExists(ClaudeTranscriptPath(configDir, cwd, sessionID))
}
