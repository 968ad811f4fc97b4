// Package inbox is a durable, ordered queue of hook events on disk. A hook
// process (`reprise hook …`) must be fast and must not lose its event when
// the app is closed, so it only writes one small file here; the host drains
// the inbox in order, before anything else when it starts and whenever a
// hook pokes it.
package inbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/reprise-dev/reprise/backend/atomicfile"
	"github.com/reprise-dev/reprise/backend/safefile"
)

// Inbox is a directory of records named so that lexical order is arrival
// order: <unix nanos, 20 digits>-<random>.json.
type Inbox struct{ Dir string }

// Put stores one record atomically and durably (see atomicfile: a hidden
// temp name created O_EXCL, fsynced, renamed into place, the directory
// fsynced), so a reader never sees half a record and a record Put
// acknowledged survives a power loss: the hook has already told the agent
// it is done.
func (in Inbox) Put(rec []byte) error {
	if err := os.MkdirAll(in.Dir, 0o700); err != nil {
		return fmt.Errorf("inbox: %w", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := fmt.Sprintf("%020d-%s.json", time.Now().UnixNano(), hex.EncodeToString(b[:]))
	if err := atomicfile.WriteFile(filepath.Join(in.Dir, name), rec, 0o600); err != nil {
		return fmt.Errorf("inbox: %w", err)
	}
	return nil
}

// maxRecord bounds one record read back (a hook payload is at most 1 MiB;
// the record adds little). Anything larger was not written by a hook.
const maxRecord = 4 << 20

// MaxRejected is how many rejected records rejected/ keeps (the newest):
// they are there for a person to look at, and a misbehaving agent must not
// fill the disk with them.
const MaxRejected = 100

// pruneRejected deletes all but the newest keep records in dir. Names sort
// in arrival order.
func pruneRejected(dir string, keep int) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	if len(names) <= keep {
		return
	}
	sort.Strings(names)
	for _, n := range names[:len(names)-keep] {
		_ = os.Remove(filepath.Join(dir, n))
	}
}

// ErrReject marks a record the consumer can never accept (malformed): it is
// moved aside to rejected/ instead of being retried forever.
var ErrReject = errors.New("record rejected")

// Drain hands every record to fn in arrival order. A record fn accepts is
// deleted; one it rejects (errors.Is ErrReject) is moved to rejected/; any
// other error stops the drain, leaving that record and the rest for the next
// drain. It returns how many records were consumed.
func (in Inbox) Drain(fn func(name string, rec []byte) error) (int, error) {
	ents, err := os.ReadDir(in.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("inbox: %w", err)
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	done := 0
	for _, n := range names {
		p := filepath.Join(in.Dir, n)
		rec, err := safefile.ReadFile(p, maxRecord)
		if errors.Is(err, os.ErrNotExist) {
			continue // another drainer took it
		}
		if err != nil {
			return done, fmt.Errorf("inbox: %w", err)
		}
		if err := fn(n, rec); err != nil {
			if !errors.Is(err, ErrReject) {
				return done, err
			}
			rej := filepath.Join(in.Dir, "rejected")
			_ = os.MkdirAll(rej, 0o700)
			if err := os.Rename(p, filepath.Join(rej, n)); err != nil {
				return done, fmt.Errorf("inbox: %w", err)
			}
			pruneRejected(rej, MaxRejected)
			done++
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return done, fmt.Errorf("inbox: %w", err)
		}
		done++
	}
	return done, nil
}
