package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reprise-dev/reprise/backend/agents/catalog"
	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/chatscan"
	"github.com/reprise-dev/reprise/backend/hooks/payload"
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/ptyproto"
	"github.com/reprise-dev/reprise/backend/safefile"
	"github.com/reprise-dev/reprise/backend/scrollback"
	"github.com/reprise-dev/reprise/backend/store"
)

// Forecast actions: what a pane will do when Reprise (re)starts.
const (
	ActionAttach = "attach" // its terminal is alive in the daemon: it reattaches as it is
	ActionResume = "resume" // its interrupted agent will be resumed (or offered)
	ActionFresh  = "fresh"  // a new shell, or an agent with nothing to resume (reason says why)
	ActionCannot = "cannot" // an agent that should resume but can't (reason says why)
	// ActionUnknown: the pane's host could not be asked (reason: "cannot
	// reach HOST: why"); the forecast does not guess.
	ActionUnknown = "unknown"
)

// PaneForecast is one pane's line of `reprise restore-check`.
type PaneForecast struct {
	TabID      string `json:"tabId"`
	PaneID     string `json:"paneId"`
	TerminalID string `json:"terminalId"`
	// Host is the remote host the pane's terminal runs on; empty for this
	// machine. Its line is that host's daemon's answer.
	Host       string   `json:"host,omitempty"`
	Action     string   `json:"action"`
	Agent      string   `json:"agent,omitempty"`
	AgentLabel string   `json:"agentLabel,omitempty"`
	SessionID  string   `json:"sessionId,omitempty"`
	Argv       []string `json:"argv,omitempty"`
	Cwd        string   `json:"cwd,omitempty"`
	Reason     string   `json:"reason"`
	// Auto: the resume starts on its own (agents.continueAfterRestart); else
	// the pane offers it (its Resume button).
	Auto bool `json:"auto,omitempty"`
	// Transcript is where the agent keeps the conversation, "unknown" when
	// Reprise does not know the agent's storage.
	Transcript string `json:"transcript,omitempty"`
}

// ForecastEnv is what a forecast may look at without running anything.
type ForecastEnv struct {
	HomeDir  string   // REPRISE_HOME
	Env      []string // PATH and HOME (and CLAUDE_CONFIG_DIR, CODEX_HOME) of the agents
	Sessions []ptyclient.SessionInfo
	DaemonUp bool
	// DeathAt is when lost terminals died, when the host saw it happen (a
	// daemon loss); zero means "when each last printed" (after a reboot).
	DeathAt time.Time
	// Pending are hook records still waiting in the inbox, in arrival
	// order. A starting host applies them before anything else, so a
	// forecast made while no host runs (restore-check) applies them too —
	// in memory, changing nothing.
	Pending []HookRecord
	// Remote is what each remote host's daemon answered, by host name. A
	// pane on a host missing here, or with Err set, is ActionUnknown.
	Remote map[string]*RemoteForecast
}

// RemoteForecast is one remote host as a forecast sees it.
type RemoteForecast struct {
	Err      string // why the host could not be asked
	Sessions []ptyclient.SessionInfo
	// Home is the remote Reprise home (where a resumed Claude's settings
	// file is); empty: this machine's.
	Home string
	m    machine
}

// NewRemoteForecast asks a remote daemon what a forecast needs: its
// sessions and its login environment (sshEnv: the ssh session's, from the
// probe). Later questions (paths) go over c too. An error is the host's
// reason in every line.
func NewRemoteForecast(ctx context.Context, name, rhome string, c *ptyclient.Client, sshEnv []string) *RemoteForecast {
	lctx, cancel := context.WithTimeout(ctx, remoteAskTimeout)
	list, err := c.List(lctx)
	cancel()
	if err != nil {
		return &RemoteForecast{Err: err.Error()}
	}
	env, err := machineEnv(ctx, c, sshEnv)
	if err != nil {
		return &RemoteForecast{Err: err.Error()}
	}
	return &RemoteForecast{Sessions: list, Home: rhome, m: newRemoteMachine(name, env, c)}
}

// forecastBindings answers "what will this terminal's binding be once the
// host has drained the inbox": the stored row with the pending records
// applied through the same truth table, and the transcript path they leave.
type forecastBindings struct {
	st      *store.Store
	pending map[string][]HookRecord
}

func (fb forecastBindings) get(ctx context.Context, tid string) (bindings.Binding, string, error) {
	var cur *bindings.Binding
	b, err := fb.st.GetBinding(ctx, tid)
	switch {
	case err == nil:
		cur = &b
	case !errors.Is(err, store.ErrNotFound):
		return bindings.Binding{}, "", err
	}
	stored, _ := fb.st.Transcript(ctx, tid)
	// The launched agent matters only to pending records (the nested-agent
	// rule): no store read per pane for the many panes that have none.
	wrapped := ""
	if len(fb.pending[tid]) > 0 {
		if t, err := fb.st.GetTerminal(ctx, tid); err == nil {
			wrapped = wrappedAgent(t.Argv)
		}
	}
	for _, rec := range fb.pending[tid] {
		in, ok := hookInput(rec)
		if !ok {
			continue
		}
		in.Wrapped = wrapped
		if next, _, changed := bindings.Decide(cur, in); changed {
			next.TerminalID = tid
			cur = &next
		}
		if cur == nil {
			continue
		}
		if p, ok := transcriptOf(rec, *cur); ok {
			stored = p
		}
	}
	if cur == nil {
		return bindings.Binding{}, "", store.ErrNotFound
	}
	return *cur, stored, nil
}

func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, key+"="); ok {
			v = s
		}
	}
	return v
}

func lookPathIn(env []string, cmd string) (string, bool) {
	if strings.Contains(cmd, "/") {
		st, err := os.Stat(cmd)
		return cmd, err == nil && !st.IsDir() && st.Mode()&0o111 != 0
	}
	for _, dir := range filepath.SplitList(envValue(env, "PATH")) {
		p := filepath.Join(dir, cmd)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)

// transcriptCheck says whether an agent saved the conversation of a session
// where its resume will look for it. known is false for agents whose
// storage Reprise does not know (then saved means nothing). stored is the
// transcript_path the agent's hooks reported, if any.
//
// The conformance suite with the real CLIs showed why this matters: Claude
// writes its transcript a moment after the reply is on screen (a quick kill
// loses the conversation), and Gemini cannot resume a session that has no
// model reply in its chat file.
func transcriptCheck(env []string, agent, sessionID, cwd, stored string) (saved, known bool, path string) {
	switch agent {
	case "claude":
		if err := checkSessionID(sessionID); err != nil {
			return false, true, "claude transcript (" + err.Error() + ")"
		}
		p := claudeTranscriptPath(env, sessionID, cwd, stored)
		st, err := safefile.Stat(p)
		if errors.Is(err, safefile.ErrNotRegular) {
			return false, true, p + " (not a regular file)"
		}
		return err == nil && st.Size() > 0, true, p
	case "codex":
		return codexTranscriptCheck(env, sessionID, func(g ptyproto.Glob) (ptyproto.GlobResult, bool) { return localGlob(g), true })
	case "gemini":
		if stored == "" {
			return false, false, "unknown"
		}
		ctx, cancel := context.WithTimeout(context.Background(), localScanTimeout)
		defer cancel()
		r, err := chatscan.Contains(ctx, stored, chatscan.GeminiReply)
		return geminiReplyCheck(stored, r, err)
	}
	return false, false, "unknown"
}

// localScanTimeout bounds the scan of a local chat file (chatscan: 16 MiB
// at most, read in 1 MiB chunks).
const localScanTimeout = 4 * time.Second

// geminiReplyCheck is the transcript answer of a Gemini chat file, from
// its scan here or on a remote daemon: a reply is saved; the whole file
// read without one is missing (Gemini cannot resume it); a scan that
// stopped at a bound, or could not read the file, is unknown, with why.
func geminiReplyCheck(stored string, r chatscan.Result, err error) (saved, known bool, path string) {
	switch {
	case errors.Is(err, safefile.ErrNotRegular):
		return false, true, stored + " (not a regular file)"
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return false, true, stored
	case err != nil:
		return false, false, stored + " (" + err.Error() + ")"
	case r.Found:
		return true, true, stored
	case r.Incomplete != "":
		return false, false, stored + " (no model reply seen: the scan " + r.Incomplete + ")"
	}
	return false, true, stored
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// recreateRestores lists agents that keep a conversation by its directory
// (or by id, run from that directory) and find it again when the empty
// directory is recreated: Claude Code (~/.claude/projects/<cwd as a name>),
// Gemini CLI (~/.gemini/tmp/<hash of the cwd>) and Codex (rollouts by id).
// Each was seen to do so with the real CLI (conformance */cwd-gone); the
// files that were in the folder do not come back. For other agents the rule
// is not confirmed, so nothing is offered.
func recreateRestores(agentID string) bool {
	switch agentID {
	case "claude", "codex", "gemini":
		return true
	}
	return false
}

// Forecast says, pane by pane, what would come back if Reprise restarted
// now, and why — without running anything.
func Forecast(ctx context.Context, st *store.Store, fe ForecastEnv) ([]PaneForecast, error) {
	l, err := st.LoadLayout(ctx)
	if err != nil {
		return nil, err
	}
	alive := map[string]bool{}
	for _, s := range fe.Sessions {
		alive[s.ID] = s.Alive
	}
	out := []PaneForecast{}
	lk := &forecastLookups{st: st, cfgs: map[string]agentConfigLookup{}}
	fb := forecastBindings{st: st, pending: map[string][]HookRecord{}}
	for _, rec := range fe.Pending {
		fb.pending[rec.TerminalID] = append(fb.pending[rec.TerminalID], rec)
	}
	for _, p := range layout.Panes(l) {
		f := PaneForecast{TabID: p.TabID, PaneID: p.PaneID, TerminalID: p.TerminalID}
		t, err := st.GetTerminal(ctx, p.TerminalID)
		if err != nil {
			f.Action, f.Reason = ActionFresh, "terminal record missing; a new shell starts"
			out = append(out, f)
			continue
		}
		f.Cwd, f.Host = t.Cwd, t.Host
		var m machine = localMachine{fe.Env}
		home := fe.HomeDir
		daemonUp, isAlive := fe.DaemonUp, alive[t.ID]
		if t.Host != "" {
			rf := fe.Remote[t.Host]
			if rf == nil || rf.Err != "" {
				why := "not asked"
				if rf != nil {
					why = rf.Err
				}
				f.Action, f.Reason = ActionUnknown, unreachable(t.Host, why)
				out = append(out, f)
				continue
			}
			m, daemonUp, isAlive = rf.m, true, false
			if rf.Home != "" {
				home = rf.Home
			}
			for _, s := range rf.Sessions {
				if s.ID == t.ID {
					isAlive = s.Alive
				}
			}
		}
		b, transcript, berr := fb.get(ctx, t.ID)
		if berr != nil && t.RestoredFrom != "" {
			b, transcript, berr = fb.get(ctx, t.RestoredFrom) // a cold-respawned pane keeps its old agent's candidate
		}
		hasAgent := berr == nil && b.AgentID != ""
		if hasAgent {
			f.Agent, f.SessionID = b.AgentID, b.SessionID
			f.AgentLabel = b.AgentID
			if c, err := lk.agentConfig(ctx, b.AgentID); err == nil {
				f.AgentLabel = c.Label
			}
		}
		if daemonUp && isAlive {
			f.Action = ActionAttach
			f.Reason = "running; reattaches with its scrollback"
			if hasAgent && b.EndReason == bindings.Live {
				f.Reason = f.AgentLabel + " is running; reattaches as it is"
			}
			out = append(out, f)
			continue
		}
		if hasAgent {
			// The terminal is gone: what reconciliation will record is the
			// truth table's answer to its death (a goodbye said while being
			// killed turns back into an interruption).
			deathAt := fe.DeathAt
			if deathAt.IsZero() {
				deathAt = lastOutput(filepath.Join(fe.HomeDir, "scrollback"), t.ID, time.Now())
			}
			if next, _, changed := bindings.Decide(&b, bindings.Input{Kind: bindings.KindTerminalExit, At: deathAt}); changed {
				b = next
			}
		}
		if !hasAgent || b.EndReason == bindings.Resumed || b.EndReason == bindings.Disposed {
			f.Action, f.Reason = ActionFresh, "shell: a new login shell starts in "+t.Cwd+" under the old output"
			out = append(out, f)
			continue
		}
		forecastAgent(ctx, lk, home, m, b, transcript, &f)
		out = append(out, f)
	}
	return out, nil
}

// forecastLookups answers, once per forecast, what every agent pane asks
// the same: its agent's config and the continue-after-restart setting
// (asking the store per pane was a third of a 1,000-pane forecast).
type forecastLookups struct {
	st       *store.Store
	cfgs     map[string]agentConfigLookup
	cont     string
	contRead bool
}

type agentConfigLookup struct {
	c   store.AgentConfig
	err error
}

func (lk *forecastLookups) agentConfig(ctx context.Context, id string) (store.AgentConfig, error) {
	r, ok := lk.cfgs[id]
	if !ok {
		r.c, r.err = lk.st.GetAgentConfig(ctx, id)
		lk.cfgs[id] = r
	}
	return r.c, r.err
}

func (lk *forecastLookups) continueAfterRestart(ctx context.Context) bool {
	if !lk.contRead {
		lk.cont, _, _ = lk.st.GetSetting(ctx, api.SettingContinueAfterRestart)
		lk.contRead = true
	}
	return lk.cont == "true"
}

func forecastAgent(ctx context.Context, lk *forecastLookups, home string, m machine, b bindings.Binding, stored string, f *PaneForecast) {
	cwd := b.Cwd
	if cwd == "" {
		cwd = f.Cwd
	}
	f.Cwd = cwd
	switch {
	case b.EndReason == bindings.Detached:
		f.Action, f.Reason = ActionFresh, f.AgentLabel+" exited cleanly; a shell starts (the session stays resumable from Sessions)"
		return
	case b.SessionID == "":
		f.Action, f.Reason = ActionFresh, "no session id captured for "+f.AgentLabel
		return
	case !b.Prompted:
		f.Action, f.Reason = ActionFresh, "never prompted: "+f.AgentLabel+" has no conversation to resume"
		return
	case b.Unconfirmed:
		f.Action, f.Reason = ActionFresh, f.AgentLabel+" never confirmed session "+b.SessionID+": nothing known to resume"
		return
	}
	c, err := lk.agentConfig(ctx, b.AgentID)
	if err != nil {
		f.Action, f.Reason = ActionCannot, "agent "+b.AgentID+" is no longer configured"
		return
	}
	if len(c.ResumeArgs) == 0 {
		f.Action, f.Reason = ActionCannot, "resume args empty: "+c.Label+" can't resume by id"
		return
	}
	if err := m.prepare(ctx, c.Command, b.AgentID, b.SessionID, cwd, stored); err != nil {
		f.Action, f.Reason = ActionUnknown, unreachable(f.Host, err.Error())
		return
	}
	bin, ok := m.lookPath(c.Command)
	if !ok {
		f.Action, f.Reason = ActionCannot, c.Command+" not found"
		f.Reason += onHost(f.Host)
		return
	}
	saved, known, tp := m.transcript(b.AgentID, b.SessionID, cwd, stored)
	if !m.isDir(cwd) {
		f.Action, f.Reason = ActionCannot, "cwd gone: "+cwd+onHost(f.Host)
		if recreateRestores(b.AgentID) && known && saved {
			f.Reason += " (the pane offers to recreate the folder and resume: the conversation comes back, the files don't)"
		}
		return
	}
	f.Transcript = tp
	if known && !saved {
		f.Action, f.Reason = ActionCannot, "transcript missing: "+tp+onHost(f.Host)
		return
	}
	l, err := catalog.Build(launchConfig(c, home), catalog.LaunchRequest{ResumeSessionID: b.SessionID})
	if err != nil {
		f.Action, f.Reason = ActionCannot, err.Error()
		return
	}
	l.Argv[0] = bin
	f.Action, f.Argv = ActionResume, l.Argv
	if lk.continueAfterRestart(ctx) {
		f.Auto = true
		f.Reason = f.AgentLabel + " was interrupted; it resumes automatically in this pane"
	} else {
		f.Reason = f.AgentLabel + " was interrupted; this pane offers to resume it (Resume button)"
	}
	if !known {
		f.Reason += " (transcript: unknown)"
	}
}

// Summary is the one line the app shows: "3 will resume · 1 fresh · 1 can't: codex not found".
// "will resume" counts only resumes that start on their own; the ones the panes offer (their
// Resume button, the default) are "will offer Resume", so the line never promises what waits
// for a click.
func Summary(fs []PaneForecast) string {
	var resume, offer, fresh, attach, unknown int
	var cannot []string
	for _, f := range fs {
		switch f.Action {
		case ActionResume:
			if f.Auto {
				resume++
			} else {
				offer++
			}
		case ActionFresh:
			fresh++
		case ActionAttach:
			attach++
		case ActionCannot:
			cannot = append(cannot, f.Reason)
		case ActionUnknown:
			unknown++
		}
	}
	var parts []string
	if attach > 0 {
		parts = append(parts, fmt.Sprintf("%d running", attach))
	}
	if resume > 0 {
		parts = append(parts, fmt.Sprintf("%d will resume", resume))
	}
	if offer > 0 {
		parts = append(parts, fmt.Sprintf("%d will offer Resume", offer))
	}
	if fresh > 0 {
		parts = append(parts, fmt.Sprintf("%d fresh", fresh))
	}
	if len(cannot) > 0 {
		parts = append(parts, fmt.Sprintf("%d can't: %s", len(cannot), strings.Join(cannot, "; ")))
	}
	if unknown > 0 {
		parts = append(parts, fmt.Sprintf("%d unknown", unknown))
	}
	if len(parts) == 0 {
		return "nothing to restore"
	}
	return strings.Join(parts, " · ")
}

// RestoreReport is the forecast made when this host started, for the UI.
type RestoreReport struct {
	At        time.Time      `json:"at"`
	Summary   string         `json:"summary"`
	Panes     []PaneForecast `json:"panes"`
	Recovered bool           `json:"recovered"` // some terminals were lost (daemon death or reboot)
}

// forecastNow computes the forecast against the current daemons: this
// machine's, and each remote host's of the layout's terminals (a host not
// connected yet is asked when it connects: refreshRemoteForecast).
func (h *Host) forecastNow(ctx context.Context, sawDeath bool) ([]PaneForecast, error) {
	fe := ForecastEnv{HomeDir: h.cfg.Home.Dir, Env: h.cfg.BaseEnv, Remote: map[string]*RemoteForecast{}}
	if sawDeath {
		fe.DeathAt = time.Now()
	}
	if c, err := h.client(); err == nil {
		if list, err := c.List(ctx); err == nil {
			fe.Sessions, fe.DaemonUp = list, true
		}
	}
	// The hosts in parallel, each bounded: a half-dead link must not hold
	// back the local recovery this forecast is part of.
	names := h.layoutHosts(ctx)
	rfs := make([]*RemoteForecast, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := h.endpoint(ctx, name)
			if err != nil {
				rfs[i] = &RemoteForecast{Err: err.Error()}
				return
			}
			rfs[i] = h.remoteForecast(ctx, e)
		}()
	}
	wg.Wait()
	for i, name := range names {
		fe.Remote[name] = rfs[i]
	}
	return Forecast(ctx, h.store, fe)
}

// linkConnecting is the reason of a host's lines until it first connects.
const linkConnecting = "connecting"

func (h *Host) remoteForecast(ctx context.Context, e *remoteEP) *RemoteForecast {
	c, ok := e.up()
	e.mu.Lock()
	msg := e.status.Message
	e.mu.Unlock()
	if !ok {
		if msg == "" {
			msg = linkConnecting
		}
		return &RemoteForecast{Err: msg}
	}
	return h.remoteForecastOver(ctx, e, c)
}

// remoteForecastOver asks e's daemon over c: its sessions, and the agents'
// environment there (kept per link, remoteMachineFor).
func (h *Host) remoteForecastOver(ctx context.Context, e *remoteEP, c *ptyclient.Client) *RemoteForecast {
	lctx, cancel := context.WithTimeout(ctx, remoteAskTimeout)
	list, err := c.List(lctx)
	cancel()
	if err != nil {
		return &RemoteForecast{Err: err.Error()}
	}
	m, err := h.machineOver(ctx, e, c)
	if err != nil {
		return &RemoteForecast{Err: err.Error()}
	}
	e.mu.Lock()
	rhome := e.rhome
	e.mu.Unlock()
	return &RemoteForecast{Sessions: list, Home: rhome, m: m}
}

// layoutHosts lists the remote hosts of the layout's terminals.
func (h *Host) layoutHosts(ctx context.Context) []string {
	l, err := h.store.LoadLayout(ctx)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range layout.Panes(l) {
		if t, err := h.store.GetTerminal(ctx, p.TerminalID); err == nil && t.Host != "" && !seen[t.Host] {
			seen[t.Host] = true
			out = append(out, t.Host)
		}
	}
	return out
}

// LastRestore is the forecast of the last start or daemon loss.
func (h *Host) LastRestore() RestoreReport {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.restore
}

// recovered says whether a forecast shows a restore worth reporting: some
// pane is not simply running on — apart from lines of hosts still
// connecting, which their first connect answers.
func recovered(fs []PaneForecast) bool {
	for _, f := range fs {
		if f.Action != ActionAttach && !(f.Action == ActionUnknown && f.Reason == unreachable(f.Host, linkConnecting)) {
			return true
		}
	}
	return false
}

func (h *Host) recordForecast(ctx context.Context, lost bool) {
	h.forecastMu.Lock()
	defer h.forecastMu.Unlock()
	fs, err := h.forecastNow(ctx, lost)
	if err != nil {
		h.log.Warn("restore forecast", "err", err)
		return
	}
	r := RestoreReport{At: time.Now(), Summary: Summary(fs), Panes: fs, Recovered: lost || recovered(fs)}
	h.mu.Lock()
	h.restore = r
	h.mu.Unlock()
	h.logForecast(r, "")
	h.events.publish(Event{Kind: EventRestore, Data: r})
}

func (h *Host) logForecast(r RestoreReport, host string) {
	h.log.Info("restore forecast", "summary", r.Summary, "host", host)
	for _, f := range r.Panes {
		if host == "" || f.Host == host {
			h.log.Info("restore forecast pane", "pane", f.PaneID, "host", f.Host, "action", f.Action, "agent", f.Agent, "session", f.SessionID, "argv", f.Argv, "reason", f.Reason)
		}
	}
}

// refreshRemoteForecast replaces the lines of remote host e in the last
// forecast with its daemon's answers (c: its new link; nil: the connect
// failed with why), once the host is first reached — at start its link is
// not up yet. It reports whether the lines now carry the daemon's answers.
func (h *Host) refreshRemoteForecast(ctx context.Context, e *remoteEP, c *ptyclient.Client, why string) bool {
	h.forecastMu.Lock()
	defer h.forecastMu.Unlock()
	h.mu.Lock()
	r := h.restore
	h.mu.Unlock()
	has := false
	for _, f := range r.Panes {
		has = has || f.Host == e.name
	}
	if !has {
		return true
	}
	rf := &RemoteForecast{Err: why}
	if c != nil {
		rf = h.remoteForecastOver(ctx, e, c)
	}
	fs, err := Forecast(ctx, h.store, ForecastEnv{HomeDir: h.cfg.Home.Dir, Env: h.cfg.BaseEnv, Remote: map[string]*RemoteForecast{e.name: rf}})
	if err != nil {
		h.log.Warn("restore forecast of remote host", "host", e.name, "err", err)
		return false
	}
	byTerm := map[string]PaneForecast{}
	for _, f := range fs {
		if f.Host == e.name {
			byTerm[f.TerminalID] = f
		}
	}
	panes := append([]PaneForecast(nil), r.Panes...)
	for i, f := range panes {
		if n, ok := byTerm[f.TerminalID]; ok && f.Host == e.name {
			panes[i] = n
		}
	}
	r.Panes, r.Summary = panes, Summary(panes)
	r.Recovered = r.Recovered || recovered(panes)
	h.mu.Lock()
	h.restore = r
	h.mu.Unlock()
	h.logForecast(r, e.name)
	h.events.publish(Event{Kind: EventRestore, Data: r})
	return rf.Err == ""
}

// EventRestore carries a RestoreReport.
const EventRestore = "restore"

// paneForResume finds the pane a terminal's conversation belongs in: its
// own, or the pane that was cold-respawned from it.
func (h *Host) paneForResume(ctx context.Context, terminalID string) string {
	id := terminalID
	for i := 0; i < 8; i++ {
		if p, err := h.store.PaneIDForTerminal(ctx, id); err == nil && p != "" {
			return p
		}
		next, err := h.store.TerminalRestoredFrom(ctx, id)
		if err != nil {
			return ""
		}
		id = next.ID
	}
	return ""
}

// Outcomes of a resume, shown in the pane and the sessions list.
const (
	OutcomeResuming    = "resuming"
	OutcomeResumed     = "resumed"
	OutcomeFresh       = "fresh"
	OutcomeFailed      = "failed"
	OutcomeUnconfirmed = "unconfirmed"
)

// lazySessionStart lists agents that report SessionStart only with the
// first prompt (Codex), so a resume can't be confirmed before then.
var lazySessionStart = map[string]bool{"codex": true}

// pending reports whether an outcome still waits for the agent's word.
func pending(outcome string) bool {
	return outcome == OutcomeResuming || outcome == OutcomeUnconfirmed
}

// markResuming records that a terminal runs a resume of sessionID, not yet
// confirmed. Agents that report nothing can never confirm: they are marked
// unconfirmed at once rather than "resuming" forever.
func (h *Host) markResuming(ctx context.Context, terminalID, agentID, sessionID string) {
	o := store.Outcome{ResumeOf: sessionID, Outcome: OutcomeResuming}
	if c, err := h.store.GetAgentConfig(ctx, agentID); err == nil {
		switch {
		case c.Tracking != "hooks":
			o.Outcome, o.Detail = OutcomeUnconfirmed, c.Label+" does not report its sessions to Reprise, so the resume cannot be confirmed"
		case lazySessionStart[agentID]:
			o.Outcome, o.Detail = OutcomeUnconfirmed, c.Label+" confirms a resumed session only when it is next prompted"
		}
	}
	if _, err := h.store.SetOutcome(ctx, terminalID, o); err != nil {
		h.log.Warn("record resume outcome", "terminal", terminalID, "err", err)
	}
	h.setSessionOutcome(ctx, agentID, sessionID, o.Outcome, o.Detail)
	if b, err := h.store.GetBinding(ctx, terminalID); err == nil {
		h.publishBinding(ctx, b) // the pane says "resuming…" at once
	}
}

func (h *Host) setSessionOutcome(ctx context.Context, agentID, sessionID, outcome, detail string) {
	if err := h.store.SetSessionOutcome(ctx, agentID, sessionID, outcome, detail); err != nil {
		h.log.Debug("session outcome", "err", err)
	}
}

// noteOutcome confirms or refutes a pending resume from the agent's own
// report: "resumed" only on SessionStart with source resume and the same
// id; "fresh" when it started another session; "failed" when it exited
// before confirming.
func (h *Host) noteOutcome(ctx context.Context, b bindings.Binding, e payload.Event) {
	o, err := h.store.GetOutcome(ctx, b.TerminalID)
	if err != nil || !pending(o.Outcome) {
		return
	}
	var next store.Outcome
	switch {
	case e.Kind == payload.KindSessionStart && e.SessionID == o.ResumeOf && e.Source == "resume":
		next = store.Outcome{Outcome: OutcomeResumed, Detail: "session " + o.ResumeOf}
	case e.Kind == payload.KindSessionStart && e.SessionID == o.ResumeOf:
		return // the same id without "resume": not a confirmation, keep waiting
	case e.SessionID != "" && e.SessionID != o.ResumeOf && (e.Kind == payload.KindSessionStart || e.Kind == payload.KindPrompt):
		next = store.Outcome{Outcome: OutcomeFresh, Detail: "the agent started a new session (" + e.SessionID + ") instead of " + o.ResumeOf}
	case e.Kind == payload.KindProcessExit:
		next = store.Outcome{Outcome: OutcomeFailed, Detail: h.failureDetail(b.TerminalID, e.ExitStatus)}
	default:
		return
	}
	h.finishOutcome(ctx, b, o, next)
}

func (h *Host) finishOutcome(ctx context.Context, b bindings.Binding, o store.Outcome, next store.Outcome) {
	next.ResumeOf = o.ResumeOf
	changed, err := h.store.SetOutcome(ctx, b.TerminalID, next, OutcomeResuming, OutcomeUnconfirmed)
	if err != nil || !changed {
		return
	}
	h.log.Info("resume outcome", "terminal", b.TerminalID, "agent", b.AgentID, "session", o.ResumeOf, "outcome", next.Outcome, "detail", next.Detail)
	h.setSessionOutcome(ctx, b.AgentID, o.ResumeOf, next.Outcome, next.Detail)
	if nb, err := h.store.GetBinding(ctx, b.TerminalID); err == nil {
		h.publishBinding(ctx, nb)
	}
}

// ansiRE matches escape sequences: CSI (with private prefixes such as
// "\x1b[>4m" and "\x1b[<u"), OSC, charset and single-character escapes.
var ansiRE = regexp.MustCompile(`\x1b\[[0-9;:?<=>!]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()*+][0-9A-Za-z]|\x1b[=>78DEHMNOPc\\]`)

var controlRE = regexp.MustCompile(`[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]`)

var errorLine = regexp.MustCompile(`(?i)error|no conversation|not found|no saved session|no previous session|no rollout|failed|cannot|can't|already in use`)

// failureDetail is "exit status N: <what the agent said>": the lines that
// read like an error, else the last lines of output. The agent's own
// "Resume this session with: …" footer is left out — it names the very
// command that just failed.
func (h *Host) failureDetail(terminalID string, status *int) string {
	how := "the agent exited before confirming the resume"
	if status != nil {
		how = fmt.Sprintf("exit status %d", *status)
		if *status >= 128 {
			how = fmt.Sprintf("killed (exit status %d)", *status)
		}
	}
	tail, _, _, _ := scrollback.Tail(h.cfg.Home.ScrollbackDir(), terminalID, 8<<10)
	return how + summarizeFailure(string(tail))
}

func summarizeFailure(out string) string {
	text := controlRE.ReplaceAllString(ansiRE.ReplaceAllString(out, ""), "")
	var lines []string
	skipNext := false
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r", "\n"), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
			continue
		case skipNext:
			skipNext = false
			continue
		case strings.HasPrefix(l, "Resume this session with"):
			skipNext = !strings.Contains(l, "--resume")
			continue
		case strings.HasPrefix(l, "$") || strings.HasPrefix(l, "#") || strings.Contains(l, "@") && strings.HasSuffix(l, "#"):
			continue // shell prompts
		}
		lines = append(lines, l)
	}
	var errs []string
	for _, l := range lines {
		if errorLine.MatchString(l) {
			errs = append(errs, l)
		}
	}
	pick := errs
	if len(pick) == 0 {
		pick = lines
	}
	if len(pick) > 3 {
		pick = pick[len(pick)-3:]
	}
	if len(pick) == 0 {
		return ""
	}
	return ": " + strings.Join(pick, " / ")
}

// continueAfterRestart resumes every candidate of lost terminals when the
// "Continue agent sessions after restarts" setting is on: the focused pane
// first, at most three launches at a time.
func (h *Host) continueAfterRestart(ctx context.Context, lost []store.Terminal) {
	if h.setting(ctx, api.SettingContinueAfterRestart) != "true" || len(lost) == 0 {
		return
	}
	focused := ""
	if l, err := h.store.LoadLayout(ctx); err == nil {
		for _, t := range l.Tabs {
			if t.ID == l.ActiveTabID {
				focused = t.FocusedPaneID
			}
		}
	}
	var ids []string
	for _, t := range lost {
		b, err := h.store.GetBinding(ctx, t.ID)
		if err != nil {
			continue
		}
		if ok, _ := h.candidate(ctx, b); ok {
			ids = append(ids, t.ID)
		}
	}
	sort.SliceStable(ids, func(i, j int) bool {
		return h.paneForResume(ctx, ids[i]) == focused && h.paneForResume(ctx, ids[j]) != focused
	})
	sem := make(chan struct{}, 3)
	for _, id := range ids {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			if _, err := h.Resume(h.ctx, id); err != nil {
				h.log.Warn("continue after restart: resume failed", "terminal", id, "err", err)
			}
		}()
	}
	for i := 0; i < cap(sem); i++ {
		sem <- struct{}{}
	}
}

// ForgetSession deletes a session from the history, with the scrollback of
// the terminals it ran in.
func (h *Host) ForgetSession(ctx context.Context, agentID, sessionID string) error {
	s, err := h.store.GetAgentSession(ctx, agentID, sessionID)
	if err != nil {
		return err
	}
	if err := h.store.ForgetSession(ctx, agentID, sessionID); err != nil {
		return err
	}
	if s.TerminalID != "" {
		if p, _ := h.store.PaneIDForTerminal(ctx, s.TerminalID); p == "" {
			_ = scrollback.Remove(h.cfg.Home.ScrollbackDir(), s.TerminalID)
		}
	}
	return nil
}

// prune applies the retention settings: session history and scrollback
// logs of terminals that ended longer ago than configured (0 = keep).
func (h *Host) prune(ctx context.Context) {
	if days := h.settingInt(ctx, api.SettingSessionRetentionDays); days > 0 {
		if cutoff, ok := retentionCutoff(time.Now(), days); !ok {
			h.log.Warn("session retention out of range; nothing pruned", "days", days, "max", maxRetentionDays)
		} else if n, err := h.store.PruneSessions(ctx, cutoff); err != nil {
			h.log.Warn("prune sessions", "err", err)
		} else if n > 0 {
			h.log.Info("pruned old agent sessions", "count", n, "days", days)
		}
	}
	if days := h.settingInt(ctx, api.SettingScrollbackRetentionDays); days > 0 {
		cutoff, ok := retentionCutoff(time.Now(), days)
		if !ok {
			h.log.Warn("scrollback retention out of range; nothing pruned", "days", days, "max", maxRetentionDays)
			return
		}
		ts, err := h.store.ListTerminals(ctx)
		if err != nil {
			return
		}
		for _, t := range ts {
			if t.Status != api.StatusRunning && t.PaneID == "" && t.EndedAt != nil && t.EndedAt.Before(cutoff) {
				if err := scrollback.Remove(h.cfg.Home.ScrollbackDir(), t.ID); err != nil && !errors.Is(err, os.ErrNotExist) {
					h.log.Warn("prune scrollback", "terminal", t.ID, "err", err)
				}
			}
		}
	}
}

// retentionCutoff is the moment before which ended sessions (or logs) are
// pruned, for a retention of days. ok is false for 0 (keep forever) and for
// a value out of range, such as one stored before the range was enforced:
// AddDate with a huge negative count overflows into the future, and that
// cutoff would prune everything.
func retentionCutoff(now time.Time, days int) (cutoff time.Time, ok bool) {
	if days <= 0 || days > maxRetentionDays {
		return time.Time{}, false
	}
	return now.AddDate(0, 0, -days), true
}

func (h *Host) settingInt(ctx context.Context, key string) int {
	v, err := h.Setting(ctx, key)
	if err != nil {
		return 0
	}
	var n int
	fmt.Sscanf(v, "%d", &n)
	return n
}
