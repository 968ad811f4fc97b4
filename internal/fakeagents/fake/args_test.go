package fake

import (
	"errors"
	"testing"
)

func TestParseArgs(t *testing.T) {
	e := ArgErrors{
		TooMany:      func(a string) error { return errors.New("too many " + a) },
		MissingValue: func(name string) error { return errors.New("missing " + name) },
		Unknown:      func(a, name string) error { return errors.New("unknown " + a + " " + name) },
	}
	parse := func(args ...string) (string, string, error) {
		var id string
		p, _, err := ParseArgs(args, e, func(name string, value func() (string, error)) (bool, error) {
			if name != "--id" && name != "-i" {
				return false, nil
			}
			var err error
			id, err = value()
			return true, err
		})
		return p, id, err
	}
	for _, c := range []struct {
		args       []string
		prompt, id string
		err        string
	}{
		{[]string{"--id", "a", "hi"}, "hi", "a", ""},
		{[]string{"--id=b", "hi"}, "hi", "b", ""},
		{[]string{"-i", "c"}, "", "c", ""},
		{[]string{"-i=d"}, "", "", "unknown -i=d -i=d"}, // a short flag takes no inline value
		{[]string{"--", "--id"}, "--id", "", ""},
		{[]string{"-"}, "-", "", ""},
		{[]string{"--id"}, "", "", "missing --id"},
		{[]string{"a", "b"}, "a", "", "too many b"},
		{[]string{"--x=1"}, "", "", "unknown --x=1 --x"},
	} {
		p, id, err := parse(c.args...)
		if msg := ""; err != nil {
			msg = err.Error()
			if msg != c.err {
				t.Errorf("%q: error %q, want %q", c.args, msg, c.err)
			}
		} else if c.err != "" {
			t.Errorf("%q: no error, want %q", c.args, c.err)
		}
		if err == nil && (p != c.prompt || id != c.id) {
			t.Errorf("%q: prompt %q id %q, want %q %q", c.args, p, id, c.prompt, c.id)
		}
	}
}
