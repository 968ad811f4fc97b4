package install

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// Real-world JSON-with-comments configs (Gemini reads settings.json as
// JSONC; VS Code-style files have trailing commas). Install must accept
// them, keep every comment and value, and Remove must give back the
// original bytes.
var jsoncOriginals = map[string]string{
	"gemini settings with comments": `{
  // Gemini CLI settings
  "general": {
    "enableAutoUpdate": false, // keep the pinned version
  },
  "security": {
    /* auth for the offline stand-in */
    "auth": { "selectedType": "gemini-api-key" },
    "folderTrust": { "enabled": false },
  },
  "ui": {
    "theme": "GitHub", // trailing comma next
  },
}
`,
	"comment after the last member, no trailing comma": "{\n  \"theme\": \"dark\" // the user's theme\n}\n",
	"nested, comment ending the last line":             "{\n  \"hooks\": {\n    \"BeforeAgent\": [] // none yet\n  },\n  \"ui\": {\"theme\": \"dark\"} // ui\n}\n",
	"array, comment ending the last line":              "{\n  \"Stop\": [\n    { \"command\": \"say done\" } // mine\n  ]\n}\n",
	"comment before the closing brace":                 "{\n  \"a\": 1,\n  // more settings later\n}\n",
	"user hooks with comments": `{
  "hooks": {
    // lint before every turn
    "BeforeAgent": [
      { "hooks": [ { "type": "command", "command": "./lint.sh", }, ], },
    ],
  },
}
`,
	"crlf":                        "{\r\n\t// tabbed, CRLF\r\n\t\"model\": \"pro\",\r\n\t\"hooks\": {},\r\n}\r\n",
	"bom":                         "\xef\xbb\xbf{\n  \"a\": [1, 2,], /* x */\n  \"b\": null\n}\n",
	"one line":                    `{"model": "pro", /* inline */ "x": [1,2,]}`,
	"odd spacing":                 "  {   \"a\"  :  1 ,\n\n\n     \"b\":{ }  }  \n\n",
	"comment at the end":          "{\"a\": 1}\n// trailing comment, no newline",
	"block comment first":         "/* settings */ {\n    \"a\": 1\n}",
	"empty object with a comment": "{ /* nothing yet */ }\n",
	"empty hooks with a comment":  "{\n  \"hooks\": {\n    // add hooks here\n  }\n}\n",
	"nested arrays and escapes":   "{\n  \"env\": {\"K\": \"caf\\u00e9 \\\"q\\\"\"}, // é\n  \"n\": [1.50, -0, 1E+2,],\n}\n",
}

func TestJSONCRoundTrip(t *testing.T) {
	for _, agent := range []string{"gemini", "claude", "droid", "mastracode", "cursor-agent"} {
		for name, orig := range jsoncOriginals {
			t.Run(agent+"/"+name, func(t *testing.T) {
				in := newInstaller(t)
				tg := target(t, in, agent)
				writeFile(t, tg.Path, orig, 0o644)
				if err := in.Install(agent); err != nil {
					t.Fatalf("install: %v", err)
				}
				installed := readFile(t, tg.Path)
				if _, ok := standardValue([]byte(installed)); !ok {
					t.Fatalf("installed file does not parse:\n%s", installed)
				}
				// Every comment the user wrote is still there.
				for _, c := range comments(orig) {
					if !strings.Contains(installed, c) {
						t.Fatalf("comment %q lost:\n%s", c, installed)
					}
				}
				if st, err := in.Status(agent); err != nil || !st.Installed {
					t.Fatalf("status %+v %v", st, err)
				}
				if err := in.Install(agent); err != nil {
					t.Fatal(err)
				}
				if again := readFile(t, tg.Path); again != installed {
					t.Fatalf("second install changed the file:\n%s\nthen\n%s", installed, again)
				}
				if err := in.Remove(agent); err != nil {
					t.Fatalf("remove: %v", err)
				}
				got := readFile(t, tg.Path)
				if got != orig {
					t.Fatalf("after install+remove:\n%q\nwant\n%q\ninstalled:\n%s", got, orig, installed)
				}
			})
		}
	}
}

// A comment ending the last entry's line stays on that line when Reprise
// adds entries after it, rather than moving to the end of Reprise's.
func TestCommentEndingLastLineStays(t *testing.T) {
	in := newInstaller(t)
	tg := target(t, in, "gemini")
	orig := "{\n  \"theme\": \"dark\" // the user's theme\n}\n"
	writeFile(t, tg.Path, orig, 0o600)
	if err := in.Install("gemini"); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, tg.Path)
	if !strings.HasPrefix(got, "{\n  \"theme\": \"dark\", // the user's theme\n  \"hooks\": {\n") || !strings.HasSuffix(got, "\n  }\n}\n") {
		t.Fatalf("got:\n%s", got)
	}
	if err := in.Remove("gemini"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, tg.Path); got != orig {
		t.Fatalf("after remove %q", got)
	}
}

// The observed bug: a Gemini settings.json with comments was refused as
// malformed.
func TestGeminiCommentsAccepted(t *testing.T) {
	in := newInstaller(t)
	tg := target(t, in, "gemini")
	orig := jsoncOriginals["gemini settings with comments"]
	writeFile(t, tg.Path, orig, 0o600)
	if err := in.Install("gemini"); err != nil {
		t.Fatalf("install refused a settings.json with comments: %v", err)
	}
	got := installedCommands(t, "gemini", tg.Path)
	if len(got) != len(geminiEvents) {
		t.Fatalf("installed %v", got)
	}
	want, _ := standardValue([]byte(orig))
	after, _ := standardValue([]byte(readFile(t, tg.Path)))
	am := after.(map[string]any)
	delete(am, "hooks")
	if !reflect.DeepEqual(am, want) {
		t.Fatalf("user settings changed:\n%v\nwant\n%v", am, want)
	}
}

// comments lists the comments in JWCC text (outside strings).
func comments(s string) []string {
	var out []string
	inStr := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && strings.HasPrefix(s[i:], "//"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				j = len(s) - i
			}
			out = append(out, strings.TrimRight(s[i:i+j], "\r"))
			i += j
		case !inStr && strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i:], "*/")
			out = append(out, s[i:i+j+2])
			i += j + 1
		}
	}
	return out
}

// hasWhitespaceOnlyEmpty: the text has an empty object or array with only
// whitespace inside ({ }), or a line break after a block comment inside,
// which a round trip takes out ({}).
func hasWhitespaceOnlyEmpty(n *node) bool {
	if (n.kind == kObject || n.kind == kArray) && len(n.members)+len(n.elems) == 0 && !bytes.Equal(emptyInner(n.inner), n.inner) {
		return true
	}
	for _, m := range n.members {
		if hasWhitespaceOnlyEmpty(m.val) {
			return true
		}
	}
	for _, e := range n.elems {
		if hasWhitespaceOnlyEmpty(e) {
			return true
		}
	}
	return false
}

// FuzzJSONInstallRemove: for any config text, Install either refuses
// (leaving the file untouched) or writes a file that parses, keeps the
// user's values, and Remove gives back the original bytes (or, where the
// text had a `{ }`, the same values). Never a panic.
func FuzzJSONInstallRemove(f *testing.F) {
	for _, s := range jsoncOriginals {
		f.Add([]byte(s), uint8(0))
	}
	for _, s := range claudeOriginals {
		f.Add([]byte(s), uint8(1))
	}
	f.Add([]byte(`{"hooks": {"Stop": [{"hooks": []}]}}`), uint8(1))
	f.Add([]byte(`{"Stop": [{"command": "x",},]}`), uint8(2))
	agents := []string{"gemini", "claude", "mastracode", "cursor-agent"}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		if bytes.Contains(data, []byte("reprise")) || len(bytes.TrimSpace(data)) == 0 {
			return // entries that look like Reprise's own are Reprise's to change
		}
		agent := agents[int(which)%len(agents)]
		in := newInstaller(t)
		tg := target(t, in, agent)
		writeFile(t, tg.Path, string(data), 0o600)
		if err := in.Install(agent); err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("install: %v", err)
			}
			if got := readFile(t, tg.Path); got != string(data) {
				t.Fatalf("refused install changed the file: %q", got)
			}
			return
		}
		installed := readFile(t, tg.Path)
		if _, err := parseDoc([]byte(installed)); err != nil {
			t.Fatalf("installed %q does not parse: %v\n%s", data, err, installed)
		}
		if err := in.Remove(agent); err != nil {
			t.Fatalf("remove: %v\ninstalled:\n%s", err, installed)
		}
		got, err := os.ReadFile(tg.Path)
		if err != nil {
			t.Fatalf("remove deleted the user's file: %v", err)
		}
		d, _ := parseDoc(data)
		if !bytes.Equal(got, data) {
			if !hasWhitespaceOnlyEmpty(d.root) {
				t.Fatalf("install+remove of %q gave %q\ninstalled:\n%s", data, got, installed)
			}
			again, err := parseDoc(got)
			if err != nil || !sameValue(again.root, d.root) {
				t.Fatalf("install+remove of %q changed its values: %q", data, got)
			}
		}
	})
}
