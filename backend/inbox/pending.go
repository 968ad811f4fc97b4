package inbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Record is one record waiting in the inbox.
type Record struct {
	Name string // file name; lexical order is arrival order
	Data []byte
}

// Pending returns the records waiting in the inbox, in arrival order,
// without consuming, moving or changing anything — for a reader that must
// see what the host will apply when it next drains (restore-check). A
// record drained meanwhile is simply left out.
func (in Inbox) Pending() ([]Record, error) {
	ents, err := os.ReadDir(in.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]Record, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(in.Dir, n))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("inbox: %w", err)
		}
		out = append(out, Record{Name: n, Data: b})
	}
	return out, nil
}
