package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wantOrder is the order of AGENTS.md's catalog table.
var wantOrder = []string{
	"claude", "codex", "gemini", "amp", "opencode", "pi", "copilot",
	"cursor-agent", "droid", "kimi", "mastracode", "vibe", "grok",
}

func TestBuiltins(t *testing.T) {
	agents := Builtins()
	var ids []string
	for _, a := range agents {
		ids = append(ids, a.ID)
	}
	if !slices.Equal(ids, wantOrder) {
		t.Fatalf("ids = %q, want %q", ids, wantOrder)
	}
	seen := map[string]bool{}
	for _, a := range agents {
		t.Run(a.ID, func(t *testing.T) {
			if seen[a.ID] {
				t.Errorf("duplicate id %q", a.ID)
			}
			seen[a.ID] = true
			if err := ValidateConfig(a.Config()); err != nil {
				t.Errorf("ValidateConfig: %v", err)
			}
			if strings.TrimSpace(a.Label) == "" {
				t.Error("empty label")
			}
			if a.Command != a.ID {
				// True of every builtin today; a deliberate exception
				// belongs in this test.
				t.Errorf("command %q differs from id", a.Command)
			}
			switch a.Tracking {
			case TrackingHooks, TrackingPlugin, TrackingNone:
			default:
				t.Errorf("tracking %q", a.Tracking)
			}
			if len(a.ResumeArgs) == 0 {
				t.Error("no resume args: every builtin can resume by id")
			}
			if (len(a.SessionIDArgs) == 0) != (a.SessionIDKind == "") {
				t.Errorf("session id args %q with kind %q", a.SessionIDArgs, a.SessionIDKind)
			}
		})
	}
}

func TestBuiltinsAreCopies(t *testing.T) {
	a := Builtins()
	a[0].ResumeArgs[0] = "--changed"
	a[0].Label = "changed"
	a[0].Env = map[string]string{"X": "1"}
	b, ok := ByID(a[0].ID)
	if !ok {
		t.Fatalf("ByID(%q) not found", a[0].ID)
	}
	if b.ResumeArgs[0] == "--changed" || b.Label == "changed" || b.Env != nil {
		t.Fatalf("Builtins shares state: %+v", b)
	}
	b.SessionIDArgs[0] = "--changed"
	c := b.Config()
	c.SessionIDArgs[0] = "--also-changed"
	if b.SessionIDArgs[0] != "--changed" {
		t.Fatal("Config shares slices with its Agent")
	}
	if d, _ := ByID(a[0].ID); d.SessionIDArgs[0] != "--session-id" {
		t.Fatal("ByID shares state")
	}
}

func TestByID(t *testing.T) {
	tests := []struct {
		id    string
		label string
		ok    bool
	}{
		{"claude", "Claude Code", true},
		{"codex", "Codex", true},
		{"gemini", "Gemini CLI", true},
		{"amp", "Amp", true},
		{"opencode", "OpenCode", true},
		{"pi", "pi", true},
		{"copilot", "GitHub Copilot CLI", true},
		{"cursor-agent", "Cursor Agent", true},
		{"droid", "Droid", true},
		{"kimi", "Kimi CLI", true},
		{"mastracode", "Mastra Code", true},
		{"vibe", "Mistral Vibe", true},
		{"grok", "Grok CLI", true},
		{"", "", false},
		{"Claude", "", false},
		{"nope", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			a, ok := ByID(tt.id)
			if ok != tt.ok || a.Label != tt.label {
				t.Errorf("ByID(%q) = %q, %v; want %q, %v", tt.id, a.Label, ok, tt.label, tt.ok)
			}
		})
	}
}

// TestMatchesAgentsDoc compares the catalog with the table in
// shared/AGENTS.md, which lives beside the repository.
func TestMatchesAgentsDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "AGENTS.md"))
	if err != nil {
		t.Skipf("shared/AGENTS.md not beside the repository: %v", err)
	}
	var rows [][]string
	for line := range strings.Lines(string(doc)) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) != 8 || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| id ") {
			continue
		}
		rows = append(rows, cells[1:7])
	}
	if len(rows) != len(builtins) {
		t.Fatalf("AGENTS.md has %d catalog rows, the catalog %d agents", len(rows), len(builtins))
	}
	for i, row := range rows {
		a := builtins[i]
		t.Run(a.ID, func(t *testing.T) {
			id, command, resume := strings.TrimSpace(row[0]), strings.TrimSpace(row[1]), row[2]
			if id != a.ID || command != "`"+a.Command+"`" {
				t.Errorf("row %q %s, agent %q %q", id, command, a.ID, a.Command)
			}
			if !strings.Contains(resume, "`"+strings.Join(a.ResumeArgs, " ")+"`") {
				t.Errorf("resume args %q not in %q", a.ResumeArgs, resume)
			}
			if len(a.SessionIDArgs) > 0 && !strings.Contains(row[4], "`"+strings.Join(a.SessionIDArgs, " ")+" ") {
				t.Errorf("session id args %q not in %q", a.SessionIDArgs, row[4])
			}
			if len(a.PromptArgs) > 0 && !strings.Contains(row[3], "`"+a.PromptArgs[0]+"`") {
				t.Errorf("prompt args %q not in %q", a.PromptArgs, row[3])
			}
		})
	}
}
