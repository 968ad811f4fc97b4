package install

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

func TestParseEncodeIdentity(t *testing.T) {
	for _, in := range []string{
		`{}`, "{}\n", `[]`, `"s"`, `0`, `-1.5e-3`, `true`, `null`,
		"{\n  \"a\": [1, 2,3],\n  \"b\" :{\"c\":\"\\u00e9\\/\"}\n}\n",
		"\t{ \"dup\": 1, \"dup\": 2 }  \n\n",
		"{\"\\u0041\": \"\\ud83d\\ude00\", \"x\": [[], {}, [{}]]}",
	} {
		d, err := parseDoc([]byte(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if out := string(d.encode()); out != in {
			t.Fatalf("%q re-encoded as %q", in, out)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{``, ` `, `{`, `{"a"}`, `{,}`, `[,]`, `[1,,]`, `{"a":1 /* open`, `{} {}`, `{}x`, `01`, `{"a":01}`, `{'a':1}`, "{\"a\":\"\x01\"}", `{"a":"\x"}`, strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)} {
		if _, err := parseDoc([]byte(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestEditKeepsNeighbours(t *testing.T) {
	in := "{\n    \"a\": {\"x\":1},\n    \"list\": [\n        \"\\u00e9\"\n    ],\n    \"z\": 1.50\n}"
	d, err := parseDoc([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	d.root.get("list").appendElem(newString("new \"one\" \x01 é"))
	d.root.set("b", newObject(kv("k", newArray())))
	want := "{\n    \"a\": {\"x\":1},\n    \"list\": [\n        \"\\u00e9\",\n        \"new \\\"one\\\" \\u0001 é\"\n    ],\n    \"z\": 1.50,\n    \"b\": {\n        \"k\": []\n    }\n}"
	if got := string(d.encode()); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDetectStyle(t *testing.T) {
	for in, want := range map[string]style{
		"{\n  \"a\": 1\n}\n":       {"  ", "\n", true},
		"{\n    \"a\": 1\n}":       {"    ", "\n", true},
		"{\r\n\t\"a\": 1\r\n}\r\n": {"\t", "\r\n", true},
		"{\"a\":1}\n":              {"  ", "\n", false},
		"{}":                       {"  ", "\n", true},
	} {
		d, err := parseDoc([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if d.style != want {
			t.Errorf("%q: %+v, want %+v", in, d.style, want)
		}
	}
}

// FuzzOrderedJSON: whatever parses re-encodes to the same bytes when
// untouched, and to equivalent JSON in the file's style when every node is
// laid out again.
func FuzzOrderedJSON(f *testing.F) {
	for _, s := range []string{`{}`, "{\n  \"a\": [1, {\"b\": null}]\n}\n", "{\"\\ud800\": \"\\u00e9\"}", `[1e5, -0.0, "x"]`, "\xef\xbb\xbf{}",
		"{\n  // c\n  \"a\": [1, /* x */ 2,],\n}\n", "{\"a\":1 // end"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseDoc(data)
		if err != nil {
			return
		}
		if !bytes.Equal(d.encode(), data) {
			t.Fatalf("untouched %q re-encoded as %q", data, d.encode())
		}
		want, ok := standardValue(data)
		if !ok {
			return // encoding/json is stricter on some inputs (invalid UTF-8 in keys): nothing to compare
		}
		dirty(d.root)
		out := d.encode()
		got, ok := standardValue(out)
		if !ok {
			t.Fatalf("re-laid %q is not json:\n%q", data, out)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("re-laid %q changed meaning: %q", data, out)
		}
	})
}

// standardValue parses JWCC text with hujson's Standardize and encoding/json
// (independently of parseDoc).
func standardValue(data []byte) (any, bool) {
	data = bytes.TrimPrefix(data, bom)
	std, err := hujson.Standardize(bytes.Clone(data))
	if err != nil {
		// A final line comment without a line break.
		if std, err = hujson.Standardize(append(bytes.Clone(data), '\n')); err != nil {
			return nil, false
		}
	}
	var v any
	if err := json.Unmarshal(std, &v); err != nil {
		return nil, false
	}
	return v, true
}

// dirty makes every node one Reprise built, laid out afresh.
func dirty(n *node) {
	n.parsed, n.before, n.after = false, nil, nil
	for i := range n.members {
		n.members[i].keyBefore = nil
		dirty(n.members[i].val)
	}
	for _, e := range n.elems {
		dirty(e)
	}
}
