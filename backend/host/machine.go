package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/chatscan"
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/ptyproto"
	"github.com/reprise-dev/reprise/backend/remote"
	"github.com/reprise-dev/reprise/backend/store"
)

// A machine is where a terminal runs, as the resume checks see it: is the
// agent's command on PATH there, did it save the conversation, does the
// directory exist. This machine answers from its own disk; a remote host
// answers through its daemon (stats, bounded globs and scans, read-only:
// ptyproto TFacts), because its disk is not ours to read.
type machine interface {
	lookPath(cmd string) (string, bool)
	transcript(agent, sessionID, cwd, stored string) (saved, known bool, path string)
	isDir(p string) bool
	// prepare learns, in one round trip, what the calls above will ask
	// about one binding. An error means the machine could not be asked.
	prepare(ctx context.Context, cmd, agent, sessionID, cwd, stored string) error
}

type localMachine struct{ env []string }

func (m localMachine) lookPath(cmd string) (string, bool) { return lookPathIn(m.env, cmd) }
func (m localMachine) transcript(agent, sessionID, cwd, stored string) (bool, bool, string) {
	return transcriptCheck(m.env, agent, sessionID, cwd, stored)
}
func (m localMachine) isDir(p string) bool { return dirExists(p) }
func (m localMachine) prepare(context.Context, string, string, string, string, string) error {
	return nil
}

// remoteMachine asks a remote daemon. Its env is what the agents there
// run with (remoteAgentEnv).
type remoteMachine struct {
	name     string
	env      []string
	look     func(ctx context.Context, paths []string, globs []ptyproto.Glob, contains ...ptyproto.Contains) (*ptyproto.Facts, error)
	known    map[string]ptyproto.PathStat
	globs    map[ptyproto.Glob]ptyproto.GlobResult
	contains map[ptyproto.Contains]ptyproto.ContainsResult
}

func newRemoteMachine(name string, env []string, c *ptyclient.Client) *remoteMachine {
	return &remoteMachine{
		name: name, env: env, look: c.Look,
		known:    map[string]ptyproto.PathStat{},
		globs:    map[ptyproto.Glob]ptyproto.GlobResult{},
		contains: map[ptyproto.Contains]ptyproto.ContainsResult{},
	}
}

// geminiReplyQuestion asks a remote daemon whether a Gemini chat file
// holds a model reply (the same scan as on this machine: chatscan).
func geminiReplyQuestion(stored string) ptyproto.Contains {
	return ptyproto.Contains{Path: stored, Pattern: chatscan.GeminiReply}
}

// pathDirs is the PATH of env as absolute directories, at most what one
// facts request may carry (leaving room for the transcript and the cwd).
func pathDirs(env []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range filepath.SplitList(envValue(env, "PATH")) {
		if filepath.IsAbs(d) && !seen[d] && len(out) < ptyproto.MaxFactPaths-8 {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

func (m *remoteMachine) candidates(cmd string) []string {
	if cmd == "" {
		return nil
	}
	if strings.Contains(cmd, "/") {
		return []string{cmd}
	}
	var out []string
	for _, d := range pathDirs(m.env) {
		out = append(out, filepath.Join(d, cmd))
	}
	return out
}

// claudeTranscript is where Claude keeps a session's conversation: the
// path its hooks reported, else <config dir>/projects/<cwd as a name>/<id>.jsonl.
// "" when the id is not one Claude could have made (checkSessionID): "../x"
// would name a file outside the projects folder.
func claudeTranscriptPath(env []string, sessionID, cwd, stored string) string {
	if checkSessionID(sessionID) != nil {
		return ""
	}
	if stored != "" && strings.Contains(filepath.Base(stored), sessionID) {
		return stored
	}
	dir := envValue(env, "CLAUDE_CONFIG_DIR")
	if dir == "" {
		dir = filepath.Join(envValue(env, "HOME"), ".claude")
	}
	return filepath.Join(dir, "projects", nonAlnum.ReplaceAllString(cwd, "-"), sessionID+".jsonl")
}

func (m *remoteMachine) prepare(ctx context.Context, cmd, agent, sessionID, cwd, stored string) error {
	want := m.candidates(cmd)
	var globs []ptyproto.Glob
	var contains []ptyproto.Contains
	switch agent {
	case "claude":
		if p := claudeTranscriptPath(m.env, sessionID, cwd, stored); p != "" {
			want = append(want, p)
		}
	case "codex":
		if g, _, err := codexRolloutGlob(m.env, sessionID); err == nil {
			if _, ok := m.globs[g]; !ok {
				globs = append(globs, g)
			}
		}
	case "gemini":
		if stored != "" {
			want = append(want, stored)
		}
		if q := geminiReplyQuestion(stored); filepath.IsAbs(stored) {
			if _, ok := m.contains[q]; !ok {
				contains = append(contains, q)
			}
		}
	}
	if cwd != "" {
		want = append(want, cwd)
	}
	var ask []string
	for _, p := range want {
		if _, ok := m.known[p]; !ok && filepath.IsAbs(p) {
			ask = append(ask, p)
		}
	}
	if len(ask) == 0 && len(globs) == 0 && len(contains) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, remoteAskTimeout)
	defer cancel()
	f, err := m.look(ctx, ask, globs, contains...)
	if err != nil {
		return err
	}
	for _, s := range f.Paths {
		m.known[s.Path] = s
	}
	for i, r := range f.Globs {
		m.globs[globs[i]] = r
	}
	for i, r := range f.Contains {
		m.contains[contains[i]] = r
	}
	return nil
}

func (m *remoteMachine) lookPath(cmd string) (string, bool) {
	for _, p := range m.candidates(cmd) {
		if s := m.known[p]; s.Exists && s.Kind == "file" && s.Exec {
			return p, true
		}
	}
	return "", false
}

func (m *remoteMachine) isDir(p string) bool { return m.known[p].Kind == "dir" }

// transcript answers as the local check does, from what the daemon told:
// Claude's file (a stat), Codex's rollout (a bounded glob, the same walk as
// locally), Gemini's chat file (a stat, then the same bounded scan for a
// model reply as locally: reply → saved, none in the whole file →
// missing; a scan that stopped at a bound, a refusal or an older daemon
// that does not scan → unknown, with why).
func (m *remoteMachine) transcript(agent, sessionID, cwd, stored string) (bool, bool, string) {
	switch agent {
	case "claude":
		if err := checkSessionID(sessionID); err != nil {
			return false, true, "claude transcript (" + err.Error() + ")"
		}
		p := claudeTranscriptPath(m.env, sessionID, cwd, stored)
		s := m.known[p]
		if s.Kind == "other" || s.Kind == "dir" {
			return false, true, p + " (not a regular file)"
		}
		return s.Exists && s.Size > 0, true, p
	case "codex":
		return codexTranscriptCheck(m.env, sessionID, func(g ptyproto.Glob) (ptyproto.GlobResult, bool) {
			r, ok := m.globs[g]
			return r, ok
		})
	case "gemini":
		s, ok := m.known[stored]
		switch {
		case stored == "" || !ok || s.Err != "":
			return false, false, "unknown"
		case s.Kind == "other" || s.Kind == "dir":
			return false, true, stored + " (not a regular file)"
		case !s.Exists || s.Size == 0:
			return false, true, stored
		}
		r, ok := m.contains[geminiReplyQuestion(stored)]
		switch {
		case !ok:
			return false, false, stored + " (not scanned for a model reply)"
		case r.Err != "":
			return false, false, stored + " (whether it holds a model reply: " + r.Err + ")"
		}
		return geminiReplyCheck(stored, chatscan.Result{Found: r.Found, Incomplete: r.Incomplete}, nil)
	}
	return false, false, "unknown"
}

// remoteAskTimeout bounds each question to a remote daemon (the daemon
// bounds the login environment and the stats at 5 s each; this covers the
// link too).
const remoteAskTimeout = 12 * time.Second

// remoteAgentEnv is the environment an agent on a remote host runs with:
// the ssh session's (which remote terminals start from) under the login
// shell's (which the agent's `shell -l` sets up), with the ssh session's
// PATH after the login one, as createRemoteAgent's command line adds it.
func remoteAgentEnv(sshEnv, loginEnv []string) []string {
	out := append([]string(nil), sshEnv...)
	out = append(out, loginEnv...)
	lp, sp := envValue(loginEnv, "PATH"), envValue(sshEnv, "PATH")
	switch {
	case lp != "" && sp != "":
		out = append(out, "PATH="+lp+string(filepath.ListSeparator)+sp)
	case sp != "":
		out = append(out, "PATH="+sp)
	}
	return out
}

// machineEnv asks a remote daemon for its login environment and makes the
// agents' environment of it (the ssh session's from the probe beneath).
func machineEnv(ctx context.Context, c *ptyclient.Client, sshEnv []string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, remoteAskTimeout)
	defer cancel()
	f, err := c.Facts(ctx, true, nil)
	if err != nil {
		return nil, err
	}
	if f.EnvErr != "" {
		// The ssh session's environment alone: what a terminal there
		// starts from, less what the profile would add.
		slog.Default().Warn("remote login environment", "component", "host", "err", f.EnvErr)
	}
	if len(sshEnv) == 0 && f.Home != "" {
		sshEnv = []string{"HOME=" + f.Home}
	}
	return remoteAgentEnv(sshEnv, f.Env), nil
}

// remoteMachineFor is the machine of a remote host whose link is up.
func (h *Host) remoteMachineFor(ctx context.Context, name string) (*remoteMachine, error) {
	e, err := h.endpoint(ctx, name)
	if err != nil {
		return nil, err
	}
	c, ok := e.up()
	if !ok {
		e.mu.Lock()
		msg := e.status.Message
		e.mu.Unlock()
		if msg == "" {
			msg = "not connected"
		}
		return nil, errors.New(msg)
	}
	return h.machineOver(ctx, e, c)
}

// machineOver is the machine of remote host e over its link c.
func (h *Host) machineOver(ctx context.Context, e *remoteEP, c *ptyclient.Client) (*remoteMachine, error) {
	var err error
	// The login environment is asked once per link (a login shell runs
	// for it), not once per check.
	e.mu.Lock()
	sshEnv := append([]string(nil), e.env...)
	env, cached := e.agentEnv, e.agentEnvOf == c
	e.mu.Unlock()
	if !cached {
		if env, err = machineEnv(ctx, c, sshEnv); err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.agentEnv, e.agentEnvOf = env, c
		e.mu.Unlock()
	}
	return newRemoteMachine(e.name, env, c), nil
}

// paneCwd is where a running terminal is now, on its own machine (the
// daemon reads its foreground process's directory); else where it was
// last seen, else home.
func (h *Host) paneCwd(ctx context.Context, t store.Terminal) string {
	if t.Status == api.StatusRunning {
		if c, err := h.clientFor(ctx, t.ID); err == nil {
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			m, err := c.Cwds(cctx, t.ID)
			cancel()
			if d := m[t.ID]; err == nil && d != "" {
				return d
			}
			if err != nil {
				h.log.Debug("current directory of terminal", "terminal", t.ID, "host", t.Host, "err", err)
			}
		}
	}
	if t.Host == "" {
		return currentCwd(t)
	}
	return t.Cwd // the remote daemon checks it when the terminal opens
}

// onHost is " on HOST" for a remote host's reasons, "" for this machine.
func onHost(name string) string {
	if name == "" {
		return ""
	}
	return " on " + name
}

// unreachable is the forecast's word for a host it could not ask.
func unreachable(name, why string) string {
	return fmt.Sprintf("cannot reach %s: %s", name, why)
}

// ForecastRemotes asks each remote host of the layout's terminals what a
// forecast needs, for `reprise restore-check` (no host running): the ssh
// session's environment (a read-only probe) and the running daemon —
// never starting one or installing anything. Each host is bounded by
// timeout; one that cannot be reached carries why. close ends the links.
func ForecastRemotes(ctx context.Context, st *store.Store, homeDir string, timeout time.Duration) (map[string]*RemoteForecast, func()) {
	out := map[string]*RemoteForecast{}
	var clients []*ptyclient.Client
	l, err := st.LoadLayout(ctx)
	if err != nil {
		return out, func() {}
	}
	names := map[string]bool{}
	for _, p := range layout.Panes(l) {
		if t, err := st.GetTerminal(ctx, p.TerminalID); err == nil && t.Host != "" {
			names[t.Host] = true
		}
	}
	type result struct {
		name string
		rf   *RemoteForecast
		c    *ptyclient.Client
	}
	ch := make(chan result, len(names))
	for name := range names {
		go func() {
			rf, c := forecastRemote(ctx, st, homeDir, name, timeout)
			ch <- result{name, rf, c}
		}()
	}
	for range names {
		r := <-ch
		out[r.name] = r.rf
		if r.c != nil {
			clients = append(clients, r.c)
		}
	}
	return out, func() {
		for _, c := range clients {
			c.Close()
		}
	}
}

func forecastRemote(ctx context.Context, st *store.Store, homeDir, name string, timeout time.Duration) (*RemoteForecast, *ptyclient.Client) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hs, err := st.GetHost(ctx, name)
	if err != nil {
		return &RemoteForecast{Err: "no such host configured"}, nil
	}
	tg := remote.ForHost(homeDir, hs.Name, hs.SSH, hs.RemoteHome, hs.SSHConfig)
	p, err := tg.Probe(ctx)
	if err != nil {
		return &RemoteForecast{Err: err.Error()}, nil
	}
	c, _, err := tg.DialRunning(ctx, ptyclient.Options{Name: "restore-check"})
	if err != nil {
		return &RemoteForecast{Err: err.Error()}, nil
	}
	env, _ := sessionEnv(p.Env)
	return NewRemoteForecast(ctx, name, tg.HomeFrom(p.Env), c, env), c
}
