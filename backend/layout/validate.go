package layout

import (
	"fmt"
	"math"
	"strings"

	"github.com/reprise-dev/reprise/backend/api"
)

// maxProblems bounds a Validate message; the first few name the damage.
const maxProblems = 8

// Validate checks the invariants every operation preserves: ids are
// non-empty and unique across tabs and nodes; panes hold a terminal and no
// terminal is in two panes; splits have a known direction, at least two
// children and one positive size per child summing to 1; the active tab
// exists (or is empty when there are no tabs); each tab's focused pane is a
// pane of that tab. The error wraps ErrInvalid and names each problem.
func Validate(l *api.Layout) error {
	if l == nil {
		return fmt.Errorf("layout is nil: %w", ErrInvalid)
	}
	v := validator{ids: map[string]string{}, terms: map[string]string{}}
	for i, t := range l.Tabs {
		if t == nil {
			v.addf("tab %d is nil", i)
			continue
		}
		v.id(t.ID, fmt.Sprintf("tab %d", i))
		if t.Root == nil {
			v.addf("tab %q has no root", t.ID)
			continue
		}
		panes := map[string]bool{}
		v.node(t.Root, t.ID, panes)
		if !panes[t.FocusedPaneID] {
			v.addf("tab %q: focused pane %q is not a pane of the tab", t.ID, t.FocusedPaneID)
		}
	}
	switch {
	case len(l.Tabs) == 0 && l.ActiveTabID != "":
		v.addf("active tab %q set but there are no tabs", l.ActiveTabID)
	case len(l.Tabs) > 0 && tabIndex(l, l.ActiveTabID) < 0:
		v.addf("active tab %q does not exist", l.ActiveTabID)
	}
	if len(v.problems) == 0 {
		return nil
	}
	msg := strings.Join(v.problems, "; ")
	if v.more > 0 {
		msg += fmt.Sprintf("; and %d more", v.more)
	}
	return fmt.Errorf("layout %w: %s", ErrInvalid, msg)
}

type validator struct {
	ids      map[string]string // id → what first used it
	terms    map[string]string // terminal id → pane id
	problems []string
	more     int
}

func (v *validator) addf(format string, args ...any) {
	if len(v.problems) == maxProblems {
		v.more++
		return
	}
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

func (v *validator) id(id, what string) {
	if id == "" {
		v.addf("%s has an empty id", what)
		return
	}
	if prev, dup := v.ids[id]; dup {
		v.addf("id %q is used by %s and %s", id, prev, what)
		return
	}
	v.ids[id] = what
}

func (v *validator) node(n *api.Node, tabID string, panes map[string]bool) {
	if n == nil {
		v.addf("tab %q has a nil node", tabID)
		return
	}
	switch n.Type {
	case api.NodePane:
		v.id(n.ID, "pane "+quote(n.ID))
		panes[n.ID] = true
		if len(n.Children) > 0 {
			v.addf("pane %q has children", n.ID)
		}
		if n.TerminalID == "" {
			v.addf("pane %q has no terminal", n.ID)
		} else if prev, dup := v.terms[n.TerminalID]; dup {
			v.addf("terminal %q is in panes %q and %q", n.TerminalID, prev, n.ID)
		} else {
			v.terms[n.TerminalID] = n.ID
		}
	case api.NodeSplit:
		v.id(n.ID, "split "+quote(n.ID))
		if n.Direction != api.DirRow && n.Direction != api.DirColumn {
			v.addf("split %q has direction %q", n.ID, n.Direction)
		}
		if len(n.Children) < 2 {
			v.addf("split %q has %d children, want at least 2", n.ID, len(n.Children))
		}
		if len(n.Sizes) != len(n.Children) {
			v.addf("split %q has %d sizes for %d children", n.ID, len(n.Sizes), len(n.Children))
		} else {
			var sum float64
			for _, s := range n.Sizes {
				if math.IsNaN(s) || s <= 0 {
					v.addf("split %q has size %v", n.ID, s)
				}
				sum += s
			}
			if math.Abs(sum-1) > sizeEpsilon {
				v.addf("split %q sizes sum to %v, want 1", n.ID, sum)
			}
		}
		for _, c := range n.Children {
			v.node(c, tabID, panes)
		}
	default:
		v.addf("node %q has type %q", n.ID, n.Type)
	}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
