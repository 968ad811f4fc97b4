package install

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

func TestKimiRoundTrip(t *testing.T) {
	originals := map[string]string{
		"tables and user hooks": `# Kimi config
default_model = "kimi-k2"

[models.kimi-k2]
provider = "moonshot"
max_context_size = 262144

[[hooks]]
event = "PreToolUse"
matcher = "Shell"
command = "~/bin/check.sh"
timeout = 10

[services.search]
url = "https://example.invalid/search"
`,
		"no trailing newline":    "default_model = \"kimi\"\n[loop_control]\nmax_steps_per_run = 100",
		"crlf":                   "default_model = \"kimi\"\r\n\r\n[loop_control]\r\nmax_retries_per_step = 3\r\n",
		"empty":                  "",
		"multi-line string":      "notes = \"\"\"\nhooks = this is text, not a key\n\"\"\"\n",
		"hooks key inside table": "[ui]\nhooks = false\n",
		"bom and comments":       "\xef\xbb\xbf# my kimi\ndefault_model = \"kimi\"   # inline comment\n\n[ui]\n  theme   =   'dark'\n",
		"odd spacing and arrays": "a=[1,\n  2,\n]\n\n\n[t]\nb = { c = 1 }\n",
		"two user hook tables":   "x = 1\n[[hooks]]\nevent = \"Stop\"\ncommand = \"a\"\n\n[[ hooks ]]\nevent = \"Stop\"\ncommand = \"b\"\n[z]\ny = 2\n",
	}
	for name, orig := range originals {
		t.Run(name, func(t *testing.T) {
			in := newInstaller(t)
			tg := target(t, in, "kimi")
			writeFile(t, tg.Path, orig, 0o640)
			if err := in.Install("kimi"); err != nil {
				t.Fatal(err)
			}
			got := readFile(t, tg.Path)
			start, end, ok, err := blockRange(got)
			if err != nil || !ok {
				t.Fatalf("no block (%v):\n%s", err, got)
			}
			if got[:start]+got[end:] != orig {
				t.Fatalf("user part changed:\n%q", got)
			}
			block := got[start:end]
			if strings.Contains(orig, "[[hooks]]") != strings.HasPrefix(got[end:], "[[hooks]]") {
				t.Fatalf("block not before the user's [[hooks]] (or first in the file):\n%s", got)
			}
			if strings.Contains(orig, "\r\n") != strings.Contains(block, "\r\n") {
				t.Fatalf("line endings not matched: %q", block)
			}
			assertTOMLValues(t, got, orig)
			if fi, _ := os.Stat(tg.Path); fi.Mode().Perm() != 0o640 {
				t.Fatalf("mode %v", fi.Mode().Perm())
			}
			for _, ev := range tg.Events {
				if c := installedCommands(t, "kimi", tg.Path)[ev]; c != Command(exe, "kimi", ev) {
					t.Fatalf("%s: %q", ev, c)
				}
			}
			if st, err := in.Status("kimi"); err != nil || !st.Installed {
				t.Fatalf("%+v %v", st, err)
			}
			if err := in.Install("kimi"); err != nil {
				t.Fatal(err)
			}
			if again := readFile(t, tg.Path); again != got {
				t.Fatalf("second install changed the file")
			}
			if err := in.Remove("kimi"); err != nil {
				t.Fatal(err)
			}
			if after := readFile(t, tg.Path); after != orig {
				t.Fatalf("after remove:\n%q\nwant\n%q", after, orig)
			}
		})
	}
}

// assertTOMLValues: the installed config reads as the original's values
// plus Reprise's hooks, parsed independently of the installer.
func assertTOMLValues(t *testing.T, installed, orig string) {
	t.Helper()
	var got, want map[string]any
	if err := toml.Unmarshal([]byte(strings.TrimPrefix(installed, "\xef\xbb\xbf")), &got); err != nil {
		t.Fatalf("installed config does not parse: %v\n%s", err, installed)
	}
	if err := toml.Unmarshal([]byte(strings.TrimPrefix(orig, "\xef\xbb\xbf")), &want); err != nil {
		t.Fatal(err)
	}
	var user []any
	for _, h := range got["hooks"].([]any) {
		m := h.(map[string]any)
		if _, ok := parseCommand(m["command"].(string)); ok {
			if len(m) != 3 {
				t.Fatalf("Reprise's hook holds more than its own keys: %v", m)
			}
			continue
		}
		user = append(user, h)
	}
	delete(got, "hooks")
	if user != nil {
		got["hooks"] = user
	}
	if want == nil {
		want = map[string]any{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("installed config reads\n%v\nwant the user's\n%v", got, want)
	}
}

// The observed bug: a key the user adds after Reprise's block became a
// field of Reprise's last [[hooks]] entry. Now nothing the user appends can
// join Reprise's block, and remove gives the user's settings back.
func TestKimiKeyAddedAfterBlockStaysTheUsers(t *testing.T) {
	for name, orig := range map[string]string{
		"top-level keys only": "a = 1\n",
		"ends in a table":     "a = 1\n[ui]\nfont = \"mono\"\n",
		"empty":               "",
	} {
		t.Run(name, func(t *testing.T) {
			in := newInstaller(t)
			in.Exe = "/old/reprise"
			tg := target(t, in, "kimi")
			writeFile(t, tg.Path, orig, 0o600)
			if err := in.Install("kimi"); err != nil {
				t.Fatal(err)
			}
			f, _ := os.OpenFile(tg.Path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
			f.WriteString("theme = \"dark\"\n[extra]\nb = 2\n")
			f.Close()
			edited := orig + "theme = \"dark\"\n[extra]\nb = 2\n"
			assertTOMLValues(t, readFile(t, tg.Path), edited)
			// A new binary: the block is rewritten where it is.
			in.Exe = exe
			if st, _ := in.Status("kimi"); st.Installed || !st.Partial {
				t.Fatalf("%+v", st)
			}
			if err := in.Install("kimi"); err != nil {
				t.Fatal(err)
			}
			got := readFile(t, tg.Path)
			if strings.Contains(got, "/old/reprise") {
				t.Fatalf("old binary left:\n%s", got)
			}
			assertTOMLValues(t, got, edited)
			if err := in.Remove("kimi"); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, tg.Path); got != edited {
				t.Fatalf("after remove %q, want %q", got, edited)
			}
		})
	}
}

// An older Reprise put its [[hooks]] block last. A key the user added after
// it is read as part of Reprise's last hook: Reprise says so, names the key
// and leaves the file alone. Without such a key the block moves to the top.
func TestKimiOldBlockLast(t *testing.T) {
	old := "a = 1\n" + tomlBeginOld + "\n[[hooks]]\nevent = \"Stop\"\ncommand = " + tomlString(Command("/old/reprise", "kimi", "Stop")) + "\ntimeout = 5\n" + tomlEnd + "\n"
	in := newInstaller(t)
	tg := target(t, in, "kimi")
	absorbed := old + "theme = \"dark\"\n"
	writeFile(t, tg.Path, absorbed, 0o600)
	for op, err := range map[string]error{"install": in.Install("kimi"), "remove": in.Remove("kimi")} {
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "theme") || !strings.Contains(err.Error(), "move it above") {
			t.Fatalf("%s: %v", op, err)
		}
	}
	if _, err := in.Status("kimi"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("status: %v", err)
	}
	if readFile(t, tg.Path) != absorbed {
		t.Fatal("file changed")
	}
	writeFile(t, tg.Path, old, 0o600)
	if err := in.Install("kimi"); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, tg.Path)
	if !strings.HasPrefix(got, tomlBegin+"\nhooks = [") || !strings.HasSuffix(got, tomlEnd+"\na = 1\n") {
		t.Fatalf("block not moved to the top:\n%s", got)
	}
	if err := in.Remove("kimi"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, tg.Path); got != "a = 1\n" {
		t.Fatalf("got %q", got)
	}
}

func TestKimiRefusals(t *testing.T) {
	for name, content := range map[string]string{
		"top-level hooks array":   "hooks = []\n",
		"hooks table":             "[hooks]\nenabled = true\n",
		"dotted hooks table":      "[hooks.pre]\ncommand = \"x\"\n",
		"inline user hooks":       "hooks = [{ event = \"Stop\", command = \"x\" }]\n",
		"not toml":                "a = = 1\n",
		"duplicate key":           "a = 1\na = 2\n",
		"block without end":       "a = 1\n" + tomlBegin + "\n[[hooks]]\n",
		"two blocks":              tomlBegin + "\n" + tomlEnd + "\n" + tomlBegin + "\n" + tomlEnd + "\n",
		"end before begin":        tomlEnd + "\n" + tomlBegin + "\n",
		"dotted top-level hooks":  "hooks.enabled = true\n",
		"spaced top-level hooks ": "  hooks   = [ ]\n",
	} {
		t.Run(name, func(t *testing.T) {
			in := newInstaller(t)
			tg := target(t, in, "kimi")
			writeFile(t, tg.Path, content, 0o600)
			err := in.Install("kimi")
			if err == nil || !strings.Contains(err.Error(), tg.Path) {
				t.Fatalf("got %v", err)
			}
			if readFile(t, tg.Path) != content {
				t.Fatal("file changed")
			}
		})
	}
	in := newInstaller(t)
	tg := target(t, in, "kimi")
	writeFile(t, tg.Path, "a = 1\n"+tomlBegin+"\n", 0o600)
	if err := in.Remove("kimi"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("remove: %v", err)
	}
	if _, err := in.Status("kimi"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("status: %v", err)
	}
}

func TestTOMLString(t *testing.T) {
	for _, s := range []string{"", "plain", `[ -n "$X" ] && '/a\b' hook kimi Stop || true`, "tab\tnl\ncr\rdel\x7f bell\x07 é 😀"} {
		q := tomlString(s)
		if strings.ContainsAny(q, "\n\r\x7f\x07") {
			t.Errorf("%q: raw control character in %q", s, q)
		}
		back, ok := tomlUnquote(q)
		if !ok || back != s {
			t.Errorf("%q -> %q -> %q %v", s, q, back, ok)
		}
	}
	for _, bad := range []string{`"`, `"a`, `"a"b"`, `"\x"`, `"\u12"`, `"\`, `'lit'`} {
		if _, ok := tomlUnquote(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzTOMLInstallRemove: for any config text, Install refuses (file
// untouched) or writes a config that reads as the user's values plus
// Reprise's hooks; whatever the user then appends stays the user's; Remove
// gives back the original bytes plus the appended ones. Never a panic.
func FuzzTOMLInstallRemove(f *testing.F) {
	for _, s := range []string{"", "a = 1\n", "a = 1\n[ui]\nfont = \"mono\"\n", "x = 1\n[[hooks]]\nevent = \"Stop\"\ncommand = \"a\"\n",
		"\xef\xbb\xbf# c\nk = 'v'\r\n[t]\r\nb = 2\r\n", "s = \"\"\"\n[[hooks]]\n\"\"\"\n", "[a.b]\nc = [1,\n2]\n", "no newline = 1"} {
		f.Add([]byte(s), []byte("theme = \"dark\"\n"))
	}
	f.Fuzz(func(t *testing.T, data, appended []byte) {
		if bytes.Contains(data, []byte("reprise")) || bytes.Contains(appended, []byte("reprise")) {
			return // text that looks like Reprise's own block is Reprise's to change
		}
		in := newInstaller(t)
		tg := target(t, in, "kimi")
		writeFile(t, tg.Path, string(data), 0o600)
		if err := in.Install("kimi"); err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("install: %v", err)
			}
			if readFile(t, tg.Path) != string(data) {
				t.Fatal("refused install changed the file")
			}
			return
		}
		installed := readFile(t, tg.Path)
		if !tomlReadsAs(t, installed, string(data)) {
			t.Fatalf("installed config of %q does not read as the user's plus Reprise's:\n%s", data, installed)
		}
		want := string(data)
		var probe map[string]any
		edited := string(data) + "\n" + string(appended)
		if len(appended) > 0 && toml.Unmarshal([]byte(strings.TrimPrefix(edited, "\xef\xbb\xbf")), &probe) == nil {
			// The user appends settings below everything, Reprise's block included.
			installed += "\n" + string(appended)
			writeFile(t, tg.Path, installed, 0o600)
			want = edited
			if !tomlReadsAs(t, installed, want) {
				t.Fatalf("appended %q joined Reprise's hooks:\n%s", appended, installed)
			}
		}
		if err := in.Remove("kimi"); err != nil {
			t.Fatalf("remove: %v\n%s", err, installed)
		}
		got, err := os.ReadFile(tg.Path)
		if err != nil {
			if len(data) == 0 && want == "" {
				return // Reprise created the file and took it away again
			}
			t.Fatalf("remove deleted the user's file: %v", err)
		}
		if string(got) != want {
			t.Fatalf("install+remove of %q gave %q, want %q", data, got, want)
		}
	})
}

// tomlReadsAs reports whether installed parses to orig's values plus only
// Reprise's (three-key) hooks.
func tomlReadsAs(t *testing.T, installed, orig string) bool {
	var got, want map[string]any
	if toml.Unmarshal([]byte(strings.TrimPrefix(installed, "\xef\xbb\xbf")), &got) != nil ||
		toml.Unmarshal([]byte(strings.TrimPrefix(orig, "\xef\xbb\xbf")), &want) != nil {
		return false
	}
	var user []any
	hooks, _ := got["hooks"].([]any)
	for _, h := range hooks {
		m, _ := h.(map[string]any)
		if cmd, _ := m["command"].(string); cmd != "" {
			if _, ok := parseCommand(cmd); ok {
				if len(m) != 3 {
					return false
				}
				continue
			}
		}
		user = append(user, h)
	}
	delete(got, "hooks")
	if user != nil {
		got["hooks"] = user
	}
	if want == nil {
		want = map[string]any{}
	}
	return reflect.DeepEqual(got, want)
}
