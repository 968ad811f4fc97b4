package shellquote

import (
	"bytes"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// hostile are tokens that break naive quoting.
var hostile = []string{
	"",
	" ",
	"'",
	"''",
	`\`,
	`"`,
	"it's",
	"x'; rm -rf ~",
	"$(id)",
	"`id`",
	"${HOME}",
	"$HOME",
	"*",
	"~",
	"~root",
	"a\nb",
	"\n",
	"\t",
	"trailing\\",
	"back\\\nslash newline",
	"\x1b]0;pwn\x07",
	"\x1b[31mred\x1b[0m",
	"\r\n",
	"\xff\xfe invalid utf-8 \xc3",
	"-n",
	"-e",
	"--",
	"%s%d\\0\\n",
	"!",
	"!!",
	"#comment",
	"=ls",
	"%1",
	"if",
	"a=b",
	"{a,b}",
	"héllo wörld ✓",
	strings.Repeat("'", 50),
}

func TestQuote(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", `''`},
		{"abc", `'abc'`},
		{"--resume", `'--resume'`},
		{"two words", `'two words'`},
		{"it's", `'it'\''s'`},
		{"'", `''\'''`},
		{"$(id)", `'$(id)'`},
		{"a\nb", "'a\nb'"},
		{`\`, `'\'`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Quote(tt.in); got != tt.want {
				t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestJoin(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"nil", nil, ""},
		{"one empty", []string{""}, `''`},
		{"resume", []string{"claude", "--resume", "abc"}, `'claude' '--resume' 'abc'`},
		{"injection", []string{"codex", "x'; rm -rf ~"}, `'codex' 'x'\''; rm -rf ~'`},
		{"empty middle", []string{"a", "", "b"}, `'a' '' 'b'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Join(tt.argv); got != tt.want {
				t.Errorf("Join(%q) = %q, want %q", tt.argv, got, tt.want)
			}
		})
	}
}

// TestJoinShells runs the hostile tokens through every POSIX-ish shell on
// the machine. /bin/sh is always there; the others are checked when present
// because Join's output runs in the user's login shell.
func TestJoinShells(t *testing.T) {
	shells := []string{"/bin/sh", "bash", "dash", "zsh", "ksh", "mksh", "busybox"}
	ran := 0
	for _, sh := range shells {
		t.Run(sh, func(t *testing.T) {
			path, err := exec.LookPath(sh)
			if err != nil {
				t.Skipf("%s not installed", sh)
			}
			ran++
			args := []string{}
			if sh == "busybox" {
				args = append(args, "sh")
			}
			for _, tok := range hostile {
				argv := []string{tok, "after"}
				got, err := printfArgv(path, args, argv)
				if err != nil {
					t.Fatalf("%q: %v", tok, err)
				}
				if !slices.Equal(got, argv) {
					t.Errorf("%s: got %q, want %q", sh, got, argv)
				}
			}
			got, err := printfArgv(path, args, hostile)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, hostile) {
				t.Errorf("%s: all at once: got %q, want %q", sh, got, hostile)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no shell ran")
	}
}

// printfArgv runs `printf '%s\0' <Join(argv)>` in the shell and returns
// the words the shell passed to printf.
func printfArgv(shell string, shellArgs, argv []string) ([]string, error) {
	return printfWords(shell, shellArgs, Join(argv))
}

// printfWords runs `printf '%s\0' <src>` in the shell and returns the
// words the shell passed to printf.
func printfWords(shell string, shellArgs []string, src string) ([]string, error) {
	script := `printf '%s\0' ` + src
	cmd := exec.Command(shell, append(shellArgs, "-c", script)...)
	cmd.Env = []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.New(err.Error() + ": " + stderr.String())
	}
	if len(out) == 0 || out[len(out)-1] != 0 {
		return nil, errors.New("output does not end in NUL: " + string(out))
	}
	return strings.Split(string(out[:len(out)-1]), "\x00"), nil
}

// mvdanFields parses cmd as one simple command with mvdan.cc/sh and
// expands its words with an empty environment and no globbing.
func mvdanFields(cmd string) ([]string, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil, err
	}
	var fields []string
	for _, stmt := range f.Stmts {
		call, ok := stmt.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Assigns) > 0 || len(stmt.Redirs) > 0 || stmt.Background {
			return nil, errors.New("not a simple command: " + cmd)
		}
		fs, err := expand.Fields(&expand.Config{}, call.Args...)
		if err != nil {
			return nil, err
		}
		fields = append(fields, fs...)
	}
	return fields, nil
}

// mvdanCanRead reports whether mvdan.cc/sh reads s the way a POSIX shell
// does: it refuses invalid UTF-8 and turns CR LF into LF even inside quotes.
// /bin/sh covers those inputs.
func mvdanCanRead(s string) bool {
	return utf8.ValidString(s) && !strings.Contains(s, "\r\n")
}

func TestJoinMvdan(t *testing.T) {
	for _, tok := range hostile {
		if !mvdanCanRead(tok) {
			continue
		}
		t.Run(tok, func(t *testing.T) {
			argv := []string{tok, tok}
			got, err := mvdanFields(Join(argv))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, argv) {
				t.Errorf("got %q, want %q", got, argv)
			}
		})
	}
}

// argvFromBytes turns fuzz input into argv: NUL separates the elements, so
// every other byte value, invalid UTF-8 included, can appear in them.
func argvFromBytes(data []byte) []string {
	return strings.Split(string(data), "\x00")
}

func FuzzJoin(f *testing.F) {
	f.Add([]byte(strings.Join(hostile, "\x00")))
	for _, tok := range hostile {
		f.Add([]byte(tok))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			t.Skip("beyond what one exec argument may hold")
		}
		argv := argvFromBytes(data)
		got, err := printfArgv("/bin/sh", nil, argv)
		if err != nil {
			t.Fatalf("argv %q: %v", argv, err)
		}
		if !slices.Equal(got, argv) {
			t.Fatalf("/bin/sh: Join(%q) = %q, read back as %q", argv, Join(argv), got)
		}
		if !mvdanCanRead(string(data)) {
			return
		}
		got, err = mvdanFields(Join(argv))
		if err != nil {
			t.Fatalf("mvdan: Join(%q) = %q: %v", argv, Join(argv), err)
		}
		if !slices.Equal(got, argv) {
			t.Fatalf("mvdan: Join(%q) = %q, read back as %q", argv, Join(argv), got)
		}
	})
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr error
	}{
		{in: "", want: nil},
		{in: "   \t\n ", want: nil},
		{in: "--resume", want: []string{"--resume"}},
		{in: "threads continue", want: []string{"threads", "continue"}},
		{in: "  threads \t continue\n", want: []string{"threads", "continue"}},
		{in: `--flag "two words"`, want: []string{"--flag", "two words"}},
		{in: `'single quoted'`, want: []string{"single quoted"}},
		{in: `a\ b`, want: []string{"a b"}},
		{in: `\'`, want: []string{"'"}},
		{in: `\\`, want: []string{`\`}},
		{in: `\$HOME`, want: []string{"$HOME"}},
		{in: `$HOME ~ * $(id) ${x} ; | & < > ( ) #c`, want: []string{"$HOME", "~", "*", "$(id)", "${x}", ";", "|", "&", "<", ">", "(", ")", "#c"}},
		{in: "`id`", want: []string{"`id`"}},
		{in: `'' ""`, want: []string{"", ""}},
		{in: `a''b`, want: []string{"ab"}},
		{in: `x"y z"'w'`, want: []string{"xy zw"}},
		{in: `"it's"`, want: []string{"it's"}},
		{in: `'it'\''s'`, want: []string{"it's"}},
		{in: `'a\b'`, want: []string{`a\b`}},
		{in: `"\$ \` + "`" + ` \" \\ \a \'"`, want: []string{"$ ` \" \\ \\a \\'"}},
		{in: `"$HOME"`, want: []string{"$HOME"}},
		{in: "a\\\nb", want: []string{"ab"}},
		{in: "a \\\n b", want: []string{"a", "b"}},
		{in: "\"a\\\nb\"", want: []string{"ab"}},
		{in: "\\\\\\\n", want: []string{`\`}}, // an escaped backslash, then a line continuation
		{in: "héllo ✓", want: []string{"héllo", "✓"}},
		{in: `'unterminated`, wantErr: ErrUnterminatedSingleQuote},
		{in: `a 'b`, wantErr: ErrUnterminatedSingleQuote},
		{in: `"unterminated`, wantErr: ErrUnterminatedDoubleQuote},
		{in: `"a\"`, wantErr: ErrUnterminatedDoubleQuote},
		{in: `"a\`, wantErr: ErrUnterminatedDoubleQuote},
		{in: `a\`, wantErr: ErrTrailingBackslash},
		{in: "\x1b]0;pwn\x07", wantErr: ErrControlCharacter},
		{in: "a\rb", wantErr: ErrControlCharacter},
		{in: "'a\tb'", wantErr: ErrControlCharacter},
		{in: "\"a\nb\"", wantErr: ErrControlCharacter},
		{in: "a\\\tb", wantErr: ErrControlCharacter},
		{in: "a\x00b", wantErr: ErrControlCharacter},
		{in: "a\u0085b", wantErr: ErrControlCharacter},
		{in: "a\x7f", wantErr: ErrControlCharacter},
		{in: "\xff", wantErr: ErrInvalidUTF8},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Split(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Split(%q) = %q, %v; want error %v", tt.in, got, err, tt.wantErr)
				}
				if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || msg == "" {
					t.Errorf("error %q is not one line", msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Split(%q): %v", tt.in, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSplitErrorMessages(t *testing.T) {
	tests := []struct{ in, want string }{
		{`'a`, "unterminated single quote"},
		{`"a`, "unterminated double quote"},
		{`a\`, "trailing backslash"},
		{"a\x1bb", "control character U+001B not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := Split(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Split(%q) error = %v, want %q", tt.in, err, tt.want)
			}
		})
	}
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}

// FuzzSplit checks that Split reads back whatever Join wrote, for argv
// that Split accepts at all: valid UTF-8 without control characters.
func FuzzSplit(f *testing.F) {
	f.Add([]byte(strings.Join(hostile, "\x00")))
	f.Add([]byte("--flag\x00two words\x00it's\x00\x00$(id)"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) {
			t.Skip()
		}
		argv := argvFromBytes(data)
		for _, a := range argv {
			if hasControl(a) {
				t.Skip()
			}
		}
		got, err := Split(Join(argv))
		if err != nil {
			t.Fatalf("Split(Join(%q)): %v", argv, err)
		}
		if !slices.Equal(got, argv) {
			t.Fatalf("Split(Join(%q)) = %q", argv, got)
		}
	})
}

// FuzzSplitMatchesSh compares Split with /bin/sh on inputs where the
// shell's rules and Split's agree: only quoting, escaping and blanks, no
// character that would expand, glob, comment or act as an operator, and no
// newline, which would end the shell's command (the table covers it).
func FuzzSplitMatchesSh(f *testing.F) {
	for _, s := range []string{
		`--flag "two words"`, `'it'\''s'`, `a\ b "c\"d" 'e\f'`, `"\a\\"`, `\\\`,
		`'unterminated`, `"unterminated`, `trailing\`, `'' ""`, "a\tb '\t'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range s {
			if !strings.ContainsRune(`abc-_.'"\ `+"\t", r) {
				t.Skip()
			}
		}
		got, err := Split(s)
		if errors.Is(err, ErrControlCharacter) || errors.Is(err, ErrTrailingBackslash) {
			// Split is stricter on purpose: the shell allows a tab inside
			// a word and reads a final backslash literally.
			return
		}
		// "start" keeps apart no words at all and one empty word.
		want, shErr := printfWords("/bin/sh", nil, "start "+s)
		if (err != nil) != (shErr != nil) {
			t.Fatalf("Split(%q) = %q, %v; /bin/sh: %q, %v", s, got, err, want, shErr)
		}
		if err == nil && !slices.Equal(got, want[1:]) {
			t.Fatalf("Split(%q) = %q; /bin/sh: %q", s, got, want[1:])
		}
	})
}
