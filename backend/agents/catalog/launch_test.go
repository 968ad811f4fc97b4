package catalog

import (
	"bytes"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/reprise-dev/reprise/backend/shellquote"
)

const (
	id     = "0f8fad5b-d9cb-469f-a165-70867728950e"
	pre    = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	prompt = "fix the bug"
)

func builtinConfig(t testing.TB, agentID string) Config {
	t.Helper()
	a, ok := ByID(agentID)
	if !ok {
		t.Fatalf("no builtin %q", agentID)
	}
	return a.Config()
}

func TestBuildArgv(t *testing.T) {
	tests := []struct {
		agent, name string
		req         LaunchRequest
		argv        []string
		stdin       string
		sessionID   string
	}{
		{"claude", "new", LaunchRequest{}, []string{"claude"}, "", ""},
		{"claude", "prompt", LaunchRequest{Prompt: prompt}, []string{"claude", prompt}, "", ""},
		{"claude", "resume", LaunchRequest{ResumeSessionID: id}, []string{"claude", "--resume", id}, "", id},
		{"claude", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"claude", "--resume", id, prompt}, "", id},
		{"claude", "preassign", LaunchRequest{PreassignID: pre}, []string{"claude", "--session-id", pre}, "", pre},
		{"codex", "new", LaunchRequest{}, []string{"codex"}, "", ""},
		{"codex", "prompt", LaunchRequest{Prompt: prompt}, []string{"codex", "--", prompt}, "", ""},
		{"codex", "resume", LaunchRequest{ResumeSessionID: id}, []string{"codex", "resume", id}, "", id},
		{"codex", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"codex", "resume", id, "--", prompt}, "", id},
		{"codex", "preassign", LaunchRequest{PreassignID: pre}, []string{"codex"}, "", ""},
		{"gemini", "new", LaunchRequest{}, []string{"gemini"}, "", ""},
		{"gemini", "prompt", LaunchRequest{Prompt: prompt}, []string{"gemini", prompt}, "", ""},
		{"gemini", "resume", LaunchRequest{ResumeSessionID: id}, []string{"gemini", "--resume", id}, "", id},
		{"gemini", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"gemini", "--resume", id, prompt}, "", id},
		{"gemini", "preassign", LaunchRequest{PreassignID: pre}, []string{"gemini", "--session-id", pre}, "", pre},
		{"amp", "new", LaunchRequest{}, []string{"amp"}, "", ""},
		{"amp", "prompt", LaunchRequest{Prompt: prompt}, []string{"amp"}, prompt + "\n", ""},
		{"amp", "resume", LaunchRequest{ResumeSessionID: id}, []string{"amp", "threads", "continue", id}, "", id},
		{"amp", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"amp", "threads", "continue", id}, prompt + "\n", id},
		{"amp", "preassign", LaunchRequest{PreassignID: pre}, []string{"amp"}, "", ""},
		{"opencode", "new", LaunchRequest{}, []string{"opencode"}, "", ""},
		{"opencode", "prompt", LaunchRequest{Prompt: prompt}, []string{"opencode", "--prompt", prompt}, "", ""},
		{"opencode", "resume", LaunchRequest{ResumeSessionID: id}, []string{"opencode", "--session", id}, "", id},
		{"opencode", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"opencode", "--session", id, "--prompt", prompt}, "", id},
		{"opencode", "preassign", LaunchRequest{PreassignID: pre}, []string{"opencode"}, "", ""},
		{"pi", "new", LaunchRequest{}, []string{"pi"}, "", ""},
		{"pi", "prompt", LaunchRequest{Prompt: prompt}, []string{"pi", prompt}, "", ""},
		{"pi", "resume", LaunchRequest{ResumeSessionID: id}, []string{"pi", "--session", id}, "", id},
		{"pi", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"pi", "--session", id, prompt}, "", id},
		{"pi", "preassign", LaunchRequest{PreassignID: pre}, []string{"pi", "--session-id", pre}, "", pre},
		{"copilot", "new", LaunchRequest{}, []string{"copilot"}, "", ""},
		{"copilot", "prompt", LaunchRequest{Prompt: prompt}, []string{"copilot", "-i", prompt}, "", ""},
		{"copilot", "resume", LaunchRequest{ResumeSessionID: id}, []string{"copilot", "--resume", id}, "", id},
		{"copilot", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"copilot", "--resume", id, "-i", prompt}, "", id},
		{"copilot", "preassign", LaunchRequest{PreassignID: pre}, []string{"copilot", "--session-id", pre}, "", pre},
		{"cursor-agent", "new", LaunchRequest{}, []string{"cursor-agent"}, "", ""},
		{"cursor-agent", "prompt", LaunchRequest{Prompt: prompt}, []string{"cursor-agent", prompt}, "", ""},
		{"cursor-agent", "resume", LaunchRequest{ResumeSessionID: id}, []string{"cursor-agent", "--resume", id}, "", id},
		{"cursor-agent", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"cursor-agent", "--resume", id, prompt}, "", id},
		{"cursor-agent", "preassign", LaunchRequest{PreassignID: pre}, []string{"cursor-agent"}, "", ""},
		{"droid", "new", LaunchRequest{}, []string{"droid"}, "", ""},
		{"droid", "prompt", LaunchRequest{Prompt: prompt}, []string{"droid", prompt}, "", ""},
		{"droid", "resume", LaunchRequest{ResumeSessionID: id}, []string{"droid", "--resume", id}, "", id},
		{"droid", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"droid", "--resume", id, prompt}, "", id},
		{"droid", "preassign", LaunchRequest{PreassignID: pre}, []string{"droid"}, "", ""},
		{"kimi", "new", LaunchRequest{}, []string{"kimi"}, "", ""},
		{"kimi", "prompt", LaunchRequest{Prompt: prompt}, []string{"kimi", "-p", prompt}, "", ""},
		{"kimi", "resume", LaunchRequest{ResumeSessionID: id}, []string{"kimi", "--session", id}, "", id},
		{"kimi", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"kimi", "--session", id, "-p", prompt}, "", id},
		{"kimi", "preassign", LaunchRequest{PreassignID: pre}, []string{"kimi", "--session", pre}, "", pre},
		{"mastracode", "new", LaunchRequest{}, []string{"mastracode"}, "", ""},
		{"mastracode", "prompt", LaunchRequest{Prompt: prompt}, []string{"mastracode", "--prompt", prompt}, "", ""},
		{"mastracode", "resume", LaunchRequest{ResumeSessionID: id}, []string{"mastracode", "--thread", id}, "", id},
		{"mastracode", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"mastracode", "--thread", id, "--prompt", prompt}, "", id},
		{"mastracode", "preassign", LaunchRequest{PreassignID: pre}, []string{"mastracode"}, "", ""},
		{"vibe", "new", LaunchRequest{}, []string{"vibe"}, "", ""},
		{"vibe", "prompt", LaunchRequest{Prompt: prompt}, []string{"vibe", prompt}, "", ""},
		{"vibe", "resume", LaunchRequest{ResumeSessionID: id}, []string{"vibe", "--resume", id}, "", id},
		{"vibe", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"vibe", "--resume", id, prompt}, "", id},
		{"vibe", "preassign", LaunchRequest{PreassignID: pre}, []string{"vibe"}, "", ""},
		{"grok", "new", LaunchRequest{}, []string{"grok"}, "", ""},
		{"grok", "prompt", LaunchRequest{Prompt: prompt}, []string{"grok", prompt}, "", ""},
		{"grok", "resume", LaunchRequest{ResumeSessionID: id}, []string{"grok", "--resume", id}, "", id},
		{"grok", "resume+prompt", LaunchRequest{ResumeSessionID: id, Prompt: prompt}, []string{"grok", "--resume", id, prompt}, "", id},
		{"grok", "preassign", LaunchRequest{PreassignID: pre}, []string{"grok", "-s", pre}, "", pre},

		// Extra cases beyond the agent × request grid.
		{"claude", "preassign+prompt", LaunchRequest{PreassignID: pre, Prompt: prompt}, []string{"claude", "--session-id", pre, prompt}, "", pre},
		{"claude", "resume wins over preassign", LaunchRequest{ResumeSessionID: id, PreassignID: pre}, []string{"claude", "--resume", id}, "", id},
		{"claude", "id trimmed", LaunchRequest{ResumeSessionID: " " + id + "\n"}, []string{"claude", "--resume", id}, "", id},
		{"gemini", "preassign any id", LaunchRequest{PreassignID: "my session"}, []string{"gemini", "--session-id", "my session"}, "", "my session"},
		{"codex", "dash prompt after --", LaunchRequest{Prompt: "--help"}, []string{"codex", "--", "--help"}, "", ""},
		{"amp", "prompt ending in newline", LaunchRequest{Prompt: "hi\n"}, []string{"amp"}, "hi\n\n", ""},
	}
	seen := map[string]int{}
	for _, tt := range tests {
		seen[tt.agent]++
		t.Run(tt.agent+"/"+tt.name, func(t *testing.T) {
			l, err := Build(builtinConfig(t, tt.agent), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(l.Argv, tt.argv) {
				t.Errorf("argv = %q, want %q", l.Argv, tt.argv)
			}
			if string(l.Stdin) != tt.stdin {
				t.Errorf("stdin = %q, want %q", l.Stdin, tt.stdin)
			}
			if tt.stdin == "" && l.Stdin != nil {
				t.Errorf("stdin = %q, want nil", l.Stdin)
			}
			if l.SessionID != tt.sessionID {
				t.Errorf("session id = %q, want %q", l.SessionID, tt.sessionID)
			}
		})
	}
	for _, a := range Builtins() {
		if seen[a.ID] < 5 {
			t.Errorf("%s: %d argv cases, want at least 5", a.ID, seen[a.ID])
		}
	}
}

// TestBuildRootArgs checks that Args come right after the command, before
// a resume subcommand: codex reads root flags only before `resume`.
func TestBuildRootArgs(t *testing.T) {
	c := builtinConfig(t, "codex")
	c.Args = []string{"--no-daemon", "-c", "check_for_update_on_startup=false"}
	c.Env = map[string]string{"CODEX_HOME": "/tmp/x"}
	l, err := Build(c, LaunchRequest{ResumeSessionID: id, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"codex", "--no-daemon", "-c", "check_for_update_on_startup=false", "resume", id, "--", prompt}
	if !slices.Equal(l.Argv, want) {
		t.Errorf("argv = %q, want %q", l.Argv, want)
	}
	if l.Env["CODEX_HOME"] != "/tmp/x" || len(l.Env) != 1 {
		t.Errorf("env = %q", l.Env)
	}
	l.Env["CODEX_HOME"] = "changed"
	l.Argv[1] = "changed"
	if c.Env["CODEX_HOME"] != "/tmp/x" || c.Args[0] != "--no-daemon" {
		t.Error("Launch shares state with its Config")
	}
}

func TestBuildErrors(t *testing.T) {
	claude := builtinConfig(t, "claude")
	noResume := claude
	noResume.ResumeArgs = nil
	noCommand := claude
	noCommand.Command = " "
	badConfig := claude
	badConfig.Args = []string{"--x\x1b"}
	tests := []struct {
		name string
		c    Config
		req  LaunchRequest
		want string
		is   error
	}{
		{"no resume args", noResume, LaunchRequest{ResumeSessionID: id},
			"Claude Code does not support resuming a session by id. Omit --resume-session to start a new session.", ErrResumeUnsupported},
		{"no resume args, bad id too", noResume, LaunchRequest{ResumeSessionID: "\x1b"},
			"Claude Code does not support resuming a session by id. Omit --resume-session to start a new session.", ErrResumeUnsupported},
		{"blank id", claude, LaunchRequest{ResumeSessionID: " \t "}, "Invalid resume session id for Claude Code.", ErrInvalidSessionID},
		{"long id", claude, LaunchRequest{ResumeSessionID: strings.Repeat("a", 257)}, "Invalid resume session id for Claude Code.", ErrInvalidSessionID},
		{"newline in id", claude, LaunchRequest{ResumeSessionID: "a\nb"}, "Invalid resume session id for Claude Code.", ErrInvalidSessionID},
		{"escape in id", claude, LaunchRequest{ResumeSessionID: "\x1b]0;pwn\x07"}, "Invalid resume session id for Claude Code.", ErrInvalidSessionID},
		{"NUL in id", claude, LaunchRequest{ResumeSessionID: "a\x00b"}, "Invalid resume session id for Claude Code.", ErrInvalidSessionID},
		{"C1 control in id", claude, LaunchRequest{ResumeSessionID: "a\u009bb"}, "Invalid resume session id for Claude Code.", ErrInvalidSessionID},
		{"invalid UTF-8 id", claude, LaunchRequest{ResumeSessionID: "a\xffb"}, "Invalid resume session id for Claude Code.", ErrInvalidSessionID},
		{"option-like id", builtinConfig(t, "codex"), LaunchRequest{ResumeSessionID: "--dangerously-bypass-approvals-and-sandbox"}, "Invalid resume session id for Codex.", ErrInvalidSessionID},
		{"preassign not a uuid", claude, LaunchRequest{PreassignID: "not-a-uuid"}, "invalid session id for Claude Code", ErrInvalidSessionID},
		{"preassign uuid with junk", claude, LaunchRequest{PreassignID: pre + "x"}, "invalid session id for Claude Code", ErrInvalidSessionID},
		{"preassign control", builtinConfig(t, "gemini"), LaunchRequest{PreassignID: "a\nb"}, "invalid session id for Gemini CLI", ErrInvalidSessionID},
		{"preassign blank", builtinConfig(t, "pi"), LaunchRequest{PreassignID: "  "}, "invalid session id for pi", ErrInvalidSessionID},
		{"preassign option-like", builtinConfig(t, "kimi"), LaunchRequest{PreassignID: "-x"}, "invalid session id for Kimi CLI", ErrInvalidSessionID},
		{"no command", noCommand, LaunchRequest{}, "agent claude has no command", ErrNoCommand},
		{"bad config", badConfig, LaunchRequest{}, `agent claude: args: "--x\x1b" has a control character or invalid UTF-8`, ErrInvalidConfig},
		{"NUL in prompt", claude, LaunchRequest{Prompt: "a\x00b"}, "prompt for Claude Code contains a NUL byte", ErrInvalidPrompt},
		{"NUL in stdin prompt", builtinConfig(t, "amp"), LaunchRequest{Prompt: "a\x00b"}, "prompt for Amp contains a NUL byte", ErrInvalidPrompt},
		{"long prompt", claude, LaunchRequest{Prompt: strings.Repeat("y", 100000)}, "prompt for Claude Code is 100000 bytes, over the 32768-byte limit", ErrInvalidPrompt},
		{"long stdin prompt", builtinConfig(t, "amp"), LaunchRequest{Prompt: strings.Repeat("y", 32769)}, "prompt for Amp is 32769 bytes, over the 32768-byte limit", ErrInvalidPrompt},
		{"option-like positional prompt", claude, LaunchRequest{Prompt: "--dangerously-skip-permissions"},
			`prompt for Claude Code starts with "-" and would be read as an option`, ErrInvalidPrompt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Build(tt.c, tt.req)
			if err == nil {
				t.Fatalf("Build = %q, want error %q", l.Argv, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q, want %q", err, tt.want)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("error %q is not %v", err, tt.is)
			}
		})
	}
}

func TestValidateSessionID(t *testing.T) {
	claude := builtinConfig(t, "claude")
	tests := []struct {
		id string
		ok bool
	}{
		{id, true},
		{"T-" + id, true},
		{"ses_01JABCDEF", true},
		{"with space inside", true},
		{"x'; rm -rf ~", true},
		{"$(id)", true},
		{strings.Repeat("é", 128), true}, // 256 bytes
		{strings.Repeat("é", 128) + "a", false},
		{"", false},
		{"-", false},
		{"a\tb", false},
		{"a\x7fb", false},
		{"\x1b]0;pwn\x07", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			err := ValidateSessionID(claude, tt.id)
			if (err == nil) != tt.ok {
				t.Errorf("ValidateSessionID(%q) = %v, want ok=%v", tt.id, err, tt.ok)
			}
		})
	}
}

// hostileValues are prompts and session ids that would do harm if anything
// on the way to the agent interpreted them.
var hostileValues = []string{
	"x'; rm -rf ~",
	"$(id)",
	"`id`",
	"${HOME}",
	"line one\nline two",
	"\x1b]0;pwn\x07",
	"\"; echo pwned; \"",
	"\\",
	"*",
	"~",
}

func TestBuildHostile(t *testing.T) {
	for _, a := range Builtins() {
		c := a.Config()
		for _, v := range hostileValues {
			t.Run(a.ID+"/"+v, func(t *testing.T) {
				l, err := Build(c, LaunchRequest{Prompt: v})
				if err != nil {
					t.Fatal(err)
				}
				if c.PromptTransport == TransportStdin {
					if string(l.Stdin) != v+"\n" || slices.Contains(l.Argv, v) {
						t.Errorf("stdin %q, argv %q", l.Stdin, l.Argv)
					}
				} else if l.Argv[len(l.Argv)-1] != v || count(l.Argv, v) != 1 {
					t.Errorf("prompt is not one untouched element: %q", l.Argv)
				}
				checkShellRoundTrip(t, l.Argv)

				l, err = Build(c, LaunchRequest{ResumeSessionID: v})
				if hasControl(v) {
					if !errors.Is(err, ErrInvalidSessionID) {
						t.Errorf("session id %q accepted: %q, %v", v, l.Argv, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if l.Argv[len(l.Argv)-1] != v || l.SessionID != v {
					t.Errorf("session id is not one untouched element: %q", l.Argv)
				}
				checkShellRoundTrip(t, l.Argv)
			})
		}
	}
}

func TestValidateConfig(t *testing.T) {
	good := func() Config {
		return Config{
			ID: "my-agent", Label: "My Agent", Command: "/opt/bin/my-agent",
			Args: []string{"--flag", "two words", "$(literal)"}, PromptArgs: []string{"-p"},
			PromptTransport: TransportArgv, ResumeArgs: []string{"--resume"},
			Env:           map[string]string{"MY_AGENT_HOME": "/x", "_A1": ""},
			SessionIDArgs: []string{"--id"}, SessionIDKind: KindAny,
		}
	}
	tests := []struct {
		name   string
		change func(*Config)
		ok     bool
	}{
		{"good", func(c *Config) {}, true},
		{"one-char id", func(c *Config) { c.ID = "a" }, true},
		{"digit id", func(c *Config) { c.ID = "0" }, true},
		{"32-char id", func(c *Config) { c.ID = strings.Repeat("a", 32) }, true},
		{"stdin", func(c *Config) { c.PromptTransport = TransportStdin }, true},
		{"no session id args", func(c *Config) { c.SessionIDArgs, c.SessionIDKind = nil, "" }, true},
		{"no resume args", func(c *Config) { c.ResumeArgs = nil }, true},
		{"empty arg", func(c *Config) { c.Args = []string{""} }, true},
		{"empty id", func(c *Config) { c.ID = "" }, false},
		{"33-char id", func(c *Config) { c.ID = strings.Repeat("a", 33) }, false},
		{"upper-case id", func(c *Config) { c.ID = "Claude" }, false},
		{"id starts with -", func(c *Config) { c.ID = "-a" }, false},
		{"underscore id", func(c *Config) { c.ID = "a_b" }, false},
		{"non-ASCII id", func(c *Config) { c.ID = "é" }, false},
		{"empty label", func(c *Config) { c.Label = " " }, false},
		{"control in label", func(c *Config) { c.Label = "a\x1b[2J" }, false},
		{"empty command", func(c *Config) { c.Command = "" }, false},
		{"space in command", func(c *Config) { c.Command = "my agent" }, false},
		{"tab in command", func(c *Config) { c.Command = "a\tb" }, false},
		{"nbsp in command", func(c *Config) { c.Command = "a\u00a0b" }, false},
		{"control in command", func(c *Config) { c.Command = "a\x07" }, false},
		{"invalid UTF-8 command", func(c *Config) { c.Command = "a\xff" }, false},
		{"empty transport", func(c *Config) { c.PromptTransport = "" }, false},
		{"unknown transport", func(c *Config) { c.PromptTransport = "pipe" }, false},
		{"control in args", func(c *Config) { c.Args = []string{"a\nb"} }, false},
		{"control in prompt args", func(c *Config) { c.PromptArgs = []string{"\x00"} }, false},
		{"control in resume args", func(c *Config) { c.ResumeArgs = []string{"\x1b]0;pwn\x07"} }, false},
		{"control in session id args", func(c *Config) { c.SessionIDArgs = []string{"\r"} }, false},
		{"invalid UTF-8 arg", func(c *Config) { c.Args = []string{"\xc3"} }, false},
		{"unknown kind", func(c *Config) { c.SessionIDKind = "ulid" }, false},
		{"no kind", func(c *Config) { c.SessionIDKind = "" }, false},
		{"kind without args", func(c *Config) { c.SessionIDArgs = nil }, false},
		{"env name with -", func(c *Config) { c.Env = map[string]string{"A-B": "1"} }, false},
		{"env name with =", func(c *Config) { c.Env = map[string]string{"A=B": "1"} }, false},
		{"env name starts with digit", func(c *Config) { c.Env = map[string]string{"1A": "1"} }, false},
		{"empty env name", func(c *Config) { c.Env = map[string]string{"": "1"} }, false},
		{"control in env value", func(c *Config) { c.Env = map[string]string{"A": "1\n2"} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good()
			tt.change(&c)
			err := ValidateConfig(c)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidateConfig(%+v) = %v, want ok=%v", c, err, tt.ok)
			}
			if err != nil {
				if !errors.Is(err, ErrInvalidConfig) {
					t.Errorf("%v is not ErrInvalidConfig", err)
				}
				if msg := err.Error(); strings.ContainsFunc(msg, unicode.IsControl) || msg != strings.ToLower(msg[:1])+msg[1:] {
					t.Errorf("message %q is not one lower-case line", msg)
				}
			}
		})
	}
}

func TestNewUUID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		u := NewUUID()
		if !isUUID(u) || u != strings.ToLower(u) {
			t.Fatalf("NewUUID() = %q, not a lower-case UUID", u)
		}
		if u[14] != '4' || !strings.ContainsRune("89ab", rune(u[19])) {
			t.Fatalf("NewUUID() = %q, not version 4 variant 10", u)
		}
		if seen[u] {
			t.Fatalf("NewUUID() repeated %q", u)
		}
		seen[u] = true
	}
	l, err := Build(builtinConfig(t, "claude"), LaunchRequest{PreassignID: NewUUID()})
	if err != nil || l.SessionID == "" {
		t.Fatalf("Build with NewUUID: %q, %v", l.SessionID, err)
	}
}

func TestIsUUID(t *testing.T) {
	tests := []struct {
		s  string
		ok bool
	}{
		{id, true},
		{strings.ToUpper(id), true},
		{"0190b6d3-7e0a-7c4e-9b1a-3f2d5c6e7a8b", true}, // v7, as codex makes
		{"", false},
		{id[:35], false},
		{id + "0", false},
		{strings.ReplaceAll(id, "-", ""), false},
		{"0f8fad5b-d9cb-469f-a165-70867728950g", false},
		{"0f8fad5bd-9cb-469f-a165-70867728950e", false},
		{"T-" + id[2:], false},
	}
	for _, tt := range tests {
		t.Run(tt.s, func(t *testing.T) {
			if got := isUUID(tt.s); got != tt.ok {
				t.Errorf("isUUID(%q) = %v", tt.s, got)
			}
		})
	}
}

func FuzzBuild(f *testing.F) {
	f.Add(uint8(0), prompt, "", pre)
	f.Add(uint8(1), "--help", id, "")
	f.Add(uint8(3), "x'; rm -rf ~", "T-"+id, "")
	f.Add(uint8(4), "$(id)", "ses_1", "")
	f.Add(uint8(6), "\x1b]0;pwn\x07", "", pre)
	f.Add(uint8(9), "line\nline", "", "any id")
	f.Add(uint8(12), "resume", "--resume", "-s")
	f.Fuzz(func(t *testing.T, agent uint8, prompt, resumeID, preassign string) {
		agents := Builtins()
		c := agents[int(agent)%len(agents)].Config()
		req := LaunchRequest{Prompt: prompt, ResumeSessionID: resumeID, PreassignID: preassign}
		l, err := Build(c, req)
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("error is not one line: %q", msg)
			}
			switch {
			case errors.Is(err, ErrInvalidSessionID):
				if resumeID == "" && preassign == "" {
					t.Fatalf("invalid session id without one: %v", err)
				}
			case errors.Is(err, ErrInvalidPrompt):
				if !strings.Contains(prompt, "\x00") && !strings.HasPrefix(prompt, "-") {
					t.Fatalf("prompt %q refused: %v", prompt, err)
				}
			default:
				t.Fatalf("unexpected error for a builtin: %v", err)
			}
			return
		}

		argv := l.Argv
		if argv[0] != c.Command {
			t.Fatalf("argv[0] = %q, want %q", argv[0], c.Command)
		}
		if hasControl(l.SessionID) || strings.HasPrefix(l.SessionID, "-") {
			t.Fatalf("session id %q accepted", l.SessionID)
		}
		rest := cutPrefix(t, argv[1:], c.Args)
		switch {
		case resumeID != "":
			if l.SessionID != strings.TrimSpace(resumeID) {
				t.Fatalf("session id %q, resume id %q", l.SessionID, resumeID)
			}
			rest = cutPrefix(t, rest, append(slices.Clone(c.ResumeArgs), l.SessionID))
		case preassign != "" && len(c.SessionIDArgs) > 0:
			if l.SessionID != strings.TrimSpace(preassign) {
				t.Fatalf("session id %q, preassigned %q", l.SessionID, preassign)
			}
			if c.SessionIDKind == KindUUID && !isUUID(l.SessionID) {
				t.Fatalf("pre-assigned %q is not a UUID", l.SessionID)
			}
			rest = cutPrefix(t, rest, append(slices.Clone(c.SessionIDArgs), l.SessionID))
		default:
			if l.SessionID != "" {
				t.Fatalf("session id %q without resume or preassign", l.SessionID)
			}
		}
		switch {
		case prompt == "":
			if len(rest) != 0 || l.Stdin != nil {
				t.Fatalf("no prompt, but argv ends in %q and stdin is %q", rest, l.Stdin)
			}
		case c.PromptTransport == TransportStdin:
			if len(rest) != 0 || string(l.Stdin) != prompt+"\n" {
				t.Fatalf("stdin prompt: argv ends in %q, stdin %q", rest, l.Stdin)
			}
		default:
			if !slices.Equal(rest, append(slices.Clone(c.PromptArgs), prompt)) {
				t.Fatalf("argv ends in %q, want prompt args %q and prompt %q", rest, c.PromptArgs, prompt)
			}
			// Elsewhere only by coincidence, as a token of the config or the id.
			if count(argv, prompt) != 1 && !slices.Contains(c.tokens(l.SessionID), prompt) {
				t.Fatalf("prompt %q is not exactly one element of %q", prompt, argv)
			}
		}
		if len(strings.Join(argv, "")) < 64<<10 {
			checkShellRoundTrip(t, argv)
		}
	})
}

// tokens are the strings argv may hold besides the prompt.
func (c Config) tokens(sessionID string) []string {
	var out []string
	out = append(out, c.Command)
	for _, l := range [][]string{c.Args, c.PromptArgs, c.ResumeArgs, c.SessionIDArgs} {
		out = append(out, l...)
	}
	return append(out, sessionID)
}

func cutPrefix(t *testing.T, s, prefix []string) []string {
	t.Helper()
	if len(s) < len(prefix) || !slices.Equal(s[:len(prefix)], prefix) {
		t.Fatalf("argv %q does not start with %q", s, prefix)
	}
	return s[len(prefix):]
}

func count(s []string, v string) int {
	n := 0
	for _, e := range s {
		if e == v {
			n++
		}
	}
	return n
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}

// checkShellRoundTrip runs shellquote.Join(argv) through /bin/sh and checks
// that the shell hands printf exactly argv.
func checkShellRoundTrip(t testing.TB, argv []string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `printf '%s\0' `+shellquote.Join(argv))
	cmd.Env = []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh: %v: %s", err, stderr.Bytes())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, argv) {
		t.Fatalf("through /bin/sh: %q, want %q", got, argv)
	}
}
