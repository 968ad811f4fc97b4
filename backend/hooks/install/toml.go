package install

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
)

// Kimi keeps hooks in config.toml. Rather than rewrite the user's TOML,
// Reprise puts one marked block in it and later cuts out exactly that
// block, so the rest of the file stays byte for byte. Every edit is checked
// by a real TOML parse (pelletier/go-toml) before it is written: the result
// must read as the user's settings plus Reprise's hooks, nothing else.
//
// Where the block goes matters, because a TOML key belongs to the table
// above it: a `[[hooks]]` block at the end of the file would swallow any
// key the user later adds below it. So the block is a top-level
// `hooks = [ … ]` array at the start of the file, which no later key can
// join. Only when the user has [[hooks]] tables of their own (TOML allows
// no mixing) does the block become [[hooks]] tables, placed just before the
// user's first one, where the user's own header closes it. A key that ends
// up inside Reprise's entries anyway (say, added right after the block of
// an older Reprise, which put it last) is detected: Reprise then refuses to
// touch the file and says which key to move.

const (
	tomlBegin = "# >>> reprise hooks: managed by Reprise, removed from its settings >>>"
	// tomlBeginOld is the marker of blocks older versions appended last.
	tomlBeginOld = "# >>> reprise hooks: managed by Reprise, removed from its settings; keep this block last >>>"
	tomlEnd      = "# <<< reprise hooks <<<"
)

// tomlBlock is Reprise's block as [[hooks]] tables, each line ending in nl.
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

// tomlInlineBlock is Reprise's block as a top-level array of inline tables.
func tomlInlineBlock(exe, agent string, events []string, timeout func(string) int, nl string) string {
	var b strings.Builder
	b.WriteString(tomlBegin + nl)
	b.WriteString("hooks = [" + nl)
	for _, ev := range events {
		fmt.Fprintf(&b, "  { event = %s, command = %s, timeout = %d },%s", tomlString(ev), tomlString(Command(exe, agent, ev)), timeout(ev), nl)
	}
	b.WriteString("]" + nl)
	b.WriteString(tomlEnd + nl)
	return b.String()
}

var utf8BOM = "\xef\xbb\xbf"

// parseTOML reads TOML text into generic values.
func parseTOML(content string) (map[string]any, error) {
	v := map[string]any{}
	if err := toml.Unmarshal([]byte(strings.TrimPrefix(content, utf8BOM)), &v); err != nil {
		return nil, err
	}
	return v, nil
}

// tomlEntry is one of Reprise's hooks as parsed.
type tomlEntry struct {
	event, command string
	extra          []string // keys besides event, command and timeout
	timeout        any
}

// splitTOMLHooks takes Reprise's hooks for agent out of parsed settings:
// it returns them and the settings without them (a copy).
func splitTOMLHooks(v map[string]any, agent string) ([]tomlEntry, map[string]any) {
	list, ok := v["hooks"].([]any)
	if !ok {
		return nil, v
	}
	var mine []tomlEntry
	var rest []any
	for _, el := range list {
		t, ok := el.(map[string]any)
		cmd, _ := t["command"].(string)
		if o, owned := parseCommand(cmd); ok && owned && o.agent == agent {
			e := tomlEntry{command: cmd, timeout: t["timeout"]}
			e.event, _ = t["event"].(string)
			for k := range t {
				if k != "event" && k != "command" && k != "timeout" {
					e.extra = append(e.extra, k)
				}
			}
			sort.Strings(e.extra)
			mine = append(mine, e)
			continue
		}
		rest = append(rest, el)
	}
	if len(mine) == 0 {
		return nil, v
	}
	out := maps.Clone(v)
	if rest == nil {
		delete(out, "hooks")
	} else {
		out["hooks"] = rest
	}
	return mine, out
}

// checkTOML reads content back: Reprise's entries must be exactly its
// hooks (want, in order; nil: any) and everything else exactly user.
func checkTOML(content string, user map[string]any, agent string, want []tomlEntry) error {
	v, err := parseTOML(content)
	if err != nil {
		return fmt.Errorf("it would not parse as TOML (%w)", err)
	}
	mine, rest := splitTOMLHooks(v, agent)
	var absorbed []string
	for _, e := range mine {
		absorbed = append(absorbed, e.extra...)
	}
	if len(absorbed) > 0 {
		slices.Sort(absorbed)
		absorbed = slices.Compact(absorbed)
		return fmt.Errorf("%s below Reprise's hooks block is read as part of Reprise's last hook, not as your setting; move it above the block (the line %q)",
			strings.Join(absorbed, ", "), tomlBegin)
	}
	if !reflect.DeepEqual(rest, user) {
		return errors.New("the hooks block of Reprise and the settings around it would not read back as they are")
	}
	if want != nil && !reflect.DeepEqual(mine, want) {
		return errors.New("the hooks of Reprise would not read back as written")
	}
	return nil
}

// wantTOML is how Reprise's hooks read back.
func wantTOML(exe, agent string, events []string, timeout func(string) int) []tomlEntry {
	var out []tomlEntry
	for _, ev := range events {
		out = append(out, tomlEntry{event: ev, command: Command(exe, agent, ev), timeout: int64(timeout(ev))})
	}
	return out
}

// hooksTableLine finds the start of the user's first [[hooks]] header.
func hooksTableLine(content string) (int, bool) {
	pos := 0
	for pos < len(content) {
		next := len(content)
		if i := strings.IndexByte(content[pos:], '\n'); i >= 0 {
			next = pos + i + 1
		}
		line := strings.TrimSpace(content[pos:next])
		if strings.HasPrefix(line, "[[") {
			name := strings.TrimSpace(strings.SplitN(strings.TrimPrefix(line, "[["), "]]", 2)[0])
			if name == "hooks" {
				return pos, true
			}
		}
		pos = next
	}
	return 0, false
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
		at := pos
		if pos == 0 && strings.HasPrefix(line, utf8BOM) {
			line, at = line[len(utf8BOM):], len(utf8BOM) // the block comes after a BOM
		}
		switch line {
		case tomlBegin, tomlBeginOld:
			if start >= 0 {
				return 0, 0, false, errors.New("more than one reprise hooks block")
			}
			start = at
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
