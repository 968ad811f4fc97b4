package fake

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func commands(hs []Handler) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Command)
	}
	return out
}

func TestMatching(t *testing.T) {
	cfg := HookConfig{
		SessionStart: {
			{Matcher: "", Hooks: []Handler{{Type: "command", Command: "all"}}},
			{Matcher: "startup", Hooks: []Handler{{Type: "command", Command: "startup"}}},
			{Matcher: "resume|clear", Hooks: []Handler{{Type: "command", Command: "resume-or-clear"}}},
			{Matcher: "*", Hooks: []Handler{{Type: "command", Command: "star"}, {Type: "prompt", Command: "not-a-command"}}},
			{Matcher: "start", Hooks: []Handler{{Type: "command", Command: "prefix-only"}}},
			{Matcher: "[", Hooks: []Handler{{Type: "command", Command: "bad-regexp"}}},
		},
		Stop: {{Matcher: "ignored", Hooks: []Handler{{Type: "command", Command: "stop"}}}},
	}
	tests := []struct {
		event, target string
		want          []string
	}{
		{SessionStart, "startup", []string{"all", "startup", "star"}},
		{SessionStart, "resume", []string{"all", "resume-or-clear", "star"}},
		{SessionStart, "clear", []string{"all", "resume-or-clear", "star"}},
		{SessionStart, "[", []string{"all", "star", "bad-regexp"}},
		{Stop, "", []string{"stop"}},
		{SessionEnd, "other", nil},
	}
	for _, tt := range tests {
		t.Run(tt.event+"/"+tt.target, func(t *testing.T) {
			if got := commands(cfg.Matching(tt.event, tt.target)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Matching(%q, %q) = %q, want %q", tt.event, tt.target, got, tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func settings(event, matcher string, cmds ...string) string {
	var hs []Handler
	for _, c := range cmds {
		hs = append(hs, Handler{Type: "command", Command: c, Timeout: 5})
	}
	data, _ := json.Marshal(map[string]any{
		"model": "ignored",
		"hooks": HookConfig{event: {{Matcher: matcher, Hooks: hs}}},
	})
	return string(data)
}

func TestLoadClaudeHooksMergesLevels(t *testing.T) {
	configDir, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(configDir, "settings.json"), settings(SessionStart, "", "user", "same"))
	writeFile(t, filepath.Join(cwd, ".claude", "settings.json"), settings(SessionStart, "startup", "project", "same"))
	writeFile(t, filepath.Join(cwd, ".claude", "settings.local.json"), settings(SessionStart, "resume", "local"))
	flagFile := filepath.Join(t.TempDir(), "s.json")
	writeFile(t, flagFile, settings(SessionStart, "*", "flag", "same"))

	for _, flag := range []string{flagFile, settings(SessionStart, "*", "flag", "same")} {
		cfg, warnings, err := LoadClaudeHooks(configDir, cwd, flag)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("LoadClaudeHooks: %v %q", err, warnings)
		}
		if got, want := commands(cfg.Matching(SessionStart, "startup")), []string{"user", "same", "project", "flag"}; !reflect.DeepEqual(got, want) {
			t.Errorf("startup handlers = %q, want %q", got, want)
		}
		if got, want := commands(cfg.Matching(SessionStart, "resume")), []string{"user", "same", "local", "flag"}; !reflect.DeepEqual(got, want) {
			t.Errorf("resume handlers = %q, want %q", got, want)
		}
	}
}

func TestLoadClaudeHooksErrors(t *testing.T) {
	configDir, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(cwd, ".claude", "settings.json"), "{not json")
	writeFile(t, filepath.Join(cwd, ".claude", "settings.local.json"), settings(Stop, "", "local"))
	cfg, warnings, err := LoadClaudeHooks(configDir, cwd, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "settings.json") {
		t.Errorf("warnings = %q, want one about the broken project settings", warnings)
	}
	if got := commands(cfg.Matching(Stop, "")); !reflect.DeepEqual(got, []string{"local"}) {
		t.Errorf("a broken level must not hide the others: got %q", got)
	}
	for _, flag := range []string{filepath.Join(cwd, "missing.json"), "{broken"} {
		if _, _, err := LoadClaudeHooks(configDir, cwd, flag); err == nil {
			t.Errorf("--settings %q: want an error", flag)
		}
	}
}

func TestRunnerPayloadEnvAndOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	r := &Runner{Env: []string{"PATH=" + os.Getenv("PATH"), "FOO=inherited", "KEEP=kept"}}
	res := r.Run(context.Background(), []Handler{
		{Type: "command", Command: `cat > ` + out + `; printf '%s %s' "$FOO" "$KEEP" > ` + out + `.env; echo printed`},
		{Type: "command", Command: "exit 3"},
	}, map[string]any{"session_id": "s1"}, "FOO=extra")
	if string(res[0].Stdout) != "printed\n" || res[0].Err != nil {
		t.Errorf("first handler: stdout %q err %v", res[0].Stdout, res[0].Err)
	}
	if res[1].Err == nil {
		t.Error("failing handler: want its error reported")
	}
	if b, _ := os.ReadFile(out); string(b) != `{"session_id":"s1"}` {
		t.Errorf("stdin = %q", b)
	}
	if b, _ := os.ReadFile(out + ".env"); string(b) != "extra kept" {
		t.Errorf("env = %q, want the extra variable to override", b)
	}
}

func TestRunnerTimeouts(t *testing.T) {
	r := &Runner{}
	tests := []struct {
		name    string
		ctx     time.Duration
		handler Handler
	}{
		{"own timeout", time.Minute, Handler{Type: "command", Command: "sleep 5", Timeout: 0.2}},
		{"shared budget", 200 * time.Millisecond, Handler{Type: "command", Command: "sleep 5", Timeout: 60}},
		{"child of the shell", time.Minute, Handler{Type: "command", Command: "sleep 5; true", Timeout: 0.2}},
		{"grandchild holds stdout", time.Minute, Handler{Type: "command", Command: "(sleep 5 &); true", Timeout: 60}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.ctx)
			defer cancel()
			start := time.Now()
			r.Run(ctx, []Handler{tt.handler}, map[string]any{})
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v, want well under a second", d)
			}
		})
	}
}
