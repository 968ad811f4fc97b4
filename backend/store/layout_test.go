package store

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/layout"
)

func counter() func(string) string {
	n := 0
	return func(prefix string) string {
		n++
		return fmt.Sprintf("%s%d", prefix, n)
	}
}

// seedTerminals creates terminals t1..tn.
func seedTerminals(t *testing.T, s *Store, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		if _, err := s.CreateTerminal(t.Context(), Terminal{ID: fmt.Sprintf("t%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
}

// sampleLayout has two tabs, one with nested splits, the second active.
func sampleLayout(t *testing.T) *api.Layout {
	t.Helper()
	b := layout.New(counter())
	l, p1, err := b.AddTab(nil, "t1")
	must(t, err)
	l, p2, err := b.Split(l, p1, api.DirRow, "t2")
	must(t, err)
	l, _, err = b.Split(l, p2, api.DirColumn, "t3")
	must(t, err)
	l, err = layout.Resize(l, l.Tabs[0].Root.ID, []float64{0.3, 0.7})
	must(t, err)
	l, _, err = b.AddTab(l, "t4")
	must(t, err)
	l.Tabs[1].Title = "logs"
	return l
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

type paneMirror struct{ ID, TabID, TerminalID string }

func panesTable(t *testing.T, s *Store) []paneMirror {
	t.Helper()
	var rows []paneRow
	must(t, s.db.WithContext(t.Context()).Order("id").Find(&rows).Error)
	out := []paneMirror{}
	for _, r := range rows {
		out = append(out, paneMirror(r))
	}
	return out
}

func mirrorOf(l *api.Layout) []paneMirror {
	out := []paneMirror{}
	for _, p := range layout.Panes(l) {
		out = append(out, paneMirror{ID: p.PaneID, TabID: p.TabID, TerminalID: p.TerminalID})
	}
	slices.SortFunc(out, func(a, b paneMirror) int { return strings.Compare(a.ID, b.ID) }) // as panesTable
	return out
}

func TestLoadLayoutEmpty(t *testing.T) {
	s := openTest(t)
	l, err := s.LoadLayout(t.Context())
	must(t, err)
	if want := (&api.Layout{Tabs: []*api.Tab{}}); !reflect.DeepEqual(l, want) {
		t.Errorf("LoadLayout = %+v, want %+v", l, want)
	}
}

func TestLayoutRoundTrip(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	seedTerminals(t, s, 5)
	in := sampleLayout(t)
	inCopy := layout.Clone(in)

	saved, err := s.SaveLayout(ctx, in, 0)
	must(t, err)
	if !reflect.DeepEqual(in, inCopy) {
		t.Error("SaveLayout modified its argument")
	}
	if saved.Version != 1 {
		t.Errorf("version = %d, want 1", saved.Version)
	}
	loaded, err := s.LoadLayout(ctx)
	must(t, err)
	if !reflect.DeepEqual(loaded, saved) {
		t.Fatalf("loaded %+v\nsaved  %+v", loaded, saved)
	}
	if got, want := panesTable(t, s), mirrorOf(saved); !reflect.DeepEqual(got, want) {
		t.Errorf("panes table = %v, want %v", got, want)
	}
	for _, p := range layout.Panes(saved) {
		id, err := s.PaneIDForTerminal(ctx, p.TerminalID)
		if err != nil || id != p.PaneID {
			t.Errorf("PaneIDForTerminal(%s) = %q, %v; want %q", p.TerminalID, id, err, p.PaneID)
		}
		term, err := s.GetTerminal(ctx, p.TerminalID)
		if err != nil || term.PaneID != p.PaneID {
			t.Errorf("GetTerminal(%s).PaneID = %q, %v; want %q", p.TerminalID, term.PaneID, err, p.PaneID)
		}
	}
	if _, err := s.PaneIDForTerminal(ctx, "t5"); !errors.Is(err, ErrNotFound) {
		t.Errorf("PaneIDForTerminal of a terminal in no pane: %v, want ErrNotFound", err)
	}

	// A second save rewrites tabs and panes: close a pane and a tab.
	pane := layout.Panes(saved)[1]
	next, closed, err := layout.ClosePane(saved, pane.PaneID)
	must(t, err)
	next, _, err = layout.CloseTab(next, next.Tabs[1].ID)
	must(t, err)
	saved2, err := s.SaveLayout(ctx, next, saved.Version)
	must(t, err)
	if saved2.Version != 2 {
		t.Errorf("version = %d, want 2", saved2.Version)
	}
	loaded2, err := s.LoadLayout(ctx)
	must(t, err)
	if !reflect.DeepEqual(loaded2, saved2) {
		t.Fatalf("loaded %+v\nsaved  %+v", loaded2, saved2)
	}
	if got, want := panesTable(t, s), mirrorOf(saved2); !reflect.DeepEqual(got, want) {
		t.Errorf("panes table = %v, want %v", got, want)
	}
	// The closed terminal is no longer in a pane, so it may now be deleted.
	must(t, s.DeleteTerminal(ctx, closed[0]))

	// Zero tabs is a valid layout to save.
	empty, err := s.SaveLayout(ctx, &api.Layout{}, saved2.Version)
	must(t, err)
	loaded3, err := s.LoadLayout(ctx)
	must(t, err)
	if !reflect.DeepEqual(loaded3, empty) || len(loaded3.Tabs) != 0 || loaded3.Version != 3 {
		t.Errorf("after saving no tabs: %+v (saved %+v)", loaded3, empty)
	}
	if got := panesTable(t, s); len(got) != 0 {
		t.Errorf("panes left behind: %v", got)
	}
}

func TestSaveLayoutErrors(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	seedTerminals(t, s, 4)
	saved, err := s.SaveLayout(ctx, sampleLayout(t), 0)
	must(t, err)

	broken := layout.Clone(saved)
	broken.ActiveTabID = "tab_missing"
	unknownTerm, _, err := layout.ReplaceTerminal(saved, layout.Panes(saved)[0].PaneID, "t_missing")
	must(t, err)

	tests := []struct {
		name     string
		l        *api.Layout
		expected int64
		want     error
	}{
		{name: "stale version", l: saved, expected: 0, want: ErrConflict},
		{name: "future version", l: saved, expected: 5, want: ErrConflict},
		{name: "invalid layout", l: broken, expected: 1, want: layout.ErrInvalid},
		{name: "nil layout", l: nil, expected: 1, want: layout.ErrInvalid},
		{name: "unknown terminal", l: unknownTerm, expected: 1, want: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.SaveLayout(ctx, tt.l, tt.expected)
			if !errors.Is(err, tt.want) {
				t.Fatalf("SaveLayout = %v, want %v", err, tt.want)
			}
			// A refused save changes nothing.
			got, err := s.LoadLayout(ctx)
			must(t, err)
			if !reflect.DeepEqual(got, saved) {
				t.Errorf("stored layout changed: %+v", got)
			}
		})
	}
}

// Two clients saving on top of the same version: exactly one wins, the rest
// get ErrConflict, and the stored layout is the winner's.
func TestSaveLayoutRace(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	const n = 20
	seedTerminals(t, s, n)
	var wins atomic.Int32
	var winner atomic.Value
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 1; i <= n; i++ {
		wg.Go(func() {
			l, _, err := layout.New(counter()).AddTab(nil, fmt.Sprintf("t%d", i))
			if err != nil {
				t.Error(err)
				return
			}
			<-start
			saved, err := s.SaveLayout(ctx, l, 0)
			switch {
			case err == nil:
				wins.Add(1)
				winner.Store(saved)
			case !errors.Is(err, ErrConflict):
				t.Errorf("save %d: %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if got := wins.Load(); got != 1 {
		t.Fatalf("%d saves won, want exactly 1", got)
	}
	loaded, err := s.LoadLayout(ctx)
	must(t, err)
	if w := winner.Load().(*api.Layout); !reflect.DeepEqual(loaded, w) {
		t.Errorf("stored %+v, want the winner's %+v", loaded, w)
	}
}

func TestDeleteTabCascadesToPanes(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	seedTerminals(t, s, 4)
	saved, err := s.SaveLayout(ctx, sampleLayout(t), 0)
	must(t, err)
	first := saved.Tabs[0].ID
	must(t, s.db.WithContext(ctx).Where("id = ?", first).Delete(&tabRow{}).Error)
	for _, p := range panesTable(t, s) {
		if p.TabID == first {
			t.Errorf("pane %s of deleted tab %s survived", p.ID, first)
		}
	}
	if got := len(panesTable(t, s)); got != 1 {
		t.Errorf("%d panes left, want the other tab's 1", got)
	}
}

func TestDeleteTerminalInPaneConflicts(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	seedTerminals(t, s, 1)
	l, _, err := layout.New(counter()).AddTab(nil, "t1")
	must(t, err)
	_, err = s.SaveLayout(ctx, l, 0)
	must(t, err)
	if err := s.DeleteTerminal(ctx, "t1"); !errors.Is(err, ErrConflict) {
		t.Fatalf("DeleteTerminal of a terminal in a pane = %v, want ErrConflict", err)
	}
	// The foreign key backs the check up even for a raw delete.
	err = s.db.WithContext(ctx).Exec("DELETE FROM terminals WHERE id = 't1'").Error
	if !errors.Is(dbErr(err), ErrConflict) {
		t.Fatalf("raw delete = %v, want a foreign key conflict", err)
	}
}
