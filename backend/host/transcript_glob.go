package host

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/reprise-dev/reprise/backend/boundglob"
	"github.com/reprise-dev/reprise/backend/hooks/payload"
	"github.com/reprise-dev/reprise/backend/ptyproto"
)

// Codex keeps a session's conversation in a rollout file whose path is a
// pattern, not a name: <CODEX_HOME or ~/.codex>/sessions/YYYY/MM/DD/
// rollout-<timestamp>-<id>.jsonl (AGENTS.md). Both machines answer it with
// the same bounded walk (boundglob): this one directly, a remote one
// through its daemon's facts request — so the two give the same answer.

// maxSessionIDLen bounds a session id put into a pattern. Codex's ids are
// UUIDs (36 bytes); a hook payload may carry anything.
const maxSessionIDLen = 128

// checkSessionID refuses what no agent's id looks like before it goes into
// a pattern: what a hook's id may not be (payload.ValidSessionID: empty,
// control or format characters, surrounding space), a path separator
// ("../x" must not reach another directory), "." or "..", or over 128
// bytes. Glob characters are allowed and quoted: the id then matches only
// itself.
func checkSessionID(id string) error {
	if err := payload.ValidSessionID(id); err != nil {
		return fmt.Errorf("%q is not a session id: %w", clipID(id), err)
	}
	switch {
	case id == "." || id == "..":
		return fmt.Errorf("%q is not a session id", id)
	case len(id) > maxSessionIDLen:
		return fmt.Errorf("a session id of %d bytes, at most %d", len(id), maxSessionIDLen)
	case strings.ContainsRune(id, '/'):
		return fmt.Errorf("%q is not a session id (a path separator)", clipID(id))
	}
	return nil
}

// globQuote escapes what filepath.Match treats as pattern syntax, so s
// matches only itself.
func globQuote(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}

// codexRolloutGlob is the glob that finds a Codex session's rollout, and the
// path shown when there is none. err: the id is not one an agent could have
// made, so no rollout of it can exist. The root is a literal directory
// (never a pattern), so CODEX_HOME may hold glob characters too.
func codexRolloutGlob(env []string, sessionID string) (g ptyproto.Glob, shown string, err error) {
	dir := envValue(env, "CODEX_HOME")
	if dir == "" {
		dir = filepath.Join(envValue(env, "HOME"), ".codex")
	}
	dir = filepath.Clean(dir)
	shown = filepath.Join(dir, "sessions", "…", "rollout-*-"+clipID(sessionID)+".jsonl")
	if err := checkSessionID(sessionID); err != nil {
		return g, shown, err
	}
	return ptyproto.Glob{Root: dir, Pattern: "sessions/*/*/*/rollout-*-" + globQuote(sessionID) + ".jsonl"}, shown, nil
}

func clipID(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// codexAnswer is the transcript check's answer from a rollout glob's: a
// regular file found is saved; none, with the whole tree looked at, is
// missing; a refused or unfinished walk is unknown (never "missing" from a
// look that did not finish).
func codexAnswer(r ptyproto.GlobResult, shown string) (saved, known bool, path string) {
	for _, m := range r.Matches {
		if m.Kind == "file" {
			return true, true, m.Path
		}
	}
	switch {
	case r.Err != "":
		return false, false, shown + " (unknown: " + r.Err + ")"
	case r.Incomplete != "":
		return false, false, shown + " (unknown: " + r.Incomplete + ")"
	}
	return false, true, shown
}

// localGlob answers a glob on this machine with the daemon's bounds (its
// visit budget, its time limit less the margin it keeps).
func localGlob(g ptyproto.Glob) ptyproto.GlobResult {
	ctx, cancel := context.WithTimeout(context.Background(), localGlobTimeout)
	defer cancel()
	budget := ptyproto.MaxGlobVisit
	r := ptyproto.GlobResult{Root: g.Root, Pattern: g.Pattern}
	res, err := boundglob.Find(ctx, g.Root, g.Pattern, &budget)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.Visited, r.Incomplete = res.Visited, res.Incomplete
	for _, m := range res.Matches {
		r.Matches = append(r.Matches, ptyproto.GlobMatch{Path: m.Path, Kind: m.Kind, Size: m.Size})
	}
	return r
}

// localGlobTimeout is the daemon's facts bound less the margin its globs
// keep (ptyd factsTimeout 5 s, globMargin 1 s).
const localGlobTimeout = 4 * time.Second

// codexTranscriptCheck is the Codex case of the transcript check, with the
// glob answered by glob (this machine's walk, or a remote daemon's).
func codexTranscriptCheck(env []string, sessionID string, glob func(ptyproto.Glob) (ptyproto.GlobResult, bool)) (saved, known bool, path string) {
	g, shown, err := codexRolloutGlob(env, sessionID)
	if err != nil {
		return false, true, shown + " (" + err.Error() + ")"
	}
	r, ok := glob(g)
	if !ok {
		return false, false, shown + " (unknown: not asked)"
	}
	return codexAnswer(r, shown)
}
