package layout

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/reprise-dev/reprise/backend/api"
)

func TestValidate(t *testing.T) {
	row := func(sizes []float64, children ...*api.Node) *api.Node {
		return split("s", api.DirRow, sizes, children...)
	}
	tests := []struct {
		name string
		l    *api.Layout
		want string // substring of the error; empty means valid
	}{
		{name: "empty", l: lay("")},
		{name: "nil tabs", l: &api.Layout{}},
		{name: "good", l: twoTabLayout()},
		{name: "nil layout", l: nil, want: "nil"},
		{name: "active set with no tabs", l: lay("T"), want: `active tab "T" set but there are no tabs`},
		{name: "active tab missing", l: lay("T9", tab("T", "a", pane("a", "ta"))), want: `active tab "T9" does not exist`},
		{name: "no active tab", l: lay("", tab("T", "a", pane("a", "ta"))), want: `active tab "" does not exist`},
		{name: "nil tab", l: lay("T", nil), want: "tab 0 is nil"},
		{name: "nil root", l: lay("T", tab("T", "a", nil)), want: `tab "T" has no root`},
		{name: "empty tab id", l: lay("", tab("", "a", pane("a", "ta"))), want: "tab 0 has an empty id"},
		{name: "empty pane id", l: lay("T", tab("T", "", pane("", "ta"))), want: "empty id"},
		{
			name: "duplicate pane ids",
			l:    lay("T", tab("T", "a", row([]float64{0.5, 0.5}, pane("a", "ta"), pane("a", "tb")))),
			want: `id "a" is used by pane "a" and pane "a"`,
		},
		{
			name: "tab and pane share an id",
			l:    lay("a", tab("a", "a", pane("a", "ta"))),
			want: `id "a" is used by tab 0 and pane "a"`,
		},
		{
			name: "duplicate across tabs",
			l:    lay("T", tab("T", "a", pane("a", "ta")), tab("U", "a", pane("a", "tb"))),
			want: `id "a" is used by`,
		},
		{
			name: "terminal in two panes",
			l:    lay("T", tab("T", "a", row([]float64{0.5, 0.5}, pane("a", "ta"), pane("b", "ta")))),
			want: `terminal "ta" is in panes "a" and "b"`,
		},
		{name: "pane without terminal", l: lay("T", tab("T", "a", pane("a", ""))), want: `pane "a" has no terminal`},
		{
			name: "pane with children",
			l:    lay("T", tab("T", "a", &api.Node{Type: api.NodePane, ID: "a", TerminalID: "ta", Children: []*api.Node{pane("b", "tb")}})),
			want: `pane "a" has children`,
		},
		{
			name: "split with one child",
			l:    lay("T", tab("T", "a", row([]float64{1}, pane("a", "ta")))),
			want: `split "s" has 1 children, want at least 2`,
		},
		{
			name: "sizes count mismatch",
			l:    lay("T", tab("T", "a", row([]float64{1}, pane("a", "ta"), pane("b", "tb")))),
			want: `split "s" has 1 sizes for 2 children`,
		},
		{
			name: "sizes do not sum to 1",
			l:    lay("T", tab("T", "a", row([]float64{0.5, 0.6}, pane("a", "ta"), pane("b", "tb")))),
			want: `sizes sum to 1.1`,
		},
		{
			name: "zero size",
			l:    lay("T", tab("T", "a", row([]float64{0, 1}, pane("a", "ta"), pane("b", "tb")))),
			want: `split "s" has size 0`,
		},
		{
			name: "NaN size",
			l:    lay("T", tab("T", "a", row([]float64{math.NaN(), 1}, pane("a", "ta"), pane("b", "tb")))),
			want: `size NaN`,
		},
		{
			name: "bad direction",
			l:    lay("T", tab("T", "a", split("s", "diag", []float64{0.5, 0.5}, pane("a", "ta"), pane("b", "tb")))),
			want: `split "s" has direction "diag"`,
		},
		{name: "bad node type", l: lay("T", tab("T", "a", &api.Node{Type: "blob", ID: "a"})), want: `node "a" has type "blob"`},
		{
			name: "nil child",
			l:    lay("T", tab("T", "a", row([]float64{0.5, 0.5}, pane("a", "ta"), nil))),
			want: `tab "T" has a nil node`,
		},
		{name: "focused pane missing", l: lay("T", tab("T", "zz", pane("a", "ta"))), want: `tab "T": focused pane "zz" is not a pane of the tab`},
		{
			name: "focused pane in another tab",
			l:    lay("T", tab("T", "b", pane("a", "ta")), tab("U", "b", pane("b", "tb"))),
			want: `tab "T": focused pane "b"`,
		},
		{
			name: "focused id is a split",
			l:    lay("T", tab("T", "s", row([]float64{0.5, 0.5}, pane("a", "ta"), pane("b", "tb")))),
			want: `focused pane "s" is not a pane`,
		},
		{
			name: "many problems are capped",
			l: lay("X", tab("T", "q", row([]float64{2, 2, 2, 2, 2},
				pane("a", ""), pane("b", ""), pane("c", ""), pane("d", ""), pane("e", ""), pane("f", ""), pane("g", ""), pane("h", "")))),
			want: "more",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.l)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate = nil, want error containing %q", tt.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}
