package install

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kimi keeps hooks as [[hooks]] tables in config.toml. Rather than parse
// and rewrite TOML, Reprise appends one marked block and later cuts out
// exactly that block, so the rest of the file stays byte for byte.

const (
	tomlBegin = "# >>> reprise hooks: managed by Reprise, removed from its settings; keep this block last >>>"
	tomlEnd   = "# <<< reprise hooks <<<"
)

// tomlBlock is Reprise's block, each line ending in nl.
func tomlBlock(exe, agent string, events []string, timeout func(string) int, nl string) string {
	var b strings.Builder
	b.WriteString(tomlBegin + nl)
	for _, ev := range events {
		b.WriteString("[[hooks]]" + nl)
		b.WriteString("event = " + tomlString(ev) + nl)
		b.WriteString("command = " + tomlString(Command(exe, agent, ev)) + nl)
		b.WriteString("timeout = " + strconv.Itoa(timeout(ev)) + nl)
	}
	b.WriteString(tomlEnd + nl)
	return b.String()
}

// blockRange finds Reprise's block: from the start of its first line to
// the end of its last (after the line break, if any).
func blockRange(content string) (start, end int, ok bool, err error) {
	start, end = -1, -1
	pos := 0
	for pos < len(content) {
		lineEnd := strings.IndexByte(content[pos:], '\n')
		next := len(content)
		if lineEnd >= 0 {
			next = pos + lineEnd + 1
		}
		line := strings.TrimRight(content[pos:next], "\r\n")
		switch line {
		case tomlBegin:
			if start >= 0 {
				return 0, 0, false, errors.New("more than one reprise hooks block")
			}
			start = pos
		case tomlEnd:
			if start < 0 {
				return 0, 0, false, errors.New("reprise hooks block ends before it begins")
			}
			if end < 0 {
				end = next
			}
		}
		pos = next
	}
	switch {
	case start < 0:
		return 0, 0, false, nil
	case end < 0:
		return 0, 0, false, errors.New("reprise hooks block has no end marker")
	}
	return start, end, true, nil
}

// tomlConflict reports a top-level `hooks = …` key or a [hooks] table in the
// user's part of the file: appending [[hooks]] tables would make it invalid.
func tomlConflict(content string) error {
	inTable, inMulti := false, ""
	for _, line := range strings.Split(content, "\n") {
		t := strings.TrimSpace(line)
		if inMulti != "" {
			if strings.Count(t, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(t, q)%2 == 1 {
				inMulti = q
			}
		}
		switch {
		case strings.HasPrefix(t, "[[") || strings.HasPrefix(t, "["):
			name := strings.Trim(strings.SplitN(t, "]", 2)[0], "[ \t")
			if !strings.HasPrefix(t, "[[") && (name == "hooks" || strings.HasPrefix(name, "hooks.")) {
				return fmt.Errorf("it has a [%s] table, which clashes with [[hooks]]", name)
			}
			inTable = true
		case !inTable && (strings.HasPrefix(t, "hooks=") || strings.HasPrefix(t, "hooks ") || strings.HasPrefix(t, "hooks\t") || strings.HasPrefix(t, "hooks.")):
			return errors.New("it sets hooks as a top-level key, which clashes with [[hooks]]")
		}
	}
	return nil
}

// tomlHooks reads event/command pairs from the [[hooks]] tables of a block.
func tomlHooks(block string) []struct{ event, command string } {
	var out []struct{ event, command string }
	cur := -1
	for _, line := range strings.Split(block, "\n") {
		t := strings.TrimSpace(line)
		if t == "[[hooks]]" {
			out = append(out, struct{ event, command string }{})
			cur = len(out) - 1
			continue
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok || cur < 0 {
			continue
		}
		s, ok := tomlUnquote(strings.TrimSpace(val))
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "event":
			out[cur].event = s
		case "command":
			out[cur].command = s
		}
	}
	return out
}

// tomlString writes a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlUnquote reads a TOML basic string (the only kind tomlString writes).
func tomlUnquote(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			return "", false
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		i++
		switch s[i] {
		case '"', '\\':
			b.WriteByte(s[i])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u', 'U':
			n := 4
			if s[i] == 'U' {
				n = 8
			}
			if i+1+n > len(s) {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", false
			}
			b.WriteRune(rune(v))
			i += n
		default:
			return "", false
		}
	}
	return b.String(), true
}
