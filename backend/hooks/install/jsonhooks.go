package install

import (
	"fmt"
	"slices"
	"strings"
)

// jsonSpec describes where and how one agent keeps hooks in a JSON file.
type jsonSpec struct {
	// container is the path of the object whose members are event arrays;
	// empty means the top level.
	container []string
	// nested: event → [{"matcher"?, "hooks": [handler]}] (Claude's shape);
	// otherwise event → [handler].
	nested bool
	// cmdKey is the handler field holding the shell command.
	cmdKey string
	// skeleton is the top level of a file Reprise creates, before the hooks.
	skeleton []member
	// handler builds Reprise's handler for one event.
	handler func(cmd, event string) *node
	// ownFile: the whole file is Reprise's (Copilot's hooks directory);
	// Remove deletes it once nothing else is in it.
	ownFile bool
}

func (s *jsonSpec) newRoot() *node {
	ms := make([]member, len(s.skeleton))
	for i, m := range s.skeleton {
		ms[i] = kv(m.key, m.val)
	}
	return newObject(ms...)
}

// onlySkeleton: root holds nothing but what Reprise puts in a new file.
func (s *jsonSpec) onlySkeleton(root *node) bool {
	for _, m := range root.members {
		i := slices.IndexFunc(s.skeleton, func(sk member) bool { return sk.key == m.key })
		if i < 0 || !sameValue(m.val, s.skeleton[i].val) {
			return false
		}
	}
	return true
}

// ownedBy reports whether a handler object is one Reprise installed for agent.
func (s *jsonSpec) ownedBy(h *node, agent string) (owned, bool) {
	if h == nil || h.kind != kObject {
		return owned{}, false
	}
	cmd, ok := h.get(s.cmdKey).stringValue()
	if !ok {
		return owned{}, false
	}
	o, ok := parseCommand(cmd)
	if !ok || o.agent != agent {
		return owned{}, false
	}
	return o, true
}

// found is one of Reprise's handlers in a file.
type found struct {
	event string // the event array it sits in
	owned
}

// scan lists Reprise's handlers for agent in the container.
func (s *jsonSpec) scan(root *node, agent string) []found {
	c := root
	for _, k := range s.container {
		if c = c.get(k); c == nil || c.kind != kObject {
			return nil
		}
	}
	var out []found
	for _, m := range c.members {
		if m.val.kind != kArray {
			continue
		}
		for _, el := range m.val.elems {
			if o, ok := s.ownedBy(el, agent); ok {
				out = append(out, found{m.key, o})
				continue
			}
			if !s.nested {
				continue
			}
			if hs := el.get("hooks"); hs != nil && hs.kind == kArray {
				for _, h := range hs.elems {
					if o, ok := s.ownedBy(h, agent); ok {
						out = append(out, found{m.key, o})
					}
				}
			}
		}
	}
	return out
}

// reconcile makes the container hold exactly one Reprise handler per event
// in want (updating an existing one in place, else appending a new group),
// and none for other events. The user's entries are left as they are.
//
// Containers that Reprise's removals leave empty are deleted when rec says
// Reprise created them, or, without a record, always (they held only ours).
// It returns the paths of the containers it created.
func (s *jsonSpec) reconcile(root *node, agent string, want map[string]*node, order []string, rec *fileState) ([]string, error) {
	var created []string
	if root.kind != kObject {
		return nil, fmt.Errorf("the top level is not an object")
	}
	// Walk to the container, creating it only when there is something to add.
	chain := []*node{root}
	c := root
	for i, k := range s.container {
		next := c.get(k)
		if next == nil {
			if len(want) == 0 {
				return nil, nil
			}
			next = newObject()
			c.set(k, next)
			created = append(created, strings.Join(s.container[:i+1], "/"))
		} else if next.kind != kObject {
			return nil, fmt.Errorf("%q is not an object", strings.Join(s.container[:i+1], "."))
		}
		chain = append(chain, next)
		c = next
	}
	for _, ev := range order {
		if v := c.get(ev); v != nil && v.kind != kArray {
			return nil, fmt.Errorf("%q is not a list", strings.Join(append(slices.Clone(s.container), ev), "."))
		}
	}

	kept := map[string]bool{}
	var emptied []string // event arrays our removals emptied
	for _, m := range c.members {
		arr := m.val
		if arr.kind != kArray {
			continue
		}
		keep := want[m.key]
		removed := false
		for i := 0; i < len(arr.elems); {
			el := arr.elems[i]
			if _, ok := s.ownedBy(el, agent); ok {
				if keep != nil && !kept[m.key] {
					kept[m.key] = true
					if !sameValue(el, keep) {
						arr.setElem(i, keep)
					}
					i++
				} else {
					arr.removeElem(i)
					removed = true
				}
				continue
			}
			if s.nested {
				if hs := el.get("hooks"); hs != nil && hs.kind == kArray {
					groupRemoved := false
					for j := 0; j < len(hs.elems); {
						if _, ok := s.ownedBy(hs.elems[j], agent); !ok {
							j++
							continue
						}
						if keep != nil && !kept[m.key] {
							kept[m.key] = true
							if !sameValue(hs.elems[j], keep) {
								hs.setElem(j, keep)
							}
							j++
							continue
						}
						hs.removeElem(j)
						groupRemoved = true
					}
					if groupRemoved && len(hs.elems) == 0 && disposableGroup(el) {
						arr.removeElem(i)
						removed = true
						continue
					}
				}
			}
			i++
		}
		if removed && len(arr.elems) == 0 {
			emptied = append(emptied, m.key)
		}
	}

	// Add what is missing, in the agent's event order.
	for _, ev := range order {
		h := want[ev]
		if h == nil || kept[ev] {
			continue
		}
		arr := c.get(ev)
		if arr == nil {
			arr = newArray()
			c.set(ev, arr)
			created = append(created, strings.Join(append(slices.Clone(s.container), ev), "/"))
		}
		if s.nested {
			arr.appendElem(newObject(kv("hooks", newArray(h))))
		} else {
			arr.appendElem(h)
		}
	}

	// Tidy up after removals.
	mayDelete := func(path []string) bool {
		if rec == nil {
			return true
		}
		return slices.Contains(rec.Created, strings.Join(path, "/"))
	}
	for _, ev := range emptied {
		path := append(slices.Clone(s.container), ev)
		if arr := c.get(ev); arr != nil && len(arr.elems) == 0 && mayDelete(path) {
			c.del(ev)
		}
	}
	if len(emptied) > 0 {
		for i := len(s.container) - 1; i >= 0; i-- {
			parent, child := chain[i], chain[i+1]
			if len(child.members) != 0 || !mayDelete(s.container[:i+1]) {
				break
			}
			parent.del(s.container[i])
		}
	}
	return created, nil
}

// disposableGroup: a matcher group with nothing but a matcher and hooks,
// which can go once its hooks list is empty.
func disposableGroup(g *node) bool {
	for _, m := range g.members {
		if m.key != "matcher" && m.key != "hooks" {
			return false
		}
	}
	return true
}
