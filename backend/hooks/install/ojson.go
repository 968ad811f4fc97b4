package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// An order-preserving JSON tree that remembers the original text of every
// value. Re-encoding writes untouched values back byte for byte and lays out
// only the objects and arrays that were changed, in the file's own style. So
// editing one key of a user's settings file leaves the rest of it alone:
// key order, escapes (`"\u00e9"` stays as written), number spellings and
// hand formatting.

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
	raw     []byte // the original text; nil once built or changed
	str     string // kString
	lit     string // kNumber, kBool, kNull: the literal
	members []member
	elems   []*node
}

type member struct {
	key    string
	rawKey []byte // the original quoted key; nil for new keys
	val    *node
}

const maxDepth = 1000

// doc is a parsed file: the value plus what surrounds it and its style.
type doc struct {
	root   *node
	prefix []byte // BOM and whitespace before the value
	suffix []byte // whitespace after it (usually the trailing newline)
	style  style
}

type style struct {
	indent    string // one level: "  ", "    ", "\t"
	newline   string // "\n" or "\r\n"
	multiline bool   // false: the file is one line, write compact
}

var defaultStyle = style{indent: "  ", newline: "\n", multiline: true}

// parseDoc parses a whole file. Anything but exactly one JSON value with
// optional surrounding whitespace is an error.
func parseDoc(data []byte) (*doc, error) {
	d := &doc{style: detectStyle(data)}
	start := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		start = 3
	}
	start = skipSpace(data, start)
	d.prefix = data[:start]
	p := &parser{data: data[start:]}
	p.dec = json.NewDecoder(bytes.NewReader(p.data))
	p.dec.UseNumber()
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	end := int(p.dec.InputOffset())
	if _, err := p.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("more than one value")
		}
		return nil, fmt.Errorf("after the value: %w", err)
	}
	d.root = root
	d.suffix = p.data[end:]
	// A one-line file stays one line; an empty {} tells nothing, so it gets
	// the default layout.
	d.style.multiline = bytes.Contains(root.raw, []byte("\n")) || len(root.members)+len(root.elems) == 0
	return d, nil
}

type parser struct {
	data []byte
	dec  *json.Decoder
}

// next reads one token and returns it with its byte range.
func (p *parser) next() (json.Token, int, int, error) {
	// The decoder consumes separators lazily; skip them to find the start.
	start := int(p.dec.InputOffset())
	for start < len(p.data) {
		c := p.data[start]
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ',' && c != ':' {
			break
		}
		start++
	}
	tok, err := p.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, 0, err
	}
	return tok, start, int(p.dec.InputOffset()), nil
}

func (p *parser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	tok, start, end, err := p.next()
	if err != nil {
		return nil, err
	}
	n, err := p.build(tok, depth)
	if err != nil {
		return nil, err
	}
	if n.kind == kArray || n.kind == kObject {
		end = int(p.dec.InputOffset())
	}
	n.raw = p.data[start:end]
	return n, nil
}

func (p *parser) build(tok json.Token, depth int) (*node, error) {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: kObject, members: []member{}}
			for p.dec.More() {
				ktok, ks, ke, err := p.next()
				if err != nil {
					return nil, err
				}
				key, ok := ktok.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %T", ktok)
				}
				val, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{key: key, rawKey: p.data[ks:ke], val: val})
			}
			if _, _, _, err := p.next(); err != nil { // '}'
				return nil, err
			}
			return n, nil
		case '[':
			n := &node{kind: kArray, elems: []*node{}}
			for p.dec.More() {
				val, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, val)
			}
			if _, _, _, err := p.next(); err != nil { // ']'
				return nil, err
			}
			return n, nil
		}
		return nil, fmt.Errorf("unexpected %q", rune(t))
	case string:
		return &node{kind: kString, str: t}, nil
	case json.Number:
		return &node{kind: kNumber, lit: string(t)}, nil
	case bool:
		return &node{kind: kBool, lit: fmt.Sprint(t)}, nil
	case nil:
		return &node{kind: kNull, lit: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %T", tok)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
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
	writeNode(&b, d.root, 0, d.style)
	b.Write(d.suffix)
	return b.Bytes()
}

// clean: nothing in n changed since parsing.
func (n *node) clean() bool {
	if n.raw == nil {
		return false
	}
	for _, m := range n.members {
		if !m.val.clean() {
			return false
		}
	}
	for _, e := range n.elems {
		if !e.clean() {
			return false
		}
	}
	return true
}

func writeNode(b *bytes.Buffer, n *node, depth int, st style) {
	if n.clean() {
		b.Write(n.raw)
		return
	}
	sep, colon := "", ":"
	if st.multiline {
		colon = ": "
	}
	brk := func(d int) {
		if st.multiline {
			b.WriteString(st.newline)
			b.WriteString(strings.Repeat(st.indent, d))
		}
	}
	switch n.kind {
	case kObject:
		if len(n.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for _, m := range n.members {
			b.WriteString(sep)
			sep = ","
			brk(depth + 1)
			if m.rawKey != nil {
				b.Write(m.rawKey)
			} else {
				writeString(b, m.key)
			}
			b.WriteString(colon)
			writeNode(b, m.val, depth+1, st)
		}
		brk(depth)
		b.WriteByte('}')
	case kArray:
		if len(n.elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for _, e := range n.elems {
			b.WriteString(sep)
			sep = ","
			brk(depth + 1)
			writeNode(b, e, depth+1, st)
		}
		brk(depth)
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

// Building and editing. Every edit drops the edited node's raw text so the
// encoder lays it out again; its untouched children keep theirs.

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

func (n *node) set(key string, val *node) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			n.members[i].val = val
			n.raw = nil
			return
		}
	}
	n.members = append(n.members, kv(key, val))
	n.raw = nil
}

// del removes every member named key.
func (n *node) del(key string) {
	out := n.members[:0]
	for _, m := range n.members {
		if m.key != key {
			out = append(out, m)
		}
	}
	if len(out) != len(n.members) {
		n.members = out
		n.raw = nil
	}
}

func (n *node) setElem(i int, val *node) {
	n.elems[i] = val
	n.raw = nil
}

func (n *node) removeElem(i int) {
	n.elems = append(n.elems[:i], n.elems[i+1:]...)
	n.raw = nil
}

func (n *node) appendElem(val *node) {
	n.elems = append(n.elems, val)
	n.raw = nil
}

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
	writeNode(&b, n, 0, style{})
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
