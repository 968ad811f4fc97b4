package layout

import (
	"fmt"

	"github.com/reprise-dev/reprise/backend/api"
)

// location is the path from a tab's root down to a node: path[0] is the root,
// path[len-1] the node, and idxs[i] is the index of path[i+1] among
// path[i].Children.
type location struct {
	tab    *api.Tab
	tabIdx int
	path   []*api.Node
	idxs   []int
}

func (loc *location) node() *api.Node { return loc.path[len(loc.path)-1] }

// parent returns the node's parent split and the node's index in it, or nil
// for a tab's root.
func (loc *location) parent() (*api.Node, int) {
	if len(loc.path) < 2 {
		return nil, -1
	}
	return loc.path[len(loc.path)-2], loc.idxs[len(loc.idxs)-1]
}

// replace puts n where the node is.
func (loc *location) replace(n *api.Node) {
	if p, i := loc.parent(); p != nil {
		p.Children[i] = n
		return
	}
	loc.tab.Root = n
}

// locatePane finds the pane with id paneID in l.
func locatePane(l *api.Layout, paneID string) (*location, error) {
	if paneID != "" {
		for ti, t := range l.Tabs {
			if t == nil {
				continue
			}
			loc := &location{tab: t, tabIdx: ti}
			if search(t.Root, paneID, loc) {
				if loc.node().Type != api.NodePane {
					return nil, fmt.Errorf("%q is not a pane: %w", paneID, ErrInvalid)
				}
				return loc, nil
			}
		}
	}
	return nil, fmt.Errorf("pane %q: %w", paneID, ErrNotFound)
}

func search(n *api.Node, id string, loc *location) bool {
	if n == nil {
		return false
	}
	loc.path = append(loc.path, n)
	if n.ID == id {
		return true
	}
	for i, c := range n.Children {
		loc.idxs = append(loc.idxs, i)
		if search(c, id, loc) {
			return true
		}
		loc.idxs = loc.idxs[:len(loc.idxs)-1]
	}
	loc.path = loc.path[:len(loc.path)-1]
	return false
}

func findNode(n *api.Node, id string) *api.Node {
	if n == nil || id == "" {
		return nil
	}
	if n.ID == id {
		return n
	}
	for _, c := range n.Children {
		if f := findNode(c, id); f != nil {
			return f
		}
	}
	return nil
}

// walkPanes calls fn on every pane under n, depth first, in child order.
func walkPanes(n *api.Node, fn func(*api.Node)) {
	if n == nil {
		return
	}
	if n.Type == api.NodePane {
		fn(n)
		return
	}
	for _, c := range n.Children {
		walkPanes(c, fn)
	}
}

func walkNodes(n *api.Node, fn func(*api.Node)) {
	if n == nil {
		return
	}
	fn(n)
	for _, c := range n.Children {
		walkNodes(c, fn)
	}
}

func firstPane(n *api.Node) string {
	for n != nil && n.Type == api.NodeSplit && len(n.Children) > 0 {
		n = n.Children[0]
	}
	if n == nil {
		return ""
	}
	return n.ID
}

func lastPane(n *api.Node) string {
	for n != nil && n.Type == api.NodeSplit && len(n.Children) > 0 {
		n = n.Children[len(n.Children)-1]
	}
	if n == nil {
		return ""
	}
	return n.ID
}

func tabIndex(l *api.Layout, tabID string) int {
	for i, t := range l.Tabs {
		if t != nil && tabID != "" && t.ID == tabID {
			return i
		}
	}
	return -1
}

// collectIDs returns every tab and node id in l.
func collectIDs(l *api.Layout) map[string]bool {
	ids := make(map[string]bool)
	for _, t := range l.Tabs {
		if t == nil {
			continue
		}
		ids[t.ID] = true
		walkNodes(t.Root, func(n *api.Node) { ids[n.ID] = true })
	}
	return ids
}

// checkTerminalFree refuses an empty terminal id or one already shown by a
// pane other than exceptPane: a terminal has one pane, which is what lets
// the store map a terminal back to its pane.
func checkTerminalFree(l *api.Layout, terminalID, exceptPane string) error {
	if terminalID == "" {
		return fmt.Errorf("empty terminal id: %w", ErrInvalid)
	}
	if p, ok := PaneOfTerminal(l, terminalID); ok && p.PaneID != exceptPane {
		return fmt.Errorf("terminal %q is already in pane %q: %w", terminalID, p.PaneID, ErrInvalid)
	}
	return nil
}

// newID mints an id with prefix and records it in ids. An injected generator
// that repeats itself must not silently corrupt the tree.
func (b *Builder) newID(ids map[string]bool, prefix string) (string, error) {
	gen := RandomID
	if b != nil && b.NewID != nil {
		gen = b.NewID
	}
	id := gen(prefix)
	if id == "" || ids[id] {
		return "", fmt.Errorf("id generator returned %q, which is empty or already used: %w", id, ErrInvalid)
	}
	ids[id] = true
	return id, nil
}

func insertAt[T any](s []T, i int, v T) []T {
	s = append(s, v)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

func removeAt[T any](s []T, i int) []T {
	return append(s[:i:i], s[i+1:]...)
}

// normalise scales s in place to sum to 1.
func normalise(s []float64) []float64 {
	var sum float64
	for _, v := range s {
		sum += v
	}
	if sum <= 0 {
		for i := range s {
			s[i] = 1 / float64(len(s))
		}
		return s
	}
	for i := range s {
		s[i] /= sum
	}
	return s
}
