package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// An order-preserving tree of a JSON-with-comments file (JWCC: comments and
// trailing commas, which Gemini's and VS Code-style settings allow), parsed
// by tailscale/hujson. Every parsed value keeps the exact text around it —
// whitespace, comments, the comma style — and encoding writes that text
// back unchanged; only values Reprise adds are laid out, in the file's own
// indentation and line endings. Edits never rewrite a parsed separator:
// taking out what was added gives back the original bytes.

type kind uint8

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

type node struct {
	kind    kind
	parsed  bool   // read from the file (else built by Reprise and laid out on encode)
	raw     []byte // a parsed literal's text
	str     string // kString
	lit     string // kNumber, kBool, kNull: the literal
	members []member
	elems   []*node
	// The text around the value in its slot (an array element, a member's
	// value): before it (after the colon, for a member) and after it, up to
	// the comma. nil before: a slot Reprise made, laid out on encode.
	before, after []byte
	inner         []byte // before the closing bracket
	trailing      bool   // a comma after the last element
}

type member struct {
	key string
	// The parsed key: its quoted text and the text before it and between
	// it and the colon. nil keyBefore: a member Reprise added.
	rawKey, keyBefore, keyAfter []byte
	val                         *node
}

const maxDepth = 1000

// doc is a parsed file: the value plus what surrounds it and its style.
type doc struct {
	root   *node
	prefix []byte // a byte order mark
	suffix []byte // after the value, for a file Reprise creates
	// noFinalBreak: the file ends in a line comment without a line break,
	// added for parsing and taken off again on encode.
	noFinalBreak bool
	style        style
}

type style struct {
	indent    string // one level: "  ", "    ", "\t"
	newline   string // "\n" or "\r\n"
	multiline bool   // false: the file is one line, write compact
}

var defaultStyle = style{indent: "  ", newline: "\n", multiline: true}

var bom = []byte("\xef\xbb\xbf")

// parseDoc parses a whole file: one JWCC value, with whitespace and
// comments around it, and an optional byte order mark.
func parseDoc(data []byte) (*doc, error) {
	d := &doc{style: detectStyle(data)}
	body := data
	if bytes.HasPrefix(body, bom) {
		d.prefix, body = bom, body[len(bom):]
	}
	v, err := hujson.Parse(body)
	if err != nil {
		// A line comment ending the file without a line break is fine for
		// the agents' JSONC readers; hujson wants the break.
		v2, err2 := hujson.Parse(append(bytes.Clone(body), '\n'))
		if err2 != nil {
			return nil, err
		}
		v, d.noFinalBreak = v2, true
		body = append(bytes.Clone(body), '\n')
	}
	root, err := fromHu(&v, 0)
	if err != nil {
		return nil, err
	}
	d.root = root
	// A one-line file stays one line; an empty {} tells nothing, so it gets
	// the default layout.
	d.style.multiline = bytes.Contains(body[v.StartOffset:v.EndOffset], []byte("\n")) || len(root.members)+len(root.elems) == 0
	return d, nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func fromHu(v *hujson.Value, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	n := &node{parsed: true, before: nonNil(v.BeforeExtra), after: v.AfterExtra}
	switch t := v.Value.(type) {
	case hujson.Literal:
		n.raw = t
		switch t.Kind() {
		case 'n':
			n.kind, n.lit = kNull, "null"
		case 't', 'f':
			n.kind, n.lit = kBool, string(t)
		case '0':
			n.kind, n.lit = kNumber, string(t)
		case '"':
			n.kind, n.str = kString, t.String()
		default:
			return nil, fmt.Errorf("unexpected literal %q", t)
		}
	case *hujson.Object:
		n.kind, n.members, n.inner = kObject, []member{}, nonNil(t.AfterExtra)
		for i := range t.Members {
			m := &t.Members[i]
			name, ok := m.Name.Value.(hujson.Literal)
			if !ok || name.Kind() != '"' {
				return nil, errors.New("object key is not a string")
			}
			val, err := fromHu(&m.Value, depth+1)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{key: name.String(), rawKey: name,
				keyBefore: nonNil(m.Name.BeforeExtra), keyAfter: nonNil(m.Name.AfterExtra), val: val})
		}
		n.trailing = len(t.Members) > 0 && t.Members[len(t.Members)-1].Value.AfterExtra != nil
	case *hujson.Array:
		n.kind, n.elems, n.inner = kArray, []*node{}, nonNil(t.AfterExtra)
		for i := range t.Elements {
			el, err := fromHu(&t.Elements[i], depth+1)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, el)
		}
		n.trailing = len(t.Elements) > 0 && t.Elements[len(t.Elements)-1].AfterExtra != nil
	default:
		return nil, errors.New("unexpected value")
	}
	return n, nil
}

// detectStyle takes the indentation of the first indented line and the
// line ending of the first line.
func detectStyle(data []byte) style {
	s := defaultStyle
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return s
	}
	if nl > 0 && data[nl-1] == '\r' {
		s.newline = "\r\n"
	}
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed == "" || strings.TrimSpace(trimmed) == "" || len(trimmed) == len(line) {
			continue
		}
		ws := line[:len(line)-len(trimmed)]
		if strings.Contains(ws, "\t") {
			s.indent = "\t"
		} else {
			s.indent = ws
		}
		break
	}
	return s
}

// encode writes the document back.
func (d *doc) encode() []byte {
	var b bytes.Buffer
	b.Write(d.prefix)
	b.Write(d.root.before)
	writeNode(&b, d.root, "", d.style)
	after := d.root.after
	if d.noFinalBreak && bytes.HasSuffix(after, []byte("\n")) {
		after = after[:len(after)-1]
	}
	b.Write(after)
	b.Write(d.suffix)
	return b.Bytes()
}

// lastLine is the text after the last line break of extra (the
// indentation of what follows it), and whether there was a line break.
func lastLine(extra []byte) (string, bool) {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return "", false
	}
	return string(extra[i+1:]), true
}

// layout says how Reprise's additions to a parsed container go: each on
// its own line indented like its parsed siblings (or one level deeper than
// the container), or inline when the container is written on one line.
func (n *node) layout(ind string, st style) (childInd, sep string, inline bool) {
	childInd = ind + st.indent
	var befores [][]byte
	for _, m := range n.members {
		if m.keyBefore != nil {
			befores = append(befores, m.keyBefore)
		}
	}
	for _, e := range n.elems {
		if e.before != nil {
			befores = append(befores, e.before)
		}
	}
	if len(befores) == 0 {
		return childInd, "", !st.multiline
	}
	broken := false
	for _, bf := range befores {
		l, ok := lastLine(bf)
		if ok && strings.Trim(l, " \t") == "" {
			return l, "", false
		}
		broken = broken || ok
	}
	if broken {
		return childInd, "", false
	}
	if bytes.HasPrefix(befores[len(befores)-1], []byte(" ")) {
		sep = " "
	}
	return childInd, sep, true
}

func writeNode(b *bytes.Buffer, n *node, ind string, st style) {
	if !n.parsed {
		writeFresh(b, n, ind, st)
		return
	}
	if n.kind != kObject && n.kind != kArray {
		b.Write(n.raw)
		return
	}
	childInd, sep, inline := n.layout(ind, st)
	cst := st
	if inline {
		cst.multiline = false
	}
	open, closing := byte('['), byte(']')
	if n.kind == kObject {
		open, closing = '{', '}'
	}
	b.WriteByte(open)
	count := len(n.elems) + len(n.members)
	fresh := 0
	// A comment ending the last parsed entry's line (`"a": 1 // note`) is
	// parsed as the start of the text before the closing bracket. Entries
	// added after it go below it, so it stays on its line.
	var carry []byte
	if added := n.added(); !inline && added > 0 && added < count {
		carry = commentLine(n.inner)
	}
	slot := func(i int, before []byte) {
		if before != nil {
			b.Write(before)
			return
		}
		fresh++
		switch {
		case inline:
			if i > 0 {
				b.WriteString(sep)
			}
		case carry != nil && fresh == 1:
			b.Write(carry)
			b.WriteString(childInd)
		default:
			b.WriteString(st.newline + childInd)
		}
	}
	for i := range count {
		var v *node
		if n.kind == kObject {
			m := n.members[i]
			slot(i, m.keyBefore)
			if m.keyBefore != nil {
				b.Write(m.rawKey)
				b.Write(m.keyAfter)
			} else {
				writeString(b, m.key)
			}
			b.WriteByte(':')
			v = m.val
			if v.before != nil {
				b.Write(v.before)
			} else if !inline || sep != "" {
				b.WriteByte(' ')
			}
		} else {
			v = n.elems[i]
			slot(i, v.before)
		}
		writeNode(b, v, childInd, cst)
		b.Write(v.after)
		if i < count-1 || n.trailing {
			b.WriteByte(',')
		}
	}
	inner := n.inner
	if carry != nil {
		inner = append([]byte(st.newline), inner[len(carry):]...)
	}
	if count > 0 && fresh == count && !inline {
		// A container that was empty: close it on its own line. The parsed
		// text inside it is written as it was, so emptying it again gives
		// back the original bytes.
		if len(bytes.Trim(inner, " \t\r\n")) == 0 {
			inner = nil
		}
		if _, ok := lastLine(inner); !ok {
			inner = append(bytes.Clone(inner), st.newline+ind...)
		}
	}
	b.Write(inner)
	b.WriteByte(closing)
}

// added counts the entries Reprise added (always after the parsed ones).
func (n *node) added() int {
	k := 0
	for _, m := range n.members {
		if m.keyBefore == nil {
			k++
		}
	}
	for _, e := range n.elems {
		if e.before == nil {
			k++
		}
	}
	return k
}

// commentLine is the start of text up to its first line break, if that
// holds a comment (the rest of the line above): `  // note\n`.
func commentLine(text []byte) []byte {
	i := bytes.IndexByte(text, '\n')
	if i < 0 || len(bytes.TrimSpace(text[:i])) == 0 {
		return nil
	}
	return text[:i+1]
}

// trimBreak takes one leading line break off text.
func trimBreak(text []byte) []byte {
	if bytes.HasPrefix(text, []byte("\r\n")) {
		return text[2:]
	}
	return bytes.TrimPrefix(text, []byte("\n"))
}

// writeFresh lays out a value Reprise built, starting at indentation ind.
func writeFresh(b *bytes.Buffer, n *node, ind string, st style) {
	colon := ":"
	if st.multiline {
		colon = ": "
	}
	brk := func(in string) {
		if st.multiline {
			b.WriteString(st.newline + in)
		}
	}
	switch n.kind {
	case kObject:
		if len(n.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			brk(ind + st.indent)
			writeString(b, m.key)
			b.WriteString(colon)
			writeNode(b, m.val, ind+st.indent, st)
		}
		brk(ind)
		b.WriteByte('}')
	case kArray:
		if len(n.elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			brk(ind + st.indent)
			writeNode(b, e, ind+st.indent, st)
		}
		brk(ind)
		b.WriteByte(']')
	case kString:
		writeString(b, n.str)
	default:
		b.WriteString(n.lit)
	}
}

// writeStd writes n as standard JSON, without comments or layout.
func writeStd(b *bytes.Buffer, n *node) {
	switch n.kind {
	case kObject:
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.key)
			b.WriteByte(':')
			writeStd(b, m.val)
		}
		b.WriteByte('}')
	case kArray:
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			writeStd(b, e)
		}
		b.WriteByte(']')
	case kString:
		writeString(b, n.str)
	default:
		b.WriteString(n.lit)
	}
}

// writeString escapes like JavaScript's JSON.stringify, which wrote most of
// the files we edit: only quotes, backslashes and control characters.
func writeString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteString(`\ufffd`)
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
		i++
	}
	b.WriteByte('"')
}

// Building and editing. A value put in place of another takes over its
// slot's surrounding text; a new member or element gets a slot laid out on
// encode.

func newObject(members ...member) *node {
	if members == nil {
		members = []member{}
	}
	return &node{kind: kObject, members: members}
}

func newArray(elems ...*node) *node {
	if elems == nil {
		elems = []*node{}
	}
	return &node{kind: kArray, elems: elems}
}

func newString(s string) *node { return &node{kind: kString, str: s} }
func newInt(n int) *node       { return &node{kind: kNumber, lit: fmt.Sprint(n)} }

func kv(key string, val *node) member { return member{key: key, val: val} }

// get returns the value of key; with duplicate keys the last one, which is
// the one JavaScript's JSON.parse keeps.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kObject {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// takeSlot moves old's surrounding text to val, which replaces it.
func takeSlot(val, old *node) *node {
	if val.before != nil || val.after != nil {
		c := *val
		val = &c
	}
	val.before, val.after = old.before, old.after
	return val
}

func (n *node) set(key string, val *node) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			n.members[i].val = takeSlot(val, n.members[i].val)
			return
		}
	}
	n.members = append(n.members, kv(key, val))
}

// del removes every member named key.
func (n *node) del(key string) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key != key {
			continue
		}
		n.keepComment(n.members[i].keyBefore, i)
		n.members = append(n.members[:i], n.members[i+1:]...)
	}
	n.emptied()
}

func (n *node) setElem(i int, val *node) { n.elems[i] = takeSlot(val, n.elems[i]) }

func (n *node) removeElem(i int) {
	n.keepComment(n.elems[i].before, i)
	n.elems = append(n.elems[:i], n.elems[i+1:]...)
	n.emptied()
}

// keepComment: entry i is going, and the text before it starts with a
// comment that ends the line above (`"a": 1, // note`, as encode writes
// it when adding after such a line). The comment stays: it moves to the
// front of what follows, in place of that text's line break.
func (n *node) keepComment(before []byte, i int) {
	c := commentLine(before)
	if c == nil {
		return
	}
	switch next := i + 1; {
	case n.kind == kObject && next < len(n.members):
		if kb := n.members[next].keyBefore; kb != nil {
			n.members[next].keyBefore = append(bytes.Clone(c), trimBreak(kb)...)
		}
	case n.kind == kArray && next < len(n.elems):
		if eb := n.elems[next].before; eb != nil {
			n.elems[next].before = append(bytes.Clone(c), trimBreak(eb)...)
		}
	default:
		n.inner = append(bytes.Clone(c), trimBreak(n.inner)...)
	}
}

// emptied: a container whose last entry went. Reprise only empties what it
// filled, and an empty container it fills gets a line break before its
// closing bracket; that break goes with the entries, so `{}` comes back as
// `{}`. (A container that held only whitespace, `{ }`, comes back as `{}`
// too: the one byte-level change a round trip can make.)
func (n *node) emptied() {
	if len(n.members)+len(n.elems) == 0 {
		n.inner = emptyInner(n.inner)
	}
}

// emptyInner takes out of an emptied container's inside the line break
// encode adds before the closing bracket: all of it when it is only
// whitespace, else the break after a closing block comment.
func emptyInner(inner []byte) []byte {
	if len(bytes.Trim(inner, " \t\r\n")) == 0 {
		return []byte{}
	}
	i := bytes.LastIndexByte(inner, '\n')
	if i < 0 || len(bytes.Trim(inner[i:], " \t\r\n")) != 0 {
		return inner
	}
	head := bytes.TrimRight(inner[:i], "\r")
	if bytes.HasSuffix(bytes.TrimRight(head, " \t"), []byte("*/")) {
		return head
	}
	return inner
}

func (n *node) appendElem(val *node) { n.elems = append(n.elems, val) }

// stringValue returns the string, or ok=false for other kinds.
func (n *node) stringValue() (string, bool) {
	if n == nil || n.kind != kString {
		return "", false
	}
	return n.str, true
}

// plain converts to encoding/json's generic form, for comparisons.
func (n *node) plain() (any, bool) {
	var b bytes.Buffer
	writeStd(&b, n)
	var v any
	dec := json.NewDecoder(&b)
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// sameValue compares two values as JSON (key order aside).
func sameValue(a, b *node) bool {
	va, ok1 := a.plain()
	vb, ok2 := b.plain()
	return ok1 && ok2 && reflect.DeepEqual(va, vb)
}
