package ptyd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reprise-dev/reprise/backend/boundglob"
	"github.com/reprise-dev/reprise/backend/chatscan"
	"github.com/reprise-dev/reprise/backend/ptyproto"
	"github.com/reprise-dev/reprise/backend/safefile"
)

// The daemon answers for its machine what the host used to read from its
// own disk and /proc: where each session is now, the login shell and
// environment, whether paths exist. On a remote host those are the remote
// machine's answers, which the host cannot read any other way.

// factsTimeout bounds one facts request: a login profile that waits, a
// stat on a hung network mount. The requester gets one error line.
const factsTimeout = 5 * time.Second

// maxFactsInFlight bounds the facts requests one client may have running
// (each may hold a goroutine on a stuck stat until the kernel returns).
const maxFactsInFlight = 4

// loginEnvLimit bounds the output of the login shell's `env -0`.
const loginEnvLimit = 1 << 20

// cwds reports the current directory of every live session (or of the one
// named, with an error if there is none such).
func (s *Server) cwds(id string) (map[string]string, error) {
	var all []*session
	if id != "" {
		ss, err := s.session(id)
		if err != nil {
			return nil, fmt.Errorf("cwd: %w", err)
		}
		all = []*session{ss}
	} else {
		s.mu.Lock()
		for _, ss := range s.sessions {
			all = append(all, ss)
		}
		s.mu.Unlock()
	}
	out := make(map[string]string, len(all))
	for _, ss := range all {
		if d, ok := ss.currentCwd(); ok {
			out[ss.id] = d
		}
	}
	return out, nil
}

// currentCwd is the directory of the terminal's foreground process (the
// program in front, or the shell itself), from /proc; where the session
// started if /proc cannot tell. ok is false for an exited session.
func (ss *session) currentCwd() (string, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.exited || ss.ptmx == nil {
		return "", false
	}
	pgrp := 0
	if rc, err := ss.ptmx.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { pgrp, _ = unix.IoctlGetInt(int(fd), unix.TIOCGPGRP) })
	}
	for _, pid := range []int{pgrp, ss.pid} {
		if pid <= 0 {
			continue
		}
		if d, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd"); err == nil && filepath.IsAbs(d) {
			return d, true
		}
	}
	return ss.cwd, true
}

// facts answers a facts request. It runs off the client's reader, so a
// slow answer holds back nothing else on the connection. release is called
// once nothing of the request runs any more — after a stat that outlived
// the answer's bound, when that stat returns — so the client's in-flight
// bound counts stuck stats too.
func (s *Server) facts(ctx context.Context, login bool, paths []string, globs []ptyproto.Glob, contains []ptyproto.Contains, release func()) (*ptyproto.Facts, error) {
	handedOff := false
	defer func() {
		if !handedOff {
			release()
		}
	}()
	if len(paths) > ptyproto.MaxFactPaths {
		return nil, fmt.Errorf("facts: %d paths asked, at most %d per request", len(paths), ptyproto.MaxFactPaths)
	}
	for _, p := range paths {
		if len(p) > ptyproto.MaxFactPathLen {
			return nil, fmt.Errorf("facts: a path of %d bytes, at most %d", len(p), ptyproto.MaxFactPathLen)
		}
	}
	if len(globs) > ptyproto.MaxFactGlobs {
		return nil, fmt.Errorf("facts: %d globs asked, at most %d per request", len(globs), ptyproto.MaxFactGlobs)
	}
	if len(contains) > ptyproto.MaxFactContains {
		return nil, fmt.Errorf("facts: %d contains asked, at most %d per request", len(contains), ptyproto.MaxFactContains)
	}
	f := &ptyproto.Facts{}
	f.Home, _ = os.UserHomeDir()
	if login {
		// Its own bound: a slow profile fails the environment (envErr), not
		// the paths asked with it.
		lctx, cancel := context.WithTimeout(ctx, factsTimeout)
		f.Shell = loginShell(lctx)
		env, err := loginEnv(lctx, f.Shell, f.Home)
		cancel()
		if err != nil {
			f.EnvErr = err.Error()
			s.log.Warn("login environment", "shell", f.Shell, "err", err)
		}
		f.Env = env
		s.noteAgentDirs(env)
	}
	if len(paths) == 0 && len(globs) == 0 && len(contains) == 0 {
		return f, nil
	}
	// Each stat may block (a hung mount); the request's bound still
	// answers, naming the path that did not return.
	sctx, cancel := context.WithTimeout(ctx, factsTimeout)
	defer cancel()
	// The globs stop a little before the request's bound, so a long walk
	// answers "incomplete" instead of failing the paths asked with it.
	deadline, _ := sctx.Deadline()
	gctx, gcancel := context.WithDeadline(ctx, deadline.Add(-globMargin))
	roots := s.globRoots(f.Home)
	type answer struct {
		paths    []ptyproto.PathStat
		globs    []ptyproto.GlobResult
		contains []ptyproto.ContainsResult
	}
	done := make(chan answer, 1)
	cur := make(chan string, len(paths)+len(globs)+len(contains))
	handedOff = true
	go func() {
		defer release()
		defer gcancel()
		var a answer
		if len(paths) > 0 {
			a.paths = make([]ptyproto.PathStat, 0, len(paths))
		}
		for _, p := range paths {
			cur <- "stat " + strconv.Quote(p)
			a.paths = append(a.paths, statPath(p))
		}
		budget := ptyproto.MaxGlobVisit
		for _, g := range globs {
			cur <- fmt.Sprintf("glob %q under %q", g.Pattern, g.Root)
			a.globs = append(a.globs, globPath(gctx, g, roots, &budget))
		}
		for _, q := range contains {
			cur <- fmt.Sprintf("scan %q for %q", q.Path, q.Pattern)
			a.contains = append(a.contains, containsPath(gctx, q, roots))
		}
		done <- a
	}()
	select {
	case a := <-done:
		f.Paths, f.Globs, f.Contains = a.paths, a.globs, a.contains
		return f, nil
	case <-sctx.Done():
		last := ""
		for len(cur) > 0 {
			last = <-cur
		}
		return nil, fmt.Errorf("facts: no answer within %s (%s did not return)", factsTimeout, last)
	}
}

// globMargin is how long before the request's bound a glob's walk (and a
// contains' scan) stops.
const globMargin = time.Second

// globRoots are the directories a glob may walk under: the daemon user's
// home, and the agents' own directories where the environment moves them
// out of it (CODEX_HOME, CLAUDE_CONFIG_DIR) — the daemon's own environment
// and the login environment it last reported. A glob's pattern carries a
// session id a hook reported (any program in a pane can send one), so even
// a pattern that got past the host's checks reads nothing elsewhere.
func (s *Server) globRoots(home string) []string {
	out := []string{home}
	for _, k := range agentDirVars {
		out = append(out, os.Getenv(k))
	}
	s.dirsMu.Lock()
	out = append(out, s.agentDirs...)
	s.dirsMu.Unlock()
	return out
}

// GEMINI_CLI_HOME stands in for the home of Gemini CLI (its
// chats are under $GEMINI_CLI_HOME/.gemini/tmp).
var agentDirVars = []string{"CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME"}

// noteAgentDirs remembers the agents' directories a login environment
// names (replacing the last ones: at most len(agentDirVars)).
func (s *Server) noteAgentDirs(env []string) {
	var dirs []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		for _, want := range agentDirVars {
			if k == want && filepath.IsAbs(v) {
				dirs = append(dirs, filepath.Clean(v))
			}
		}
	}
	s.dirsMu.Lock()
	s.agentDirs = dirs
	s.dirsMu.Unlock()
}

// globPath is one glob's answer: refused (Err) when the pattern is bad or
// the root lies outside roots; else what the bounded walk found.
func globPath(ctx context.Context, g ptyproto.Glob, roots []string, budget *int) ptyproto.GlobResult {
	r := ptyproto.GlobResult{Root: g.Root, Pattern: g.Pattern}
	if _, err := boundglob.Check(g.Root, g.Pattern); err != nil {
		r.Err = err.Error()
		return r
	}
	if !within(g.Root, roots) {
		r.Err = "root is outside the home directory and the agents' directories"
		return r
	}
	res, err := boundglob.Find(ctx, g.Root, g.Pattern, budget)
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

// containsPath is one contains' answer: refused (Err) when the path is not
// clean and absolute, lies outside roots — before or after its symlinks
// are followed — or the pattern is not one of chatscan's; else the bounded
// scan of the file, opened with safefile (a FIFO or device is refused
// unread, so it cannot hang the request).
func containsPath(ctx context.Context, q ptyproto.Contains, roots []string) ptyproto.ContainsResult {
	r := ptyproto.ContainsResult{Path: q.Path, Pattern: q.Pattern}
	p := q.Path
	switch {
	case !chatscan.Known(q.Pattern):
		r.Err = fmt.Sprintf("unknown pattern %q", q.Pattern)
		return r
	case len(p) > ptyproto.MaxFactPathLen:
		r.Err = fmt.Sprintf("a path of %d bytes, at most %d", len(p), ptyproto.MaxFactPathLen)
		return r
	case strings.ContainsRune(p, 0):
		r.Err = "path contains a NUL byte"
		return r
	case !filepath.IsAbs(p) || filepath.Clean(p) != p:
		r.Err = "not a clean absolute path"
		return r
	case !within(p, roots):
		r.Err = outsideRoots
		return r
	}
	var realRoots []string
	for _, d := range roots {
		if d == "" {
			continue
		}
		if rd, err := filepath.EvalSymlinks(d); err == nil {
			d = rd
		}
		realRoots = append(realRoots, d)
	}
	// Where its links lead: a link under the home to a file elsewhere is
	// refused as that file would be, before it is opened (a device's open
	// may do something) and again after (the link may change in between).
	if dest, err := filepath.EvalSymlinks(p); err == nil && !within(dest, realRoots) {
		r.Err = outsideRoots + " (where its links lead)"
		return r
	}
	fh, _, err := safefile.Open(p)
	if err != nil {
		r.Err = strings.TrimPrefix(err.Error(), "open "+p+": ")
		return r
	}
	defer fh.Close()
	opened, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fh.Fd())))
	if err != nil {
		opened, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		r.Err = "resolve the path: " + err.Error()
		return r
	}
	if !within(opened, realRoots) {
		r.Err = outsideRoots + " (where its links lead)"
		return r
	}
	res, err := chatscan.Scan(ctx, fh, q.Pattern)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.Found, r.Incomplete = res.Found, res.Incomplete
	return r
}

const outsideRoots = "path is outside the home directory and the agents' directories"

func within(p string, roots []string) bool {
	for _, d := range roots {
		if boundglob.Within(p, d) {
			return true
		}
	}
	return false
}

// statPath is one path's answer: stat only — a FIFO or device is named,
// never opened, so asking about it cannot block on a reader.
func statPath(p string) ptyproto.PathStat {
	r := ptyproto.PathStat{Path: p}
	switch {
	case p == "" || !filepath.IsAbs(p):
		r.Err = "not an absolute path"
		return r
	case strings.ContainsRune(p, 0):
		r.Err = "path contains a NUL byte"
		return r
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return r
	case err != nil:
		r.Err = strings.TrimPrefix(err.Error(), "stat "+p+": ")
		return r
	}
	r.Exists, r.Size = true, st.Size()
	switch {
	case st.Mode().IsRegular():
		r.Kind, r.Exec = "file", st.Mode()&0o111 != 0
	case st.IsDir():
		r.Kind, r.Size = "dir", 0
	default:
		r.Kind, r.Size = "other", 0
	}
	return r
}

// loginShell is the user's shell from the password database (getent covers
// NSS: LDAP, sssd), then /etc/passwd, then $SHELL, then /bin/sh.
func loginShell(ctx context.Context) string {
	uid := strconv.Itoa(os.Getuid())
	if out, err := exec.CommandContext(ctx, "getent", "passwd", uid).Output(); err == nil {
		if sh := passwdShell(string(out), uid); sh != "" {
			return sh
		}
	}
	if b, err := os.ReadFile("/etc/passwd"); err == nil {
		if sh := passwdShell(string(b), uid); sh != "" {
			return sh
		}
	}
	if sh := os.Getenv("SHELL"); filepath.IsAbs(sh) {
		return sh
	}
	return "/bin/sh"
}

func passwdShell(db, uid string) string {
	sc := bufio.NewScanner(strings.NewReader(db))
	for sc.Scan() {
		f := strings.Split(sc.Text(), ":")
		if len(f) >= 7 && f[2] == uid && filepath.IsAbs(f[6]) {
			return f[6]
		}
	}
	return ""
}

// loginEnv is the environment a login shell starts with: `shell -l -c
// 'env -0'`, in the home directory, with no terminal (its own session, stdin
// /dev/null) and bounded in time and output, so a profile that asks a
// question fails the request instead of hanging it. Its output goes to an
// unlinked temporary file, not a pipe: when the bound kills the shell,
// what its profile started (pyenv's rehash holding a lock, say) finishes
// normally instead of dying of SIGPIPE halfway.
func loginEnv(ctx context.Context, shell, home string) ([]string, error) {
	out, err := unlinkedTemp()
	if err != nil {
		return nil, err
	}
	defer out.Close()
	errf, err := unlinkedTemp()
	if err != nil {
		return nil, err
	}
	defer errf.Close()
	// The marker parts what the profile printed (a motd, a warning) from
	// env's entries.
	cmd := exec.CommandContext(ctx, shell, "-l", "-c", `printf '\000`+envMarker+`\000'; exec env -0`)
	cmd.Dir = home
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdout, cmd.Stderr = out, errf
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s -l did not finish within %s", shell, factsTimeout)
		}
		b, _ := readHead(errf, 4096)
		if line := lastLine(string(b)); line != "" {
			return nil, fmt.Errorf("%s -l: %s: %w", shell, line, err)
		}
		return nil, fmt.Errorf("%s -l: %w", shell, err)
	}
	b, err := readHead(out, loginEnvLimit+1)
	if err != nil {
		return nil, fmt.Errorf("%s -l: read its environment: %w", shell, err)
	}
	if len(b) > loginEnvLimit {
		return nil, fmt.Errorf("%s -l: environment over %d bytes", shell, loginEnvLimit)
	}
	_, rest, ok := strings.Cut(string(b), "\x00"+envMarker+"\x00")
	if !ok {
		return nil, fmt.Errorf("%s -l: no environment in its output", shell)
	}
	var env []string
	for _, kv := range strings.Split(rest, "\x00") {
		if k, _, ok := strings.Cut(kv, "="); ok && k != "" {
			env = append(env, kv)
		}
	}
	return env, nil
}

const envMarker = "reprise-login-env"

func unlinkedTemp() (*os.File, error) {
	f, err := os.CreateTemp("", "reprise-login-env-")
	if err != nil {
		return nil, fmt.Errorf("login environment: %w", err)
	}
	os.Remove(f.Name())
	return f, nil
}

func readHead(f *os.File, n int) ([]byte, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(f, int64(n)))
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
