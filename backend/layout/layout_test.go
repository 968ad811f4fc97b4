package layout

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/reprise-dev/reprise/backend/api"
)

// counter returns a deterministic id generator: tab_1, pane_2, split_3, …
func counter() func(string) string {
	n := 0
	return func(prefix string) string {
		n++
		return fmt.Sprintf("%s%d", prefix, n)
	}
}

func pane(id, term string) *api.Node {
	return &api.Node{Type: api.NodePane, ID: id, TerminalID: term}
}

func split(id, dir string, sizes []float64, children ...*api.Node) *api.Node {
	return &api.Node{Type: api.NodeSplit, ID: id, Direction: dir, Sizes: sizes, Children: children}
}

func tab(id, focus string, root *api.Node) *api.Tab {
	return &api.Tab{ID: id, Root: root, FocusedPaneID: focus}
}

func lay(active string, tabs ...*api.Tab) *api.Layout {
	if tabs == nil {
		tabs = []*api.Tab{}
	}
	return &api.Layout{Version: 7, ActiveTabID: active, Tabs: tabs}
}

// mustValid fails the test if l breaks an invariant.
func mustValid(t *testing.T, l *api.Layout) {
	t.Helper()
	if err := Validate(l); err != nil {
		t.Fatalf("result invalid: %v", err)
	}
}

// assertUnchanged fails if an operation modified its input.
func assertUnchanged(t *testing.T, before, after *api.Layout) {
	t.Helper()
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("input was mutated:\nbefore %s\nafter  %s", dump(before), dump(after))
	}
}

func dump(l *api.Layout) string {
	if l == nil {
		return "<nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "active=%s", l.ActiveTabID)
	for _, t := range l.Tabs {
		fmt.Fprintf(&b, " [%s focus=%s %s]", t.ID, t.FocusedPaneID, dumpNode(t.Root))
	}
	return b.String()
}

func dumpNode(n *api.Node) string {
	if n == nil {
		return "nil"
	}
	if n.Type == api.NodePane {
		return n.ID + ":" + n.TerminalID
	}
	parts := make([]string, len(n.Children))
	for i, c := range n.Children {
		parts[i] = fmt.Sprintf("%.3g=%s", n.Sizes[i], dumpNode(c))
	}
	return fmt.Sprintf("%s(%s %s)", n.Direction, n.ID, strings.Join(parts, " "))
}

func approxEqual(a, b *api.Layout) bool {
	return dump(a) == dump(b)
}

func TestAddTab(t *testing.T) {
	one := lay("tab_a", tab("tab_a", "pane_a", pane("pane_a", "t1")))
	tests := []struct {
		name     string
		in       *api.Layout
		term     string
		newID    func(string) string
		want     *api.Layout
		wantPane string
		wantErr  error
	}{
		{
			name: "nil layout", in: nil, term: "t1",
			want:     lay("tab_1", tab("tab_1", "pane_2", pane("pane_2", "t1"))),
			wantPane: "pane_2",
		},
		{
			name: "appends and activates", in: one, term: "t2",
			want: lay("tab_1",
				tab("tab_a", "pane_a", pane("pane_a", "t1")),
				tab("tab_1", "pane_2", pane("pane_2", "t2"))),
			wantPane: "pane_2",
		},
		{name: "empty terminal", in: one, term: "", wantErr: ErrInvalid},
		{name: "terminal already shown", in: one, term: "t1", wantErr: ErrInvalid},
		{
			name: "generator repeats an id", in: one, term: "t2",
			newID: func(string) string { return "pane_a" }, wantErr: ErrInvalid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gen := tt.newID
			if gen == nil {
				gen = counter()
			}
			before := Clone(tt.in)
			got, paneID, err := New(gen).AddTab(tt.in, tt.term)
			if tt.in != nil {
				assertUnchanged(t, before, tt.in)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mustValid(t, got)
			if paneID != tt.wantPane {
				t.Errorf("pane = %q, want %q", paneID, tt.wantPane)
			}
			if tt.in == nil {
				tt.want.Version = 0
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", dump(got), dump(tt.want))
			}
		})
	}
}

func TestZeroBuilderUsesRandomIDs(t *testing.T) {
	var b Builder
	l, p, err := b.AddTab(nil, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p, PrefixPane) || !strings.HasPrefix(l.Tabs[0].ID, PrefixTab) || len(p) != len(PrefixPane)+12 {
		t.Errorf("ids %q %q lack their prefix", l.Tabs[0].ID, p)
	}
	l, _, err = b.Split(l, p, api.DirRow, "t2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(l.Tabs[0].Root.ID, PrefixSplit) {
		t.Errorf("split id %q lacks its prefix", l.Tabs[0].Root.ID)
	}
}

func TestSplit(t *testing.T) {
	single := lay("tab_a", tab("tab_a", "a", pane("a", "ta")))
	row2 := lay("tab_a", tab("tab_a", "a", split("s", api.DirRow, []float64{0.5, 0.5}, pane("a", "ta"), pane("b", "tb"))))
	twoTabs := lay("tab_b",
		tab("tab_a", "a", pane("a", "ta")),
		tab("tab_b", "b", pane("b", "tb")))
	tests := []struct {
		name    string
		in      *api.Layout
		pane    string
		dir     string
		term    string
		want    *api.Layout
		wantErr error
	}{
		{
			name: "root pane right", in: single, pane: "a", dir: api.DirRow, term: "tn",
			want: lay("tab_a", tab("tab_a", "pane_1",
				split("split_2", api.DirRow, []float64{0.5, 0.5}, pane("a", "ta"), pane("pane_1", "tn")))),
		},
		{
			name: "root pane down", in: single, pane: "a", dir: api.DirColumn, term: "tn",
			want: lay("tab_a", tab("tab_a", "pane_1",
				split("split_2", api.DirColumn, []float64{0.5, 0.5}, pane("a", "ta"), pane("pane_1", "tn")))),
		},
		{
			name: "same direction joins the split and halves the share", in: row2, pane: "a", dir: api.DirRow, term: "tn",
			want: lay("tab_a", tab("tab_a", "pane_1",
				split("s", api.DirRow, []float64{0.25, 0.25, 0.5}, pane("a", "ta"), pane("pane_1", "tn"), pane("b", "tb")))),
		},
		{
			name: "other direction nests a split", in: row2, pane: "b", dir: api.DirColumn, term: "tn",
			want: lay("tab_a", tab("tab_a", "pane_1",
				split("s", api.DirRow, []float64{0.5, 0.5}, pane("a", "ta"),
					split("split_2", api.DirColumn, []float64{0.5, 0.5}, pane("b", "tb"), pane("pane_1", "tn"))))),
		},
		{
			name: "split in another tab activates it", in: twoTabs, pane: "a", dir: api.DirRow, term: "tn",
			want: lay("tab_a",
				tab("tab_a", "pane_1", split("split_2", api.DirRow, []float64{0.5, 0.5}, pane("a", "ta"), pane("pane_1", "tn"))),
				tab("tab_b", "b", pane("b", "tb"))),
		},
		{name: "unknown pane", in: single, pane: "zz", dir: api.DirRow, term: "tn", wantErr: ErrNotFound},
		{name: "empty pane id", in: single, pane: "", dir: api.DirRow, term: "tn", wantErr: ErrNotFound},
		{name: "a split is not a pane", in: row2, pane: "s", dir: api.DirRow, term: "tn", wantErr: ErrInvalid},
		{name: "bad direction", in: single, pane: "a", dir: "diagonal", term: "tn", wantErr: ErrInvalid},
		{name: "terminal in use", in: row2, pane: "a", dir: api.DirRow, term: "tb", wantErr: ErrInvalid},
		{name: "empty terminal", in: single, pane: "a", dir: api.DirRow, term: "", wantErr: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := Clone(tt.in)
			got, newPane, err := New(counter()).Split(tt.in, tt.pane, tt.dir, tt.term)
			assertUnchanged(t, before, tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mustValid(t, got)
			if newPane != "pane_1" {
				t.Errorf("new pane = %q", newPane)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", dump(got), dump(tt.want))
			}
		})
	}
}

func TestClosePane(t *testing.T) {
	row3 := func(focus string) *api.Layout {
		return lay("T", tab("T", focus, split("s", api.DirRow, []float64{0.2, 0.3, 0.5},
			pane("a", "ta"), pane("b", "tb"), pane("c", "tc"))))
	}
	threeTabs := func(active string) *api.Layout {
		return lay(active,
			tab("T1", "a", pane("a", "ta")),
			tab("T2", "b", pane("b", "tb")),
			tab("T3", "c", pane("c", "tc")))
	}
	tests := []struct {
		name       string
		in         *api.Layout
		pane       string
		want       *api.Layout
		wantClosed []string
		wantErr    error
	}{
		{
			name: "last pane of last tab leaves no tabs",
			in:   lay("T", tab("T", "a", pane("a", "ta"))), pane: "a",
			want: lay(""), wantClosed: []string{"ta"},
		},
		{
			name: "closing the active tab's only pane activates the right neighbour",
			in:   threeTabs("T2"), pane: "b",
			want:       lay("T3", tab("T1", "a", pane("a", "ta")), tab("T3", "c", pane("c", "tc"))),
			wantClosed: []string{"tb"},
		},
		{
			name: "closing the rightmost active tab activates the left neighbour",
			in:   threeTabs("T3"), pane: "c",
			want:       lay("T2", tab("T1", "a", pane("a", "ta")), tab("T2", "b", pane("b", "tb"))),
			wantClosed: []string{"tc"},
		},
		{
			name: "closing an inactive tab keeps the active one",
			in:   threeTabs("T3"), pane: "a",
			want:       lay("T3", tab("T2", "b", pane("b", "tb")), tab("T3", "c", pane("c", "tc"))),
			wantClosed: []string{"ta"},
		},
		{
			name: "focused middle pane: focus goes right, sizes renormalised",
			in:   row3("b"), pane: "b",
			want: lay("T", tab("T", "c", split("s", api.DirRow, []float64{0.2 / 0.7, 0.5 / 0.7},
				pane("a", "ta"), pane("c", "tc")))),
			wantClosed: []string{"tb"},
		},
		{
			name: "focused last pane: focus goes left",
			in:   row3("c"), pane: "c",
			want: lay("T", tab("T", "b", split("s", api.DirRow, []float64{0.4, 0.6},
				pane("a", "ta"), pane("b", "tb")))),
			wantClosed: []string{"tc"},
		},
		{
			name: "unfocused pane keeps focus",
			in:   row3("a"), pane: "c",
			want: lay("T", tab("T", "a", split("s", api.DirRow, []float64{0.4, 0.6},
				pane("a", "ta"), pane("b", "tb")))),
			wantClosed: []string{"tc"},
		},
		{
			name: "split left with one child is replaced by it",
			in: lay("T", tab("T", "a", split("s", api.DirRow, []float64{0.5, 0.5},
				pane("a", "ta"),
				split("c", api.DirColumn, []float64{0.3, 0.7}, pane("b", "tb"), pane("d", "td"))))),
			pane: "a",
			want: lay("T", tab("T", "b",
				split("c", api.DirColumn, []float64{0.3, 0.7}, pane("b", "tb"), pane("d", "td")))),
			wantClosed: []string{"ta"},
		},
		{
			name: "focus goes to the nearest pane of the previous sibling subtree",
			in: lay("T", tab("T", "x", split("s", api.DirRow, []float64{0.5, 0.5},
				split("c", api.DirColumn, []float64{0.5, 0.5}, pane("b", "tb"), pane("d", "td")),
				pane("x", "tx")))),
			pane: "x",
			want: lay("T", tab("T", "d",
				split("c", api.DirColumn, []float64{0.5, 0.5}, pane("b", "tb"), pane("d", "td")))),
			wantClosed: []string{"tx"},
		},
		{
			name: "a collapsed split of the grandparent's direction is flattened into it",
			in: lay("T", tab("T", "a", split("r", api.DirRow, []float64{0.4, 0.6},
				pane("a", "ta"),
				split("c", api.DirColumn, []float64{0.5, 0.5},
					pane("b", "tb"),
					split("r2", api.DirRow, []float64{0.25, 0.75}, pane("d", "td"), pane("e", "te")))))),
			pane: "b",
			want: lay("T", tab("T", "a", split("r", api.DirRow, []float64{0.4, 0.15, 0.45},
				pane("a", "ta"), pane("d", "td"), pane("e", "te")))),
			wantClosed: []string{"tb"},
		},
		{name: "unknown pane", in: row3("a"), pane: "nope", wantErr: ErrNotFound},
		{name: "a split is not a pane", in: row3("a"), pane: "s", wantErr: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := Clone(tt.in)
			got, closed, err := ClosePane(tt.in, tt.pane)
			assertUnchanged(t, before, tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mustValid(t, got)
			if !reflect.DeepEqual(closed, tt.wantClosed) {
				t.Errorf("closed = %v, want %v", closed, tt.wantClosed)
			}
			if !approxEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", dump(got), dump(tt.want))
			}
		})
	}
}

func TestCloseTab(t *testing.T) {
	in := lay("T1",
		tab("T1", "b", split("s", api.DirRow, []float64{0.5, 0.5},
			split("c", api.DirColumn, []float64{0.5, 0.5}, pane("a", "ta"), pane("b", "tb")),
			pane("d", "td"))),
		tab("T2", "e", pane("e", "te")))
	tests := []struct {
		name       string
		tab        string
		want       *api.Layout
		wantClosed []string
		wantErr    error
	}{
		{
			name: "active tab with splits", tab: "T1",
			want:       lay("T2", tab("T2", "e", pane("e", "te"))),
			wantClosed: []string{"ta", "tb", "td"},
		},
		{
			name: "inactive tab", tab: "T2",
			want:       lay("T1", Clone(in).Tabs[0]),
			wantClosed: []string{"te"},
		},
		{name: "unknown tab", tab: "T9", wantErr: ErrNotFound},
		{name: "empty id", tab: "", wantErr: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := Clone(in)
			got, closed, err := CloseTab(in, tt.tab)
			assertUnchanged(t, before, in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mustValid(t, got)
			if !reflect.DeepEqual(closed, tt.wantClosed) {
				t.Errorf("closed = %v, want %v", closed, tt.wantClosed)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", dump(got), dump(tt.want))
			}
		})
	}
	t.Run("closing every tab leaves an empty valid layout", func(t *testing.T) {
		l := in
		for len(l.Tabs) > 0 {
			var err error
			if l, _, err = CloseTab(l, l.Tabs[0].ID); err != nil {
				t.Fatal(err)
			}
			mustValid(t, l)
		}
		if l.ActiveTabID != "" {
			t.Errorf("active = %q", l.ActiveTabID)
		}
	})
}

func twoTabLayout() *api.Layout {
	return lay("T1",
		tab("T1", "a", split("s", api.DirRow, []float64{0.5, 0.5}, pane("a", "ta"), pane("b", "tb"))),
		tab("T2", "c", pane("c", "tc")))
}

func TestFocusAndActivate(t *testing.T) {
	tests := []struct {
		name       string
		op         func(*api.Layout) (*api.Layout, error)
		wantActive string
		wantFocus  map[string]string
		wantErr    error
	}{
		{
			name:       "focus in active tab",
			op:         func(l *api.Layout) (*api.Layout, error) { return Focus(l, "b") },
			wantActive: "T1", wantFocus: map[string]string{"T1": "b", "T2": "c"},
		},
		{
			name:       "focus in other tab activates it",
			op:         func(l *api.Layout) (*api.Layout, error) { return Focus(l, "c") },
			wantActive: "T2", wantFocus: map[string]string{"T1": "a", "T2": "c"},
		},
		{name: "focus unknown", op: func(l *api.Layout) (*api.Layout, error) { return Focus(l, "x") }, wantErr: ErrNotFound},
		{name: "focus a split", op: func(l *api.Layout) (*api.Layout, error) { return Focus(l, "s") }, wantErr: ErrInvalid},
		{
			name:       "activate keeps each tab's focus",
			op:         func(l *api.Layout) (*api.Layout, error) { return ActivateTab(l, "T2") },
			wantActive: "T2", wantFocus: map[string]string{"T1": "a", "T2": "c"},
		},
		{name: "activate unknown", op: func(l *api.Layout) (*api.Layout, error) { return ActivateTab(l, "T9") }, wantErr: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := twoTabLayout()
			before := Clone(in)
			got, err := tt.op(in)
			assertUnchanged(t, before, in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mustValid(t, got)
			if got.ActiveTabID != tt.wantActive {
				t.Errorf("active = %q, want %q", got.ActiveTabID, tt.wantActive)
			}
			for _, tb := range got.Tabs {
				if tb.FocusedPaneID != tt.wantFocus[tb.ID] {
					t.Errorf("tab %s focus = %q, want %q", tb.ID, tb.FocusedPaneID, tt.wantFocus[tb.ID])
				}
			}
		})
	}
}

func TestResize(t *testing.T) {
	tests := []struct {
		name    string
		split   string
		sizes   []float64
		want    []float64
		wantErr error
	}{
		{name: "fractions", split: "s", sizes: []float64{0.3, 0.7}, want: []float64{0.3, 0.7}},
		{name: "pixels are renormalised", split: "s", sizes: []float64{300, 100}, want: []float64{0.75, 0.25}},
		{name: "sloppy sum is renormalised", split: "s", sizes: []float64{0.25, 0.25}, want: []float64{0.5, 0.5}},
		{name: "wrong count", split: "s", sizes: []float64{0.2, 0.3, 0.5}, wantErr: ErrInvalid},
		{name: "too small", split: "s", sizes: []float64{0.01, 0.99}, wantErr: ErrInvalid},
		{name: "at the minimum", split: "s", sizes: []float64{MinSize, 1 - MinSize}, wantErr: ErrInvalid},
		{name: "too small after renormalising", split: "s", sizes: []float64{1, 100}, wantErr: ErrInvalid},
		{name: "zero", split: "s", sizes: []float64{0, 1}, wantErr: ErrInvalid},
		{name: "negative", split: "s", sizes: []float64{-0.5, 1.5}, wantErr: ErrInvalid},
		{name: "NaN", split: "s", sizes: []float64{math.NaN(), 0.5}, wantErr: ErrInvalid},
		{name: "Inf", split: "s", sizes: []float64{math.Inf(1), 0.5}, wantErr: ErrInvalid},
		{name: "overflowing sum", split: "s", sizes: []float64{math.MaxFloat64, math.MaxFloat64}, wantErr: ErrInvalid},
		{name: "a pane is not a split", split: "a", sizes: []float64{0.5, 0.5}, wantErr: ErrInvalid},
		{name: "unknown split", split: "zz", sizes: []float64{0.5, 0.5}, wantErr: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := twoTabLayout()
			before := Clone(in)
			got, err := Resize(in, tt.split, tt.sizes)
			assertUnchanged(t, before, in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mustValid(t, got)
			if s := got.Tabs[0].Root.Sizes; !reflect.DeepEqual(s, tt.want) {
				t.Errorf("sizes = %v, want %v", s, tt.want)
			}
		})
	}
}

func TestReplaceTerminal(t *testing.T) {
	tests := []struct {
		name    string
		pane    string
		term    string
		wantOld string
		wantErr error
	}{
		{name: "new terminal", pane: "a", term: "tz", wantOld: "ta"},
		{name: "same terminal is a no-op", pane: "a", term: "ta", wantOld: "ta"},
		{name: "terminal shown elsewhere", pane: "a", term: "tc", wantErr: ErrInvalid},
		{name: "empty terminal", pane: "a", term: "", wantErr: ErrInvalid},
		{name: "unknown pane", pane: "q", term: "tz", wantErr: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := twoTabLayout()
			before := Clone(in)
			got, old, err := ReplaceTerminal(in, tt.pane, tt.term)
			assertUnchanged(t, before, in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mustValid(t, got)
			if old != tt.wantOld {
				t.Errorf("old = %q, want %q", old, tt.wantOld)
			}
			if p, ok := PaneOfTerminal(got, tt.term); !ok || p.PaneID != tt.pane {
				t.Errorf("PaneOfTerminal(%q) = %v, %v", tt.term, p, ok)
			}
		})
	}
}

func TestQueries(t *testing.T) {
	l := lay("T1",
		tab("T1", "a", split("s", api.DirRow, []float64{0.5, 0.5},
			split("c", api.DirColumn, []float64{0.5, 0.5}, pane("a", "ta"), pane("b", "tb")),
			pane("d", "td"))),
		tab("T2", "e", pane("e", "te")))
	want := []PaneRef{
		{TabID: "T1", PaneID: "a", TerminalID: "ta"},
		{TabID: "T1", PaneID: "b", TerminalID: "tb"},
		{TabID: "T1", PaneID: "d", TerminalID: "td"},
		{TabID: "T2", PaneID: "e", TerminalID: "te"},
	}
	if got := Panes(l); !reflect.DeepEqual(got, want) {
		t.Errorf("Panes = %v, want %v", got, want)
	}
	if got := Panes(nil); len(got) != 0 {
		t.Errorf("Panes(nil) = %v", got)
	}
	tests := []struct {
		name   string
		find   func() (PaneRef, bool)
		want   PaneRef
		wantOK bool
	}{
		{name: "FindPane hit", find: func() (PaneRef, bool) { return FindPane(l, "d") }, want: want[2], wantOK: true},
		{name: "FindPane miss", find: func() (PaneRef, bool) { return FindPane(l, "s") }},
		{name: "PaneOfTerminal hit", find: func() (PaneRef, bool) { return PaneOfTerminal(l, "te") }, want: want[3], wantOK: true},
		{name: "PaneOfTerminal miss", find: func() (PaneRef, bool) { return PaneOfTerminal(l, "tq") }},
		{name: "PaneOfTerminal empty", find: func() (PaneRef, bool) { return PaneOfTerminal(l, "") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.find()
			if ok != tt.wantOK || got != tt.want {
				t.Errorf("got %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestCloneIsDeep(t *testing.T) {
	in := twoTabLayout()
	c := Clone(in)
	c.Tabs[0].Root.Sizes[0] = 0.9
	c.Tabs[0].Root.Children[0].TerminalID = "changed"
	c.Tabs[1].FocusedPaneID = "changed"
	if !reflect.DeepEqual(in, twoTabLayout()) {
		t.Fatal("Clone shares memory with its input")
	}
	if got := Clone(nil); got == nil || got.Tabs == nil {
		t.Fatalf("Clone(nil) = %#v, want empty layout with non-nil tabs", got)
	}
}

func TestRenameTab(t *testing.T) {
	in := twoTabLayout()
	before := Clone(in)
	got, err := RenameTab(in, "T2", "  logs  ")
	if err != nil {
		t.Fatal(err)
	}
	assertUnchanged(t, before, in)
	mustValid(t, got)
	if got.Tabs[1].Title != "logs" || got.Tabs[0].Title != "" {
		t.Fatalf("titles = %q, %q; want \"\", \"logs\"", got.Tabs[0].Title, got.Tabs[1].Title)
	}
	back, err := RenameTab(got, "T2", " ")
	if err != nil || back.Tabs[1].Title != "" {
		t.Fatalf("clearing the title: %q, %v", back.Tabs[1].Title, err)
	}
	for _, bad := range []string{"a\nb", "a\x1b[31mb", strings.Repeat("x", MaxTitle+1), "\xff"} {
		if _, err := RenameTab(in, "T1", bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("RenameTab(%q) err = %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := RenameTab(in, "T9", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown tab: err = %v", err)
	}
}

func TestMoveTab(t *testing.T) {
	three := func() *api.Layout {
		return lay("T1", tab("T1", "a", pane("a", "ta")), tab("T2", "b", pane("b", "tb")), tab("T3", "c", pane("c", "tc")))
	}
	order := func(l *api.Layout) string {
		var ids []string
		for _, t := range l.Tabs {
			ids = append(ids, t.ID)
		}
		return strings.Join(ids, ",")
	}
	for _, tt := range []struct {
		id    string
		index int
		want  string
	}{
		{"T1", 2, "T2,T3,T1"},
		{"T3", 0, "T3,T1,T2"},
		{"T2", 1, "T1,T2,T3"},
		{"T1", 99, "T2,T3,T1"},
		{"T3", -5, "T3,T1,T2"},
	} {
		in := three()
		before := Clone(in)
		got, err := MoveTab(in, tt.id, tt.index)
		if err != nil {
			t.Fatal(err)
		}
		assertUnchanged(t, before, in)
		mustValid(t, got)
		if order(got) != tt.want || got.ActiveTabID != "T1" {
			t.Errorf("MoveTab(%s, %d) = %s (active %s), want %s (active T1)", tt.id, tt.index, order(got), got.ActiveTabID, tt.want)
		}
	}
	if _, err := MoveTab(three(), "T9", 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown tab: err = %v", err)
	}
}
