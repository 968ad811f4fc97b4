package fake

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseNotify(t *testing.T) {
	tests := []struct {
		name, toml string
		want       []string
		wantErr    bool
	}{
		{"none", "model = \"x\"\n", nil, false},
		{"basic", `notify = ["reprise", "hook", "codex", "notify"]`, []string{"reprise", "hook", "codex", "notify"}, false},
		{"escapes and literal", `notify = ["/opt/my \"app\"/bin", 'C:\raw', "tab\t"] # comment`, []string{`/opt/my "app"/bin`, `C:\raw`, "tab\t"}, false},
		{"multi-line", "notify = [\n  \"a\", # first\n  \"b\",\n]\nmodel = \"m\"", []string{"a", "b"}, false},
		{"in a table is not top-level", "[tui]\nnotify = [\"x\"]\n", nil, false},
		{"after other keys", "model = \"m\"\n# notify = [\"no\"]\nnotify=[\"yes\"]\n[projects.\"/w\"]\n", []string{"yes"}, false},
		{"not an array", `notify = "prog"`, nil, true},
		{"not strings", `notify = [1, 2]`, nil, true},
		{"unterminated", `notify = ["a"`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNotify(tt.toml)
			if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseNotify = %q, %v; want %q, err %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func FuzzParseNotify(f *testing.F) {
	for _, s := range []string{`notify = ["a", 'b']`, "notify = [\n\"a\\\"\",\n]", `notify = ["`, "[t]\nnotify=[]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseNotify(s) // must not panic or hang
	})
}

func TestCodexRollout(t *testing.T) {
	home := t.TempDir()
	start := time.Date(2026, 11, 3, 14, 5, 9, 0, time.Local)
	id := NewUUIDv7(start)
	if _, err := FindCodexRollout(home, id); !errors.Is(err, ErrNoRollout) {
		t.Fatalf("FindCodexRollout before any turn: %v", err)
	}
	r := &CodexRollout{Path: CodexRolloutPath(home, start, id), ThreadID: id, Cwd: "/w", Start: start}
	if want := filepath.Join(home, "sessions", "2026", "11", "03", "rollout-2026-11-03T14-05-09-"+id+".jsonl"); r.Path != want {
		t.Errorf("path = %s, want %s", r.Path, want)
	}
	turn1 := []Message{{"user", "say DURIAN"}, {"assistant", "ack: say DURIAN"}}
	turn2 := []Message{{"user", "more"}, {"assistant", "ack: more"}}
	for _, turn := range [][]Message{turn1, turn2} {
		if err := r.Append(turn...); err != nil {
			t.Fatal(err)
		}
	}
	path, err := FindCodexRollout(home, strings.ToUpper(id))
	if err != nil || path != r.Path {
		t.Fatalf("FindCodexRollout = %s, %v", path, err)
	}
	got, msgs, err := ReadCodexRollout(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.ThreadID != id || got.Cwd != "/w" || !reflect.DeepEqual(msgs, append(turn1, turn2...)) {
		t.Errorf("read %+v %+v", got, msgs)
	}
}

func TestCodexHooksTrusted(t *testing.T) {
	home := t.TempDir()
	hooks := []byte(`{"hooks":{}}`)
	if CodexHooksTrusted(home, hooks) {
		t.Fatal("trusted without a trust file")
	}
	writeFile(t, CodexTrustPath(home), "deadbeef\n"+HashHooks(hooks)+"\n")
	if !CodexHooksTrusted(home, hooks) {
		t.Error("listed hash not trusted")
	}
	if CodexHooksTrusted(home, []byte(`{"hooks":{"Stop":[]}}`)) {
		t.Error("changed hooks.json still trusted")
	}
	_ = os.Remove(CodexTrustPath(home))
}
