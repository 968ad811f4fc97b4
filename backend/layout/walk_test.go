package layout

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/reprise-dev/reprise/backend/api"
)

// walker applies a byte-coded sequence of operations to a layout and checks
// after each one that the input was not touched, the result is valid, and the
// terminals it shows are exactly those it was given minus those it returned
// as closed.
type walker struct {
	t     testing.TB
	b     *Builder
	l     *api.Layout
	next  int
	terms map[string]bool
}

func newWalker(t testing.TB) *walker {
	return &walker{t: t, b: New(counter()), l: Clone(nil), terms: map[string]bool{}}
}

func (w *walker) term() string {
	w.next++
	return fmt.Sprintf("term_%d", w.next)
}

func pick[T any](s []T, k byte) (T, bool) {
	var zero T
	if len(s) == 0 {
		return zero, false
	}
	return s[int(k)%len(s)], true
}

func (w *walker) splits() []*api.Node {
	var out []*api.Node
	for _, tb := range w.l.Tabs {
		walkNodes(tb.Root, func(n *api.Node) {
			if n.Type == api.NodeSplit {
				out = append(out, n)
			}
		})
	}
	return out
}

// run interprets data three bytes at a time: an opcode and two arguments.
func (w *walker) run(data []byte) {
	const maxSteps = 400
	for i := 0; i+3 <= len(data) && i/3 < maxSteps; i += 3 {
		w.step(data[i], data[i+1], data[i+2])
	}
}

func (w *walker) step(op, a, c byte) {
	t := w.t
	t.Helper()
	before := Clone(w.l)
	in := w.l
	panes := Panes(in)
	var (
		out       *api.Layout
		err       error
		added     string   // terminal the op put in
		closed    []string // terminals the op took out
		focus     string   // pane that must now be focused in the active tab
		allowErr  error    // an error this op may legitimately return
		name      string
		wantFound = true
	)
	switch op % 12 {
	case 0:
		name = "AddTab"
		added = w.term()
		out, focus, err = w.b.AddTab(in, added)
	case 1, 2, 3:
		p, ok := pick(panes, a)
		if !ok {
			return
		}
		dir := api.DirRow
		if c%2 == 1 {
			dir = api.DirColumn
		}
		name = "Split " + p.PaneID + " " + dir
		added = w.term()
		out, focus, err = w.b.Split(in, p.PaneID, dir, added)
	case 4, 5, 6:
		p, ok := pick(panes, a)
		if !ok {
			return
		}
		name = "ClosePane " + p.PaneID
		out, closed, err = ClosePane(in, p.PaneID)
		if err == nil && !slices.Equal(closed, []string{p.TerminalID}) {
			t.Fatalf("%s closed %v, want [%s]", name, closed, p.TerminalID)
		}
	case 7:
		tb, ok := pick(in.Tabs, a)
		if !ok {
			return
		}
		name = "CloseTab " + tb.ID
		out, closed, err = CloseTab(in, tb.ID)
	case 8, 9:
		if tb, ok := pick(in.Tabs, a); ok && c%2 == 0 {
			name = "ActivateTab " + tb.ID
			out, err = ActivateTab(in, tb.ID)
			focus = tb.FocusedPaneID
		} else if p, ok := pick(panes, a); ok {
			name = "Focus " + p.PaneID
			out, err = Focus(in, p.PaneID)
			focus = p.PaneID
		} else {
			return
		}
	case 10:
		s, ok := pick(w.splits(), a)
		if !ok {
			return
		}
		sizes := make([]float64, len(s.Children))
		for k := range sizes {
			sizes[k] = float64(1 + (int(c)*(k+7))%23)
		}
		name = fmt.Sprintf("Resize %s %v", s.ID, sizes)
		allowErr = ErrInvalid // a share can fall under MinSize
		out, err = Resize(in, s.ID, sizes)
	case 11:
		if p, ok := pick(panes, a); ok && c%3 != 0 {
			name = "ReplaceTerminal " + p.PaneID
			added = w.term()
			closed = []string{p.TerminalID}
			var old string
			out, old, err = ReplaceTerminal(in, p.PaneID, added)
			if err == nil && old != p.TerminalID {
				t.Fatalf("%s returned old %q, want %q", name, old, p.TerminalID)
			}
		} else {
			// Operations on ids that do not exist must fail cleanly.
			name = "unknown ids"
			wantFound = false
			var err2, err3, err4 error
			_, _, err = ClosePane(in, "pane_missing")
			_, _, err2 = w.b.Split(in, "pane_missing", api.DirRow, "term_x")
			_, err3 = Focus(in, "pane_missing")
			_, _, err4 = CloseTab(in, "tab_missing")
			for _, e := range []error{err, err2, err3, err4} {
				if !errors.Is(e, ErrNotFound) {
					t.Fatalf("op on missing id: err = %v, want ErrNotFound", e)
				}
			}
		}
	}
	if !reflect.DeepEqual(before, in) {
		t.Fatalf("%s mutated its input:\nbefore %s\nafter  %s", name, dump(before), dump(in))
	}
	if !wantFound {
		return
	}
	if err != nil {
		if allowErr != nil && errors.Is(err, allowErr) {
			return
		}
		t.Fatalf("%s on %s: %v", name, dump(in), err)
	}
	if err := Validate(out); err != nil {
		t.Fatalf("%s on %s\ngave %s\n%v", name, dump(in), dump(out), err)
	}
	if out.Version != in.Version {
		t.Fatalf("%s changed the version", name)
	}
	checkNoSameDirectionNesting(t, out)
	for _, c := range closed {
		delete(w.terms, c)
	}
	if added != "" {
		w.terms[added] = true
	}
	got := map[string]bool{}
	for _, p := range Panes(out) {
		got[p.TerminalID] = true
	}
	if !reflect.DeepEqual(got, w.terms) {
		t.Fatalf("%s: layout shows terminals %v, want %v", name, got, w.terms)
	}
	if focus != "" {
		i := tabIndex(out, out.ActiveTabID)
		if i < 0 || out.Tabs[i].FocusedPaneID != focus {
			t.Fatalf("%s: active tab's focus is not %q: %s", name, focus, dump(out))
		}
	}
	w.l = out
}

// checkNoSameDirectionNesting asserts the tree stays canonical: Split joins
// a same-direction parent and ClosePane flattens, so a row never sits
// directly inside a row.
func checkNoSameDirectionNesting(t testing.TB, l *api.Layout) {
	t.Helper()
	for _, tb := range l.Tabs {
		walkNodes(tb.Root, func(n *api.Node) {
			for _, c := range n.Children {
				if c.Type == api.NodeSplit && c.Direction == n.Direction {
					t.Fatalf("split %q nests split %q of the same direction: %s", n.ID, c.ID, dump(l))
				}
			}
		})
	}
}

func TestRandomWalk(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0x5eed))
			data := make([]byte, 3*400)
			for i := range data {
				data[i] = byte(r.UintN(256))
			}
			w := newWalker(t)
			w.run(data)
		})
	}
}

func FuzzOps(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 1, 0, 0, 2, 1, 1, 4, 0, 0})                    // add, split right, split down, close
	f.Add([]byte{0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 10, 0, 5, 4, 1, 0}) // a row of four, resize, close
	f.Add([]byte{0, 0, 0, 0, 0, 0, 7, 1, 0, 8, 0, 0, 7, 0, 0, 11, 0, 3}) // tabs opened and closed, missing ids
	f.Add([]byte{0, 0, 0, 1, 0, 0, 2, 1, 1, 1, 2, 0, 4, 1, 0, 11, 0, 1}) // nested splits collapse, replace
	f.Fuzz(func(t *testing.T, data []byte) {
		newWalker(t).run(data)
	})
}
