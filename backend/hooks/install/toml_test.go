package install

import (
	"errors"
	"os"
	"strings"
	"testing"
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
			base := orig
			if base != "" && !strings.HasSuffix(base, "\n") {
				base += "\n"
			}
			if !strings.HasPrefix(got, base) {
				t.Fatalf("user part changed:\n%q", got)
			}
			block := got[len(base):]
			if !strings.HasPrefix(block, tomlBegin) || !strings.HasSuffix(strings.TrimRight(block, "\r\n"), tomlEnd) {
				t.Fatalf("block:\n%s", block)
			}
			if strings.Contains(orig, "\r\n") != strings.Contains(block, "\r\n") {
				t.Fatalf("line endings not matched: %q", block)
			}
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

func TestKimiBlockStaysInPlace(t *testing.T) {
	// The user added settings after Reprise's block: re-install (new binary)
	// rewrites the block where it is, remove cuts exactly it.
	in := newInstaller(t)
	in.Exe = "/old/reprise"
	tg := target(t, in, "kimi")
	writeFile(t, tg.Path, "a = 1\n", 0o600)
	if err := in.Install("kimi"); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(tg.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[extra]\nb = 2\n")
	f.Close()
	in.Exe = exe
	if st, _ := in.Status("kimi"); st.Installed || !st.Partial {
		t.Fatalf("%+v", st)
	}
	if err := in.Install("kimi"); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, tg.Path)
	if !strings.HasPrefix(got, "a = 1\n"+tomlBegin) || !strings.HasSuffix(got, tomlEnd+"\n[extra]\nb = 2\n") || strings.Contains(got, "/old/reprise") {
		t.Fatalf("got:\n%s", got)
	}
	if err := in.Remove("kimi"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, tg.Path); got != "a = 1\n[extra]\nb = 2\n" {
		t.Fatalf("got %q", got)
	}
}

func TestKimiRefusals(t *testing.T) {
	for name, content := range map[string]string{
		"top-level hooks array":   "hooks = []\n",
		"hooks table":             "[hooks]\nenabled = true\n",
		"dotted hooks table":      "[hooks.pre]\ncommand = \"x\"\n",
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
