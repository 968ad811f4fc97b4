package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/reprise-dev/reprise/backend/atomicfile"
	"github.com/reprise-dev/reprise/backend/safefile"
)

// mu serialises Install and Remove within the process: each is a
// read-modify-write of an agent's config and of the state file.
var mu sync.Mutex

const maxConfig = 16 << 20

// errChanged: the file changed between reading and replacing it.
var errChanged = errors.New("changed while Reprise was updating it; try again")

// config is an agent's config file as read.
type config struct {
	path   string // where the agent looks
	real   string // where the bytes are (path with symlinks resolved)
	data   []byte
	exists bool
	mode   fs.FileMode
}

func readConfig(path string) (*config, error) {
	c := &config{path: path, real: path, mode: 0o600}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// A dotfiles manager's link: edit the file it points to, keep the link.
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, fmt.Errorf("%s: resolve symlink: %w", path, err)
		}
		c.real = real
	}
	fi, err := os.Stat(c.real)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Opened without blocking, checked and bounded: the file may have been
	// swapped for a FIFO or grown since the stat.
	data, err := safefile.ReadFile(c.real, maxConfig)
	if errors.Is(err, safefile.ErrNotRegular) {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, fmt.Errorf("%s: too large for a config file (limit %d bytes)", path, maxConfig)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.data, c.exists, c.mode = data, true, fi.Mode().Perm()
	return c, nil
}

// replace writes data over the file atomically and durably (atomicfile).
// The mode is kept (0600 for a new file); a missing directory is created
// 0700. If the file changed since it was read, nothing is written.
func (c *config) replace(data []byte) error {
	if err := os.MkdirAll(filepath.Dir(c.real), 0o700); err != nil {
		return fmt.Errorf("%s: %w", c.path, err)
	}
	var changed error
	check := func() error { changed = c.unchanged(); return changed }
	if err := atomicfile.Write(c.real, data, atomicfile.Options{Perm: c.mode, BeforeRename: check}); err != nil {
		if changed != nil {
			return changed // already names the file
		}
		return fmt.Errorf("%s: %w", c.path, err)
	}
	return nil
}

// remove deletes the file (only ever one Reprise created).
func (c *config) remove() error {
	if err := c.unchanged(); err != nil {
		return err
	}
	if err := os.Remove(c.real); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", c.path, err)
	}
	return atomicfile.SyncDir(filepath.Dir(c.real))
}

func (c *config) unchanged() error {
	now, err := safefile.ReadFile(c.real, maxConfig)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", c.path, err)
	}
	if exists != c.exists || !bytes.Equal(now, c.data) {
		return fmt.Errorf("%s: %w", c.path, errChanged)
	}
	return nil
}

// missingDirs lists the directories replace would create for the file,
// deepest first.
func (c *config) missingDirs() []string {
	var out []string
	for dir := filepath.Dir(c.real); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(dir); err == nil || dir == filepath.Dir(dir) {
			return out
		}
		out = append(out, dir)
	}
}

// removeDirs removes directories Reprise made, if they are empty now.
func removeDirs(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}

// The state file remembers, per config file, what Reprise created there, so
// Remove takes out exactly that: the file itself if Reprise created it, the
// empty containers it added, the newline it put before its TOML block.
// Without a record (state lost, or hooks installed by another machine's
// copy), Remove still removes Reprise's entries and drops containers they
// alone filled, but never deletes a file it cannot show it created.
type fileState struct {
	Agent        string   `json:"agent"`
	CreatedFile  bool     `json:"createdFile,omitempty"`
	Blank        *string  `json:"blank,omitempty"`       // the file existed holding only this whitespace
	Created      []string `json:"created,omitempty"`     // JSON containers Reprise added, as "hooks/Stop"
	CreatedDirs  []string `json:"createdDirs,omitempty"` // directories made for the file, deepest first
	AddedNewline bool     `json:"addedNewline,omitempty"`
}

type stateDoc struct {
	Version int                   `json:"version"`
	Files   map[string]*fileState `json:"files"`
}

func (in Installer) statePath() string {
	if in.StateFile != "" {
		return in.StateFile
	}
	return filepath.Join(in.Home, ".config", "reprise", "hooks-state.json")
}

// loadState reads the state file. A missing or unreadable one is empty: it
// only refines Remove, and losing it must not block installing.
func (in Installer) loadState() *stateDoc {
	st := &stateDoc{Version: 1, Files: map[string]*fileState{}}
	data, err := safefile.ReadFile(in.statePath(), maxConfig)
	if err != nil {
		return st
	}
	var got stateDoc
	if json.Unmarshal(data, &got) != nil || got.Files == nil {
		return st
	}
	got.Version = 1
	return &got
}

func (in Installer) saveState(st *stateDoc) error {
	c, err := readConfig(in.statePath())
	if err != nil {
		return fmt.Errorf("hooks state: %w", err)
	}
	if len(st.Files) == 0 {
		if c.exists {
			return c.remove()
		}
		return nil
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("hooks state: %w", err)
	}
	data = append(data, '\n')
	if bytes.Equal(data, c.data) {
		return nil
	}
	c.mode = 0o600
	if err := c.replace(data); err != nil {
		return fmt.Errorf("hooks state: %w", err)
	}
	return nil
}
