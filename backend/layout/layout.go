// Package layout edits the window layout: tabs holding trees of split panes,
// each pane showing one terminal. It is pure — no I/O, stdlib only — so the
// host, tests and fuzzers can drive it without a store or a daemon.
//
// Every operation takes a *api.Layout and returns a new one (a deep copy) or
// an error; the input is never modified, so a caller can keep the old layout
// until the store has accepted the new one. Operations do not touch
// Layout.Version: the store owns versions.
package layout

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reprise-dev/reprise/backend/api"
)

// Sentinel errors; operations wrap them with the id they were given.
var (
	ErrNotFound = errors.New("not found")
	ErrInvalid  = errors.New("invalid")
)

// Id prefixes, so an id says what it names in logs and on the wire.
const (
	PrefixTab   = "tab_"
	PrefixPane  = "pane_"
	PrefixSplit = "split_"
)

// MinSize is the smallest share of a split a child may be resized to.
const MinSize = 0.02

// sizeEpsilon is how far the sizes of a split may sum away from 1: they
// travel through JSON and repeated halving, so exact equality is too strict.
const sizeEpsilon = 1e-6

// Builder holds the id generator for the operations that create nodes.
// The zero value uses RandomID.
type Builder struct {
	// NewID returns a fresh id starting with prefix (one of the Prefix
	// constants). Tests inject a counter to get stable ids.
	NewID func(prefix string) string
}

// New returns a Builder that mints ids with newID (RandomID when nil).
func New(newID func(prefix string) string) *Builder {
	return &Builder{NewID: newID}
}

// RandomID returns prefix followed by 12 random hex digits.
func RandomID(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return prefix + hex.EncodeToString(b[:])
}

// PaneRef locates a pane: its tab, its own id and its terminal.
type PaneRef struct {
	TabID      string
	PaneID     string
	TerminalID string
}

// Clone returns a deep copy of l. A nil layout clones to an empty one, and
// Tabs is never nil so that it encodes as [] rather than null.
func Clone(l *api.Layout) *api.Layout {
	if l == nil {
		return &api.Layout{Tabs: []*api.Tab{}}
	}
	out := &api.Layout{Version: l.Version, ActiveTabID: l.ActiveTabID, Tabs: make([]*api.Tab, 0, len(l.Tabs))}
	for _, t := range l.Tabs {
		if t == nil {
			out.Tabs = append(out.Tabs, nil)
			continue
		}
		c := *t
		c.Root = cloneNode(t.Root)
		out.Tabs = append(out.Tabs, &c)
	}
	return out
}

func cloneNode(n *api.Node) *api.Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Sizes != nil {
		c.Sizes = append([]float64(nil), n.Sizes...)
	}
	if n.Children != nil {
		c.Children = make([]*api.Node, len(n.Children))
		for i, ch := range n.Children {
			c.Children[i] = cloneNode(ch)
		}
	}
	return &c
}

// AddTab appends a tab holding one pane for terminalID, activates it and
// focuses the pane.
func (b *Builder) AddTab(l *api.Layout, terminalID string) (*api.Layout, string, error) {
	out := Clone(l)
	if err := checkTerminalFree(out, terminalID, ""); err != nil {
		return nil, "", fmt.Errorf("add tab: %w", err)
	}
	ids := collectIDs(out)
	tabID, err := b.newID(ids, PrefixTab)
	if err != nil {
		return nil, "", fmt.Errorf("add tab: %w", err)
	}
	paneID, err := b.newID(ids, PrefixPane)
	if err != nil {
		return nil, "", fmt.Errorf("add tab: %w", err)
	}
	out.Tabs = append(out.Tabs, &api.Tab{
		ID:            tabID,
		Root:          &api.Node{Type: api.NodePane, ID: paneID, TerminalID: terminalID},
		FocusedPaneID: paneID,
	})
	out.ActiveTabID = tabID
	return out, paneID, nil
}

// Split opens a pane for terminalID next to paneID: to its right for
// api.DirRow, below it for api.DirColumn. When the pane already sits in a
// split of that direction the new pane joins that split and takes half of
// the pane's share, so repeated "split right" gives a flat row rather than a
// staircase of nested splits. Focus moves to the new pane and its tab
// becomes active.
func (b *Builder) Split(l *api.Layout, paneID, direction, terminalID string) (*api.Layout, string, error) {
	if direction != api.DirRow && direction != api.DirColumn {
		return nil, "", fmt.Errorf("split pane %q: direction %q: %w", paneID, direction, ErrInvalid)
	}
	out := Clone(l)
	loc, err := locatePane(out, paneID)
	if err != nil {
		return nil, "", fmt.Errorf("split pane: %w", err)
	}
	if err := checkTerminalFree(out, terminalID, ""); err != nil {
		return nil, "", fmt.Errorf("split pane %q: %w", paneID, err)
	}
	ids := collectIDs(out)
	newID, err := b.newID(ids, PrefixPane)
	if err != nil {
		return nil, "", fmt.Errorf("split pane %q: %w", paneID, err)
	}
	pane := loc.node()
	np := &api.Node{Type: api.NodePane, ID: newID, TerminalID: terminalID}
	if parent, idx := loc.parent(); parent != nil && parent.Direction == direction {
		if len(parent.Sizes) != len(parent.Children) {
			return nil, "", fmt.Errorf("split pane %q: split %q has %d sizes for %d children: %w",
				paneID, parent.ID, len(parent.Sizes), len(parent.Children), ErrInvalid)
		}
		half := parent.Sizes[idx] / 2
		parent.Sizes[idx] = half
		parent.Sizes = insertAt(parent.Sizes, idx+1, half)
		parent.Children = insertAt(parent.Children, idx+1, np)
	} else {
		splitID, err := b.newID(ids, PrefixSplit)
		if err != nil {
			return nil, "", fmt.Errorf("split pane %q: %w", paneID, err)
		}
		loc.replace(&api.Node{
			Type:      api.NodeSplit,
			ID:        splitID,
			Direction: direction,
			Sizes:     []float64{0.5, 0.5},
			Children:  []*api.Node{pane, np},
		})
	}
	loc.tab.FocusedPaneID = newID
	out.ActiveTabID = loc.tab.ID
	return out, newID, nil
}

// ClosePane removes a pane and returns the terminals it held (for the caller
// to dispose). A split left with one child is replaced by that child, and the
// remaining children of a split share the closed pane's space in proportion.
// If the closed pane had focus, focus goes to the pane that now occupies its
// place (the next sibling, else the previous one). Closing the last pane of
// a tab closes the tab.
func ClosePane(l *api.Layout, paneID string) (*api.Layout, []string, error) {
	out := Clone(l)
	loc, err := locatePane(out, paneID)
	if err != nil {
		return nil, nil, fmt.Errorf("close pane: %w", err)
	}
	closed := []string{loc.node().TerminalID}
	parent, idx := loc.parent()
	if parent == nil {
		removeTab(out, loc.tabIdx)
		return out, closed, nil
	}
	if len(parent.Sizes) != len(parent.Children) {
		return nil, nil, fmt.Errorf("close pane %q: split %q has %d sizes for %d children: %w",
			paneID, parent.ID, len(parent.Sizes), len(parent.Children), ErrInvalid)
	}
	if loc.tab.FocusedPaneID == paneID {
		if idx+1 < len(parent.Children) {
			loc.tab.FocusedPaneID = firstPane(parent.Children[idx+1])
		} else {
			loc.tab.FocusedPaneID = lastPane(parent.Children[idx-1])
		}
	}
	parent.Children = removeAt(parent.Children, idx)
	parent.Sizes = normalise(removeAt(parent.Sizes, idx))
	if len(parent.Children) == 1 {
		collapse(loc)
	}
	return out, closed, nil
}

// collapse replaces the closed pane's parent, now down to one child, by that
// child. If the child is a split in the same direction as the grandparent,
// its children are spliced into the grandparent, scaled to the slot, so the
// tree never nests a row directly in a row.
func collapse(loc *location) {
	parentLoc := &location{tab: loc.tab, tabIdx: loc.tabIdx, path: loc.path[:len(loc.path)-1], idxs: loc.idxs[:len(loc.idxs)-1]}
	child := parentLoc.node().Children[0]
	grand, gi := parentLoc.parent()
	if grand == nil || child.Type != api.NodeSplit || child.Direction != grand.Direction || len(grand.Sizes) != len(grand.Children) {
		parentLoc.replace(child)
		return
	}
	share := grand.Sizes[gi]
	children := make([]*api.Node, 0, len(grand.Children)+len(child.Children)-1)
	sizes := make([]float64, 0, cap(children))
	children = append(children, grand.Children[:gi]...)
	sizes = append(sizes, grand.Sizes[:gi]...)
	for k, c := range child.Children {
		children = append(children, c)
		sizes = append(sizes, share*child.Sizes[k])
	}
	children = append(children, grand.Children[gi+1:]...)
	sizes = append(sizes, grand.Sizes[gi+1:]...)
	grand.Children, grand.Sizes = children, normalise(sizes)
}

// CloseTab removes a tab and returns its terminals in visual order.
func CloseTab(l *api.Layout, tabID string) (*api.Layout, []string, error) {
	out := Clone(l)
	i := tabIndex(out, tabID)
	if i < 0 {
		return nil, nil, fmt.Errorf("close tab %q: %w", tabID, ErrNotFound)
	}
	var closed []string
	walkPanes(out.Tabs[i].Root, func(n *api.Node) { closed = append(closed, n.TerminalID) })
	removeTab(out, i)
	return out, closed, nil
}

// removeTab drops tab i; if it was active, its right neighbour (else its left
// one) becomes active, as in a browser.
func removeTab(l *api.Layout, i int) {
	if l.Tabs[i].ID == l.ActiveTabID {
		switch {
		case i+1 < len(l.Tabs):
			l.ActiveTabID = l.Tabs[i+1].ID
		case i > 0:
			l.ActiveTabID = l.Tabs[i-1].ID
		default:
			l.ActiveTabID = ""
		}
	}
	l.Tabs = removeAt(l.Tabs, i)
}

// Focus focuses a pane and activates its tab.
func Focus(l *api.Layout, paneID string) (*api.Layout, error) {
	out := Clone(l)
	loc, err := locatePane(out, paneID)
	if err != nil {
		return nil, fmt.Errorf("focus: %w", err)
	}
	loc.tab.FocusedPaneID = paneID
	out.ActiveTabID = loc.tab.ID
	return out, nil
}

// ActivateTab makes tabID the active tab.
func ActivateTab(l *api.Layout, tabID string) (*api.Layout, error) {
	out := Clone(l)
	if tabIndex(out, tabID) < 0 {
		return nil, fmt.Errorf("activate tab %q: %w", tabID, ErrNotFound)
	}
	out.ActiveTabID = tabID
	return out, nil
}

// MaxTitle bounds a tab's title (in bytes) so a pasted screenful cannot become one.
const MaxTitle = 200

// RenameTab sets a tab's title; an empty (or all-blank) title gives the tab back its automatic
// one (the focused pane's). Control characters are refused: a title is one line of text.
func RenameTab(l *api.Layout, tabID, title string) (*api.Layout, error) {
	out := Clone(l)
	i := tabIndex(out, tabID)
	if i < 0 {
		return nil, fmt.Errorf("rename tab %q: %w", tabID, ErrNotFound)
	}
	title = strings.TrimSpace(title)
	if len(title) > MaxTitle {
		return nil, fmt.Errorf("rename tab: a title of %d bytes is longer than %d: %w", len(title), MaxTitle, ErrInvalid)
	}
	if !utf8.ValidString(title) || strings.IndexFunc(title, unicode.IsControl) >= 0 {
		return nil, fmt.Errorf("rename tab: the title must be one line of text: %w", ErrInvalid)
	}
	out.Tabs[i].Title = title
	return out, nil
}

// MoveTab moves a tab to index (0-based, clamped to the ends); the others keep their order.
func MoveTab(l *api.Layout, tabID string, index int) (*api.Layout, error) {
	out := Clone(l)
	i := tabIndex(out, tabID)
	if i < 0 {
		return nil, fmt.Errorf("move tab %q: %w", tabID, ErrNotFound)
	}
	index = max(0, min(index, len(out.Tabs)-1))
	t := out.Tabs[i]
	out.Tabs = insertAt(removeAt(out.Tabs, i), index, t)
	return out, nil
}

// Resize sets the relative sizes of a split's children. sizes may be in any
// unit (fractions, pixels); they are renormalised to sum to 1, and each
// resulting share must exceed MinSize so no pane can be dragged to nothing.
func Resize(l *api.Layout, splitID string, sizes []float64) (*api.Layout, error) {
	out := Clone(l)
	var split *api.Node
	for _, t := range out.Tabs {
		if t == nil {
			continue
		}
		if n := findNode(t.Root, splitID); n != nil {
			split = n
			break
		}
	}
	if split == nil {
		return nil, fmt.Errorf("resize split %q: %w", splitID, ErrNotFound)
	}
	if split.Type != api.NodeSplit {
		return nil, fmt.Errorf("resize %q: not a split: %w", splitID, ErrInvalid)
	}
	if len(sizes) != len(split.Children) {
		return nil, fmt.Errorf("resize split %q: %d sizes for %d children: %w", splitID, len(sizes), len(split.Children), ErrInvalid)
	}
	var sum float64
	for _, s := range sizes {
		if math.IsNaN(s) || math.IsInf(s, 0) || s <= 0 {
			return nil, fmt.Errorf("resize split %q: size %v: %w", splitID, s, ErrInvalid)
		}
		sum += s
	}
	if math.IsInf(sum, 0) {
		return nil, fmt.Errorf("resize split %q: sizes overflow: %w", splitID, ErrInvalid)
	}
	norm := normalise(append([]float64(nil), sizes...))
	for _, s := range norm {
		if s <= MinSize {
			return nil, fmt.Errorf("resize split %q: share %.4f is not above the minimum %v: %w", splitID, s, MinSize, ErrInvalid)
		}
	}
	split.Sizes = norm
	return out, nil
}

// ReplaceTerminal puts terminalID in paneID (a cold respawn or a resume
// reusing the pane of a dead terminal) and returns the terminal it replaced.
func ReplaceTerminal(l *api.Layout, paneID, terminalID string) (*api.Layout, string, error) {
	out := Clone(l)
	loc, err := locatePane(out, paneID)
	if err != nil {
		return nil, "", fmt.Errorf("replace terminal: %w", err)
	}
	if err := checkTerminalFree(out, terminalID, paneID); err != nil {
		return nil, "", fmt.Errorf("replace terminal in pane %q: %w", paneID, err)
	}
	n := loc.node()
	old := n.TerminalID
	n.TerminalID = terminalID
	return out, old, nil
}

// Panes lists every pane in visual order: tabs left to right, and within a
// tab left to right, top to bottom.
func Panes(l *api.Layout) []PaneRef {
	var refs []PaneRef
	if l == nil {
		return refs
	}
	for _, t := range l.Tabs {
		if t == nil {
			continue
		}
		walkPanes(t.Root, func(n *api.Node) {
			refs = append(refs, PaneRef{TabID: t.ID, PaneID: n.ID, TerminalID: n.TerminalID})
		})
	}
	return refs
}

// FindPane returns the pane with id paneID.
func FindPane(l *api.Layout, paneID string) (PaneRef, bool) {
	for _, p := range Panes(l) {
		if p.PaneID == paneID {
			return p, true
		}
	}
	return PaneRef{}, false
}

// PaneOfTerminal returns the pane showing terminalID.
func PaneOfTerminal(l *api.Layout, terminalID string) (PaneRef, bool) {
	if terminalID == "" {
		return PaneRef{}, false
	}
	for _, p := range Panes(l) {
		if p.TerminalID == terminalID {
			return p, true
		}
	}
	return PaneRef{}, false
}
