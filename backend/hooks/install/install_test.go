package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"time"
)

const exe = "/opt/reprise/bin/reprise"

func newInstaller(t *testing.T) Installer {
	t.Helper()
	return Installer{Home: t.TempDir(), Exe: exe}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func target(t *testing.T, in Installer, agent string) Target {
	t.Helper()
	tg, err := in.Target(agent)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// installedCommands reads Reprise's commands back out of an agent's file
// (by event), independently of the code under test.
func installedCommands(t *testing.T, agent, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(ev, cmd string) {
		if _, ok := parseCommand(cmd); !ok {
			return
		}
		if _, dup := out[ev]; dup {
			t.Fatalf("%s: two Reprise commands for %s", path, ev)
		}
		out[ev] = cmd
	}
	data := readFile(t, path)
	spec := agents[agent].json
	if spec == nil {
		var v struct {
			Hooks []struct{ Event, Command string }
		}
		if err := toml.Unmarshal([]byte(strings.TrimPrefix(data, "\xef\xbb\xbf")), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, h := range v.Hooks {
			add(h.Event, h.Command)
		}
		return out
	}
	v, ok := standardValue([]byte(data))
	if !ok {
		t.Fatalf("%s does not parse:\n%s", path, data)
	}
	for _, k := range spec.container {
		v = v.(map[string]any)[k]
	}
	for ev, arr := range v.(map[string]any) {
		list, _ := arr.([]any)
		for _, el := range list {
			m, _ := el.(map[string]any)
			if s, ok := m[spec.cmdKey].(string); ok {
				add(ev, s)
			}
			hs, _ := m["hooks"].([]any)
			for _, h := range hs {
				if s, ok := h.(map[string]any)[spec.cmdKey].(string); ok {
					add(ev, s)
				}
			}
		}
	}
	return out
}

func TestInstallStatusRemoveEachAgent(t *testing.T) {
	for _, agent := range Supported() {
		t.Run(agent, func(t *testing.T) {
			in := newInstaller(t)
			tg := target(t, in, agent)
			if !strings.HasPrefix(tg.Path, in.Home+"/") {
				t.Fatalf("path %s outside home", tg.Path)
			}
			if st, err := in.Status(agent); err != nil || st.Installed || st.Partial {
				t.Fatalf("before: %+v %v", st, err)
			}
			if err := in.Install(agent); err != nil {
				t.Fatal(err)
			}
			first := readFile(t, tg.Path)
			fi, _ := os.Stat(tg.Path)
			if fi.Mode().Perm() != 0o600 {
				t.Fatalf("new file mode %v", fi.Mode().Perm())
			}
			di, _ := os.Stat(filepath.Dir(tg.Path))
			if di.Mode().Perm() != 0o700 {
				t.Fatalf("new dir mode %v", di.Mode().Perm())
			}
			cmds := installedCommands(t, agent, tg.Path)
			for _, ev := range tg.Events {
				if cmds[ev] != Command(exe, agent, ev) {
					t.Fatalf("%s: got %q", ev, cmds[ev])
				}
			}
			if len(cmds) != len(tg.Events) {
				t.Fatalf("commands %v for events %v", cmds, tg.Events)
			}
			st, err := in.Status(agent)
			if err != nil || !st.Installed || st.Partial || st.Path != tg.Path || st.Agent != agent {
				t.Fatalf("after install: %+v %v", st, err)
			}

			if err := in.Install(agent); err != nil {
				t.Fatal(err)
			}
			if again := readFile(t, tg.Path); again != first {
				t.Fatalf("second install changed the file:\n%s\nthen\n%s", first, again)
			}

			if err := in.Remove(agent); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tg.Path); !os.IsNotExist(err) {
				t.Fatalf("file Reprise created is still there: %v\n%s", err, readFile(t, tg.Path))
			}
			if _, err := os.Stat(filepath.Dir(tg.Path)); !os.IsNotExist(err) {
				t.Fatalf("directory Reprise created is still there: %v", err)
			}
			if st, err := in.Status(agent); err != nil || st.Installed || st.Partial {
				t.Fatalf("after remove: %+v %v", st, err)
			}
			if err := in.Remove(agent); err != nil {
				t.Fatalf("second remove: %v", err)
			}
			if _, err := os.Stat(in.statePath()); !os.IsNotExist(err) {
				t.Fatalf("state file left with no records: %v", err)
			}
			assertNoTempFiles(t, in.Home)
		})
	}
}

func assertNoTempFiles(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") && strings.HasSuffix(d.Name(), ".tmp") { // atomicfile's temporary names
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestHandlerShapes(t *testing.T) {
	in := newInstaller(t)
	for _, agent := range Supported() {
		if err := in.Install(agent); err != nil {
			t.Fatal(err)
		}
	}
	decode := func(agent string) map[string]any {
		var v map[string]any
		if err := json.Unmarshal([]byte(readFile(t, target(t, in, agent).Path)), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	cmd := func(agent, ev string) string { return Command(exe, agent, ev) }
	group := func(h map[string]any) []any { return []any{map[string]any{"hooks": []any{h}}} }

	claude := decode("claude")
	if got, want := claude["hooks"].(map[string]any)["SessionEnd"], group(map[string]any{"type": "command", "command": cmd("claude", "SessionEnd"), "timeout": 1.0}); !reflect.DeepEqual(got, want) {
		t.Errorf("claude SessionEnd: %v", got)
	}
	if got, want := claude["hooks"].(map[string]any)["StopFailure"], group(map[string]any{"type": "command", "command": cmd("claude", "StopFailure"), "timeout": 5.0}); !reflect.DeepEqual(got, want) {
		t.Errorf("claude StopFailure: %v", got)
	}
	gemini := decode("gemini")
	if got, want := gemini["hooks"].(map[string]any)["BeforeAgent"], group(map[string]any{"name": "reprise", "type": "command", "command": cmd("gemini", "BeforeAgent"), "timeout": 5000.0}); !reflect.DeepEqual(got, want) {
		t.Errorf("gemini BeforeAgent: %v", got)
	}
	copilot := decode("copilot")
	if copilot["version"] != 1.0 {
		t.Errorf("copilot version: %v", copilot["version"])
	}
	if got, want := copilot["hooks"].(map[string]any)["sessionStart"], []any{map[string]any{"type": "command", "bash": cmd("copilot", "sessionStart"), "timeoutSec": 5.0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("copilot sessionStart: %v", got)
	}
	cursor := decode("cursor-agent")
	if cursor["version"] != 1.0 {
		t.Errorf("cursor version: %v", cursor["version"])
	}
	if got, want := cursor["hooks"].(map[string]any)["beforeSubmitPrompt"], []any{map[string]any{"command": cmd("cursor-agent", "beforeSubmitPrompt")}}; !reflect.DeepEqual(got, want) {
		t.Errorf("cursor beforeSubmitPrompt: %v", got)
	}
	mastra := decode("mastracode")
	if got, want := mastra["Stop"], []any{map[string]any{"type": "command", "command": cmd("mastracode", "Stop"), "timeout": 5000.0, "description": "Reprise session tracking"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("mastracode Stop: %v", got)
	}
	for _, agent := range []string{"codex", "droid"} {
		h := decode(agent)["hooks"].(map[string]any)
		if _, ok := h["StopFailure"]; ok {
			t.Errorf("%s: StopFailure installed", agent)
		}
		if got, want := h["Stop"], group(map[string]any{"type": "command", "command": cmd(agent, "Stop"), "timeout": 5.0}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s Stop: %v", agent, got)
		}
	}
	kimi := readFile(t, target(t, in, "kimi").Path)
	wantBlock := tomlBegin + "\nhooks = [\n  { event = \"SessionStart\", command = \"[ -n \\\"$REPRISE_TERMINAL_ID\\\" ] && '" + exe + "' hook kimi SessionStart || true\", timeout = 5 },\n"
	if !strings.HasPrefix(kimi, wantBlock) || !strings.HasSuffix(kimi, "timeout = 1 },\n]\n"+tomlEnd+"\n") {
		t.Errorf("kimi block:\n%s", kimi)
	}
}

// Realistic originals: each must come back byte for byte after Install then
// Remove, and Install must leave every user value as it was.
var claudeOriginals = map[string]string{
	"two spaces, user hooks on the same events": `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm run test:*)",
      "Read(~/.zshrc)"
    ],
    "deny": []
  },
  "env": {
    "GREETING": "caf\u00e9 \"quoted\" \/ slash \t tab",
    "LITERAL": "naïve — 日本語 😀",
    "EMPTY": ""
  },
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo 'hello' >> ~/.claude/log",
            "timeout": 30
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send \"done\""
          },
          {
            "type": "command",
            "command": "'/opt/reprise/bin/reprise' hook claude Stop"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/check-bash"
          }
        ]
      }
    ]
  },
  "cleanupPeriodDays": 1.5e1,
  "includeCoAuthoredBy": false,
  "statusLine": null
}
`,
	"four spaces, no trailing newline": `{
    "theme": "dark",
    "hooks": {
        "UserPromptSubmit": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "python3 ~/hooks/prompt.py"
                    }
                ]
            }
        ]
    },
    "numbers": [1, 2.50, -0, 1E+2]
}`,
	"tabs and crlf": "{\r\n\t\"enabledPlugins\": {\r\n\t\t\"x@y\": true\r\n\t},\r\n\t\"apiKeyHelper\": \"~/bin/key \\u003c\\u003e\"\r\n}\r\n",
	"one line":      `{"model":"sonnet","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}` + "\n",
	"empty hooks object kept": `{
  "hooks": {},
  "model": "opus"
}
`,
	"empty file object": "{}\n",
	"hand formatting outside hooks": `{
  "permissions": { "allow": ["Read", "Write"],   "deny": [ ] },
  "env": {"A":"1","B" : "2"},
  "hooks": {
    "Notification": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "beep"
          }
        ]
      }
    ]
  }
}
`,
	"bom and leading space": "\xef\xbb\xbf  {\n  \"model\": \"opus\"\n}\n\n",
}

var flatOriginals = map[string]map[string]string{
	"cursor-agent": {
		"user hooks on the same events": `{
  "version": 1,
  "hooks": {
    "afterFileEdit": [
      {
        "command": "./hooks/format.sh"
      }
    ],
    "stop": [
      {
        "command": "./hooks/audit.sh",
        "loop_limit": 10
      }
    ]
  }
}
`,
		"four spaces": "{\n    \"version\": 1,\n    \"hooks\": {\n        \"sessionStart\": [\n            {\n                \"command\": \"echo \\u00e9\"\n            }\n        ]\n    }\n}",
	},
	"mastracode": {
		"user hooks": `{
  "PreToolUse": [
    {
      "type": "command",
      "command": "node .mastracode/check.cjs",
      "matcher": "Bash",
      "timeout": 3000
    }
  ],
  "Stop": [
    {
      "type": "command",
      "command": "say done",
      "description": "ping"
    }
  ]
}
`,
	},
	"copilot": {
		"user added a hook to our file": `{
  "version": 1,
  "hooks": {
    "preToolUse": [
      {
        "type": "command",
        "bash": "./audit.sh"
      }
    ]
  }
}
`,
	},
}

func TestRoundTripByteForByte(t *testing.T) {
	type tc struct{ agent, name, original string }
	var cases []tc
	for _, agent := range []string{"claude", "codex", "gemini", "droid"} {
		for name, orig := range claudeOriginals {
			cases = append(cases, tc{agent, name, orig})
		}
	}
	for agent, m := range flatOriginals {
		for name, orig := range m {
			cases = append(cases, tc{agent, name, orig})
		}
	}
	for _, c := range cases {
		t.Run(c.agent+"/"+c.name, func(t *testing.T) {
			in := newInstaller(t)
			tg := target(t, in, c.agent)
			writeFile(t, tg.Path, c.original, 0o644)

			if err := in.Install(c.agent); err != nil {
				t.Fatal(err)
			}
			installed := readFile(t, tg.Path)
			if fi, _ := os.Stat(tg.Path); fi.Mode().Perm() != 0o644 {
				t.Fatalf("mode changed to %v", fi.Mode().Perm())
			}
			assertUserEntriesKept(t, c.agent, c.original, installed)
			if st, err := in.Status(c.agent); err != nil || !st.Installed {
				t.Fatalf("status %+v %v", st, err)
			}
			if err := in.Install(c.agent); err != nil {
				t.Fatal(err)
			}
			if again := readFile(t, tg.Path); again != installed {
				t.Fatalf("second install changed the file:\n%s\nthen\n%s", installed, again)
			}
			if err := in.Remove(c.agent); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, tg.Path); got != c.original {
				t.Fatalf("after install+remove:\n%q\nwant\n%q", got, c.original)
			}
			assertNoTempFiles(t, in.Home)
		})
	}
}

// assertUserEntriesKept: every value of the original is still there, equal,
// in order; only Reprise's handlers were added.
func assertUserEntriesKept(t *testing.T, agent, original, installed string) {
	t.Helper()
	var before, after map[string]any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(original, "\xef\xbb\xbf")), &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(installed, "\xef\xbb\xbf")), &after); err != nil {
		t.Fatalf("installed file is not json: %v\n%s", err, installed)
	}
	spec := agents[agent].json
	top := "" // the key holding the events
	if len(spec.container) > 0 {
		top = spec.container[0]
	}
	for k, v := range before {
		if k == top {
			continue
		}
		if top == "" {
			// Mastra Code: events at the top level; the user's entries are a prefix.
			list := after[k].([]any)
			if !reflect.DeepEqual(list[:len(v.([]any))], v) {
				t.Fatalf("%s changed: %v -> %v", k, v, after[k])
			}
			continue
		}
		if !reflect.DeepEqual(after[k], v) {
			t.Fatalf("%s changed: %v -> %v", k, v, after[k])
		}
	}
	if top == "" {
		return
	}
	hb, _ := before[top].(map[string]any)
	ha := after[top].(map[string]any)
	for ev, v := range hb {
		list := ha[ev].([]any)
		if !reflect.DeepEqual(list[:len(v.([]any))], v) {
			t.Fatalf("%s.%s changed: %v -> %v", top, ev, v, ha[ev])
		}
	}
	// Untouched values keep their exact text too.
	for _, lit := range []string{`"caf\u00e9 \"quoted\" \/ slash \t tab"`, `1.5e1`, `[1, 2.50, -0, 1E+2]`, `{ "allow": ["Read", "Write"],   "deny": [ ] }`, `"~/bin/key \u003c\u003e"`} {
		if strings.Contains(original, lit) && !strings.Contains(installed, lit) {
			t.Fatalf("%s was rewritten", lit)
		}
	}
}

func TestMergeKeepsUserHandlersInOurGroup(t *testing.T) {
	// The user moved our handler into their own matcher group, next to theirs,
	// and the binary has moved since: re-install updates ours in place.
	in := newInstaller(t)
	tg := target(t, in, "claude")
	old := Command("/old/reprise", "claude", "SessionStart")
	orig := `{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup|resume",
        "hooks": [
          {
            "type": "command",
            "command": "mine.sh"
          },
          {
            "type": "command",
            "command": ` + jsonString(old) + `,
            "timeout": 5
          }
        ]
      }
    ]
  }
}
`
	writeFile(t, tg.Path, orig, 0o600)
	st, err := in.Status("claude")
	if err != nil || st.Installed || !st.Partial || !strings.Contains(st.Note, "/old/reprise") {
		t.Fatalf("status before: %+v %v", st, err)
	}
	if err := in.Install("claude"); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(readFile(t, tg.Path)), &v); err != nil {
		t.Fatal(err)
	}
	ss := v.Hooks["SessionStart"]
	if len(ss) != 1 || ss[0].Matcher != "startup|resume" || len(ss[0].Hooks) != 2 ||
		ss[0].Hooks[0]["command"] != "mine.sh" || ss[0].Hooks[1]["command"] != Command(exe, "claude", "SessionStart") {
		t.Fatalf("SessionStart: %+v", ss)
	}
	if st, _ := in.Status("claude"); !st.Installed || st.Partial || st.Note != "" {
		t.Fatalf("status after: %+v", st)
	}
	if err := in.Remove("claude"); err != nil {
		t.Fatal(err)
	}
	want := `{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup|resume",
        "hooks": [
          {
            "type": "command",
            "command": "mine.sh"
          }
        ]
      }
    ]
  }
}
`
	if got := readFile(t, tg.Path); got != want {
		t.Fatalf("after remove:\n%s", got)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestReinstallAfterBinaryMoved(t *testing.T) {
	for _, agent := range Supported() {
		t.Run(agent, func(t *testing.T) {
			in := newInstaller(t)
			in.Exe = "/old place/reprise"
			if err := in.Install(agent); err != nil {
				t.Fatal(err)
			}
			in.Exe = exe
			st, err := in.Status(agent)
			if err != nil || st.Installed || !st.Partial || !strings.Contains(st.Note, "/old place/reprise") {
				t.Fatalf("status with a new binary: %+v %v", st, err)
			}
			if err := in.Install(agent); err != nil {
				t.Fatal(err)
			}
			tg := target(t, in, agent)
			for ev, cmd := range installedCommands(t, agent, tg.Path) { // also fails on duplicates
				if cmd != Command(exe, agent, ev) {
					t.Fatalf("%s still %q", ev, cmd)
				}
			}
			if st, _ := in.Status(agent); !st.Installed || st.Partial {
				t.Fatalf("status: %+v", st)
			}
			if err := in.Remove(agent); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tg.Path); !os.IsNotExist(err) {
				t.Fatalf("created file still there")
			}
		})
	}
}

func TestPartialStatus(t *testing.T) {
	in := newInstaller(t)
	tg := target(t, in, "cursor-agent")
	writeFile(t, tg.Path, `{"version":1,"hooks":{"stop":[{"command":`+jsonString(Command(exe, "cursor-agent", "stop"))+`}]}}`, 0o600)
	st, err := in.Status("cursor-agent")
	if err != nil || st.Installed || !st.Partial || !strings.Contains(st.Note, "sessionStart") {
		t.Fatalf("%+v %v", st, err)
	}
	// Another agent's entries in the file are not ours for this agent.
	writeFile(t, tg.Path, `{"version":1,"hooks":{"stop":[{"command":`+jsonString(Command(exe, "claude", "stop"))+`}]}}`, 0o600)
	if st, _ := in.Status("cursor-agent"); st.Installed || st.Partial {
		t.Fatalf("%+v", st)
	}
}

func TestMalformedConfigRefused(t *testing.T) {
	cases := []struct {
		agent, content string
		parses         bool // valid JSON of the wrong shape: only Install objects
	}{
		{"claude", `{"hooks": {`, false},
		{"claude", `{"a": 1} {"b": 2}`, false},
		{"claude", `[]`, true},
		{"claude", `{"hooks": []}`, true},
		{"claude", `{"hooks": {"Stop": {"command": "x"}}}`, true},
		{"gemini", "{\n  /* an unterminated comment\n  \"theme\": \"x\"\n}\n", false},
		{"gemini", `{"hooks": {"SessionStart": [],,}}`, false},
		{"gemini", "{\"a\": 1 // no closing brace\n", false},
		{"cursor-agent", `{"version": 1, "hooks": "none"}`, true},
		{"mastracode", `{"Stop": "say done"}`, true},
		{"droid", "\x00", false},
	}
	for _, c := range cases {
		t.Run(c.agent+"/"+c.content, func(t *testing.T) {
			in := newInstaller(t)
			tg := target(t, in, c.agent)
			writeFile(t, tg.Path, c.content, 0o644)
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			os.Chtimes(tg.Path, old, old)
			err := in.Install(c.agent)
			if err == nil {
				t.Fatalf("accepted:\n%s", readFile(t, tg.Path))
			}
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tg.Path) {
				t.Fatalf("error %q should name the file and wrap ErrMalformed", err)
			}
			rmErr := in.Remove(c.agent)
			_, stErr := in.Status(c.agent)
			if c.parses {
				if rmErr != nil || stErr != nil {
					t.Fatalf("remove %v, status %v", rmErr, stErr)
				}
			} else if !errors.Is(rmErr, ErrMalformed) || !errors.Is(stErr, ErrMalformed) {
				t.Fatalf("remove %v, status %v", rmErr, stErr)
			}
			if got := readFile(t, tg.Path); got != c.content {
				t.Fatalf("file changed to %q", got)
			}
			if fi, _ := os.Stat(tg.Path); !fi.ModTime().Equal(old) {
				t.Fatalf("file touched")
			}
			assertNoTempFiles(t, in.Home)
			if _, err := os.Stat(in.statePath()); !os.IsNotExist(err) {
				t.Fatalf("state recorded for a refused install")
			}
		})
	}
}

func TestRemoveWhenNotInstalledIsNoOp(t *testing.T) {
	in := newInstaller(t)
	for _, agent := range Supported() {
		if err := in.Remove(agent); err != nil {
			t.Fatalf("%s: %v", agent, err)
		}
		if _, err := os.Stat(target(t, in, agent).Path); !os.IsNotExist(err) {
			t.Fatalf("%s: remove created the file", agent)
		}
	}
	tg := target(t, in, "claude")
	orig := "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"x\"\n          }\n        ]\n      }\n    ]\n  }\n}\n"
	writeFile(t, tg.Path, orig, 0o644)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(tg.Path, old, old)
	if err := in.Remove("claude"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(tg.Path); readFile(t, tg.Path) != orig || !fi.ModTime().Equal(old) {
		t.Fatalf("file touched")
	}
	if entries, _ := os.ReadDir(in.Home); len(entries) != 1 {
		t.Fatalf("remove left things in home: %v", entries)
	}
}

func TestRemoveWithoutStateKeepsFileButNotOurs(t *testing.T) {
	in := newInstaller(t)
	if err := in.Install("claude"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(in.statePath()); err != nil {
		t.Fatal(err)
	}
	if err := in.Remove("claude"); err != nil {
		t.Fatal(err)
	}
	// Without a record Reprise cannot show it created the file: it stays,
	// emptied of what only Reprise's entries filled.
	if got := readFile(t, target(t, in, "claude").Path); got != "{}\n" {
		t.Fatalf("got %q", got)
	}
	// Copilot's file is Reprise's by name: it goes regardless.
	if err := in.Install("copilot"); err != nil {
		t.Fatal(err)
	}
	os.Remove(in.statePath())
	if err := in.Remove("copilot"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target(t, in, "copilot").Path); !os.IsNotExist(err) {
		t.Fatalf("copilot file kept")
	}
}

func TestBlankFileRestored(t *testing.T) {
	in := newInstaller(t)
	tg := target(t, in, "droid")
	writeFile(t, tg.Path, "\n", 0o640)
	if err := in.Install("droid"); err != nil {
		t.Fatal(err)
	}
	if st, _ := in.Status("droid"); !st.Installed {
		t.Fatalf("%+v", st)
	}
	if err := in.Remove("droid"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, tg.Path); got != "\n" {
		t.Fatalf("got %q", got)
	}
}

func TestSymlinkedConfigStaysALink(t *testing.T) {
	in := newInstaller(t)
	tg := target(t, in, "claude")
	real := filepath.Join(in.Home, "dotfiles", "claude-settings.json")
	orig := "{\n  \"model\": \"opus\"\n}\n"
	writeFile(t, real, orig, 0o644)
	os.MkdirAll(filepath.Dir(tg.Path), 0o755)
	if err := os.Symlink("../dotfiles/claude-settings.json", tg.Path); err != nil {
		t.Fatal(err)
	}
	if err := in.Install("claude"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(tg.Path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v", err)
	}
	if !strings.Contains(readFile(t, real), "hook claude SessionStart") {
		t.Fatalf("target not edited")
	}
	if err := in.Remove("claude"); err != nil {
		t.Fatal(err)
	}
	if readFile(t, real) != orig {
		t.Fatalf("not restored: %q", readFile(t, real))
	}
}

func TestConfigDirOverrides(t *testing.T) {
	in := newInstaller(t)
	in.ClaudeConfigDir = filepath.Join(in.Home, "claude-alt")
	in.CodexHome = filepath.Join(in.Home, "codex-alt")
	if p := target(t, in, "claude").Path; p != filepath.Join(in.Home, "claude-alt", "settings.json") {
		t.Fatal(p)
	}
	if p := target(t, in, "codex").Path; p != filepath.Join(in.Home, "codex-alt", "hooks.json") {
		t.Fatal(p)
	}
}

func TestUnavailableAgents(t *testing.T) {
	in := newInstaller(t)
	for _, agent := range []string{"amp", "opencode", "pi"} {
		st, err := in.Status(agent)
		if err != nil || st.Installed || st.Partial || st.Note != "session tracking not available yet" || st.Agent != agent {
			t.Fatalf("%s status: %+v %v", agent, st, err)
		}
		err = in.Install(agent)
		if !errors.Is(err, ErrNotAvailable) || !strings.Contains(err.Error(), "session tracking not available yet") {
			t.Fatalf("%s install: %v", agent, err)
		}
	}
	for _, agent := range []string{"vibe", "grok"} {
		if err := in.Install(agent); !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("%s: %v", agent, err)
		}
	}
	if err := in.Install("nope"); !errors.Is(err, ErrUnknownAgent) {
		t.Fatal(err)
	}
	if _, err := in.Status("nope"); !errors.Is(err, ErrUnknownAgent) {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(in.Home); len(entries) != 0 {
		t.Fatalf("home touched: %v", entries)
	}
}

func TestInstallerValidation(t *testing.T) {
	home := t.TempDir()
	for _, in := range []Installer{
		{Home: home, Exe: "reprise"},
		{Home: home, Exe: ""},
		{Home: home, Exe: "/a/b\nc"},
		{Home: "relative", Exe: exe},
		{Home: "", Exe: exe},
	} {
		if err := in.Install("claude"); err == nil {
			t.Errorf("%+v accepted", in)
		}
	}
	if _, err := ClaudeSettingsJSON("bin/reprise"); err == nil {
		t.Error("relative exe accepted")
	}
}

func TestSupportedAllHaveInstallers(t *testing.T) {
	if len(Supported()) != len(agents) {
		t.Fatalf("Supported %v, installers %d", Supported(), len(agents))
	}
	for _, a := range Supported() {
		if _, ok := agents[a]; !ok {
			t.Errorf("%s has no installer", a)
		}
	}
}

func TestClaudeSettingsJSON(t *testing.T) {
	b, err := ClaudeSettingsJSON("/Applications/Re prise.app/reprise")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var events []string
	for ev, groups := range v.Hooks {
		events = append(events, ev)
		if len(groups) != 1 || groups[0].Matcher != nil || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s: %+v", ev, groups)
		}
		h := groups[0].Hooks[0]
		wantTimeout := 5
		if ev == "SessionEnd" {
			wantTimeout = 1
		}
		if h.Type != "command" || h.Command != Command("/Applications/Re prise.app/reprise", "claude", ev) || h.Timeout != wantTimeout {
			t.Fatalf("%s: %+v", ev, h)
		}
	}
	slices.Sort(events)
	if want := []string{"Notification", "PostToolUse", "SessionEnd", "SessionStart", "Stop", "StopFailure", "UserPromptSubmit"}; !slices.Equal(events, want) {
		t.Fatalf("events %v", events)
	}
	// Same bytes as the settings.json Install writes for a new file.
	in := Installer{Home: t.TempDir(), Exe: "/Applications/Re prise.app/reprise"}
	if err := in.Install("claude"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, target(t, in, "claude").Path); got != string(b) {
		t.Fatalf("differs from installed settings:\n%s\n%s", b, got)
	}
}

func TestConcurrentInstallsShareState(t *testing.T) {
	in := newInstaller(t)
	var wg sync.WaitGroup
	errs := make(chan error, len(Supported()))
	for _, agent := range Supported() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := in.Install(agent); err != nil {
				errs <- fmt.Errorf("%s: %w", agent, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := in.loadState()
	if len(st.Files) != len(Supported()) {
		t.Fatalf("state has %d records", len(st.Files))
	}
	for _, agent := range Supported() {
		if err := in.Remove(agent); err != nil {
			t.Fatal(err)
		}
	}
	if entries, _ := os.ReadDir(in.Home); len(entries) != 1 { // .config (Reprise's own)
		t.Fatalf("left in home: %v", entries)
	}
}
