package fake

import (
	"reflect"
	"strings"
	"testing"
)

func TestREPL(t *testing.T) {
	var got []string
	ready, eof := 0, false
	r := &REPL{
		Exiter: NewExiter(),
		Ready:  func() { ready++ },
		Line:   func(l string) { got = append(got, l) },
		EOF:    func() { eof = true },
	}
	r.Run(strings.NewReader("first\r\n\n/exit\nlast without newline"))
	if want := []string{"first", "/exit", "last without newline"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
	if ready != 4 || !eof {
		t.Errorf("ready printed %d times (want 4: at start and after each line), eof %v", ready, eof)
	}
}
