package fake

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// The Gemini CLI's contract, as AGENTS.md states it ("Gemini CLI" and
// "Running the real CLIs offline"): hooks in ~/.gemini/settings.json in
// Claude's shape with timeouts in milliseconds; SessionStart at launch
// (source startup|resume|clear); BeforeAgent (the prompt) and AfterAgent
// bracket a turn; SessionEnd "exit", delivered three times, on /quit and on
// SIGHUP (and it runs on SIGTERM/SIGINT too), exit status 0 even on SIGHUP;
// GEMINI_SESSION_ID in the hook's environment, variables whose names look
// secret stripped from it; --session-id honoured; a session with no model
// reply deleted at exit, so not resumable. Where AGENTS.md is silent the
// fake follows what the conformance suite saw the real 0.61 do
// (conformance/RESULTS.md), and says so.

// GeminiSettingsPath is $HOME/.gemini/settings.json.
func GeminiSettingsPath() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".gemini", "settings.json"), nil
}

// LoadGeminiHooks reads the hooks of a Gemini settings.json. Handler
// timeouts there are milliseconds; the HookConfig returned has seconds, as
// the Runner takes them. A missing file is no hooks.
//
// AGENTS.md does not say settings.json may hold comments and trailing
// commas; users' files do (the installer's JSONC support is for them), and
// the real CLI reads such files, so the fake does too (StripJSONC).
func LoadGeminiHooks(path string) (HookConfig, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return HookConfig{}, nil
	}
	if err != nil {
		return nil, err
	}
	cfg, err := ParseHookFile(StripJSONC(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for ev, groups := range cfg {
		for i := range groups {
			for j := range groups[i].Hooks {
				groups[i].Hooks[j].Timeout /= 1000
			}
		}
		cfg[ev] = groups
	}
	return cfg, nil
}

// StripJSONC turns JSON with // and /* */ comments and trailing commas into
// plain JSON (strings are left alone; a comment becomes spaces).
func StripJSONC(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '"':
			j := i + 1
			for ; j < len(in) && in[j] != '"'; j++ {
				if in[j] == '\\' {
					j++
				}
			}
			if j >= len(in) {
				j = len(in) - 1
			}
			out = append(out, in[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(in) && in[i+1] == '/':
			for i < len(in) && in[i] != '\n' {
				i++
			}
			if i < len(in) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(in) && in[i+1] == '*':
			end := strings.Index(string(in[i+2:]), "*/")
			if end < 0 {
				return out
			}
			out = append(out, ' ')
			i += 2 + end + 1
		case c == ',':
			// A comma whose next significant byte closes an object or array
			// is dropped.
			j := i + 1
			for j < len(in) {
				switch {
				case in[j] == ' ' || in[j] == '\t' || in[j] == '\n' || in[j] == '\r':
					j++
					continue
				case in[j] == '/' && j+1 < len(in) && in[j+1] == '/':
					for j < len(in) && in[j] != '\n' {
						j++
					}
					continue
				case in[j] == '/' && j+1 < len(in) && in[j+1] == '*':
					if end := strings.Index(string(in[j+2:]), "*/"); end >= 0 {
						j += 2 + end + 2
						continue
					}
				}
				break
			}
			if j < len(in) && (in[j] == '}' || in[j] == ']') {
				continue
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// secretName is what the fake takes for a variable name that "looks
// secret". AGENTS.md says Gemini strips such variables but not which names
// it means; these are the usual words.
var secretName = regexp.MustCompile(`(?i)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)`)

// GeminiHookEnv is environ without the variables whose names look secret.
func GeminiHookEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !secretName.MatchString(k) {
			out = append(out, kv)
		}
	}
	return out
}

// geminiIDChars is what the fake accepts as a session id. AGENTS.md says
// --session-id <id> is honoured, not what an id may be; the fake takes
// letters, digits, '-' and '_' (enough for the UUIDs Reprise makes), so an
// id can never name another directory.
var geminiIDChars = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// ValidGeminiID reports whether the fake accepts id.
func ValidGeminiID(id string) bool { return geminiIDChars.MatchString(id) }

// GeminiChatDir is where the chat files of the project in cwd live:
// ~/.gemini/tmp/<project>/chats. AGENTS.md does not say; the real 0.61 was
// seen to use the cwd's base name for <project> (conformance/RESULTS.md:
// …/.gemini/tmp/proj/chats/session-2026-12-02T02-09-60df25de.jsonl for a
// cwd …/work/proj).
func GeminiChatDir(home, cwd string) string {
	return filepath.Join(home, ".gemini", "tmp", filepath.Base(cwd), "chats")
}

// GeminiChatPath is a new session's chat file: session-<start, to the
// minute>-<first 8 characters of the id>.jsonl (the name seen, as above).
func GeminiChatPath(home, cwd string, start time.Time, id string) string {
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	return filepath.Join(GeminiChatDir(home, cwd), "session-"+start.Format("2006-01-02T15-04")+"-"+short+".jsonl")
}

// GeminiChat is one session's chat file: a first line naming the session,
// then one line per message, {"type":"user"|"gemini","content":…}. (The
// line format is the fake's own; what Reprise reads of it is only whether
// a model reply, "type":"gemini", is there.)
type GeminiChat struct {
	Path      string
	SessionID string
	Cwd       string
}

type geminiLine struct {
	SessionID string `json:"sessionId,omitempty"`
	Cwd       string `json:"projectDir,omitempty"`
	Type      string `json:"type,omitempty"` // "user" | "gemini"
	Content   string `json:"content,omitempty"`
	Timestamp string `json:"timestamp"`
}

// Append writes messages, preceded by the session line when the file is
// new.
func (c *GeminiChat) Append(msgs ...Message) error {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	if !fileExists(c.Path) {
		if err := appendJSONLine(c.Path, geminiLine{SessionID: c.SessionID, Cwd: c.Cwd, Timestamp: now}); err != nil {
			return err
		}
	}
	for _, m := range msgs {
		t := "user"
		if m.Role != "user" {
			t = "gemini"
		}
		if err := appendJSONLine(c.Path, geminiLine{Type: t, Content: m.Text, Timestamp: now}); err != nil {
			return err
		}
	}
	return nil
}

// HasReply reports whether the chat file holds a model reply.
func (c *GeminiChat) HasReply() bool {
	msgs, err := readGeminiChat(c.Path, nil)
	if err != nil {
		return false
	}
	for _, m := range msgs {
		if m.Role != "user" {
			return true
		}
	}
	return false
}

func readGeminiChat(path string, id *string) ([]Message, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var msgs []Message
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var l geminiLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		switch {
		case l.SessionID != "":
			if id != nil {
				*id = l.SessionID
			}
		case l.Type == "user":
			msgs = append(msgs, Message{Role: "user", Text: l.Content})
		case l.Type == "gemini":
			msgs = append(msgs, Message{Role: "assistant", Text: l.Content})
		}
	}
	return msgs, sc.Err()
}

// FindGeminiChat finds session id's chat file among cwd's project's and
// reads its messages. ok is false when there is none.
func FindGeminiChat(home, cwd, id string) (c *GeminiChat, msgs []Message, ok bool, err error) {
	if !ValidGeminiID(id) {
		return nil, nil, false, nil
	}
	dir := GeminiChatDir(home, cwd)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "session-") || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		var got string
		m, err := readGeminiChat(p, &got)
		if err != nil || got != id {
			continue
		}
		return &GeminiChat{Path: p, SessionID: id, Cwd: cwd}, m, true, nil
	}
	return nil, nil, false, nil
}
