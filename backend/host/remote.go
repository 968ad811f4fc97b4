package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reprise-dev/reprise/backend/agents/catalog"
	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/hooks/install"
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/remote"
	"github.com/reprise-dev/reprise/backend/shellquote"
	"github.com/reprise-dev/reprise/backend/store"
)

// A remote endpoint is a remote host's pty daemon, reached over ssh: one
// supervisor per host, beside the local daemon's. Its terminals are rows
// with Host set. The rule the supervisor keeps: a dropped link is not a
// death. While the link is down the host's terminals stay "running", their
// bindings untouched, and their panes say "disconnected from HOST —
// reconnecting"; after a reconnect the remote daemon is asked what it
// still owns, and only the terminals it no longer has end (terminal-exited).
type remoteEP struct {
	name   string
	target remote.Target

	mu     sync.Mutex
	client *ptyclient.Client
	status api.HostStatus
	upCh   chan struct{} // closed while up; a fresh one while down
	// statusCh is closed and replaced at every status report and every
	// prompt opened or closed, so a new terminal's wait sees a refused
	// prompt at once (waitNew).
	statusCh chan struct{}
	// promptOpen: an ssh prompt of this host is open in the window (the
	// user is answering it); promptClosed counts the prompts that closed,
	// statusSeq the status reports.
	promptOpen       bool
	promptClosed     int
	statusSeq        int
	statusSeqAtClose int      // statusSeq when the last prompt closed
	env              []string // the remote login environment (from the last connect)
	shell            string
	home             string
	rhome            string // the remote Reprise home, absolute ("" if the probe could not tell)
	probed           bool   // bootstrapped by this host process
	kick             chan struct{}
	// forecasted: this host's lines of the start's restore forecast carry
	// its daemon's answers (supervisor goroutine only).
	forecasted bool
	// agentEnv is the environment agents there run with (remoteAgentEnv),
	// learned from the daemon over the link agentEnvOf.
	agentEnv   []string
	agentEnvOf *ptyclient.Client
}

// linkRetry bounds the reconnect backoff: from linkRetryMin doubling to
// linkRetryMax. The ssh keep-alives (ServerAliveInterval) find a dead
// network; a killed ssh is noticed at once.
var (
	linkRetryMin = 200 * time.Millisecond
	linkRetryMax = 10 * time.Second
)

func disconnectedLine(name string) string {
	return "disconnected from " + name + " — reconnecting"
}

// endpoint returns the supervisor of a stored host, starting it.
func (h *Host) endpoint(ctx context.Context, name string) (*remoteEP, error) {
	h.mu.Lock()
	e := h.remotes[name]
	h.mu.Unlock()
	if e != nil {
		return e, nil
	}
	hs, err := h.store.GetHost(ctx, name)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("no host %q (add it with: reprise hosts add %s --ssh [user@]host[:port])", name, name)
		}
		return nil, err
	}
	e = &remoteEP{
		name:     name,
		target:   h.remoteTarget(hs),
		status:   api.HostStatus{Name: name, State: "connecting"},
		upCh:     make(chan struct{}),
		statusCh: make(chan struct{}),
		kick:     make(chan struct{}, 1),
	}
	h.mu.Lock()
	if cur := h.remotes[name]; cur != nil {
		h.mu.Unlock()
		return cur, nil
	}
	h.remotes[name] = e
	h.mu.Unlock()
	h.wg.Add(1)
	go h.superviseRemote(e)
	return e, nil
}

// remoteTarget is how ssh reaches hs from this host: its prompts go to
// the UI through the local API socket (the askpass helper is this host's
// reprise binary).
func (h *Host) remoteTarget(hs store.Host) remote.Target {
	t := remote.ForHost(h.cfg.Home.Dir, hs.Name, hs.SSH, hs.RemoteHome, hs.SSHConfig)
	t.Askpass = &remote.Askpass{Exe: h.cfg.Exe, Sock: h.cfg.Home.HostSocket()}
	return t
}

// startRemotes starts the supervisor of every host that has running
// terminals, so their links come back after a host restart.
func (h *Host) startRemotes(ctx context.Context) {
	terms, err := h.store.ListTerminals(ctx)
	if err != nil {
		return
	}
	seen := map[string]bool{}
	for _, t := range terms {
		if t.Host == "" || t.Status != api.StatusRunning || seen[t.Host] {
			continue
		}
		seen[t.Host] = true
		if _, err := h.endpoint(ctx, t.Host); err != nil {
			h.log.Warn("remote host of running terminals", "host", t.Host, "err", err)
		}
	}
}

func (e *remoteEP) up() (*ptyclient.Client, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.client, e.client != nil
}

// wait returns the endpoint's client once the link is up.
func (e *remoteEP) wait(ctx context.Context) (*ptyclient.Client, error) {
	for {
		e.mu.Lock()
		c, ch, st := e.client, e.upCh, e.status
		e.mu.Unlock()
		if c != nil {
			return c, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			if st.Message != "" {
				return nil, fmt.Errorf("%s: %s", disconnectedLine(e.name), st.Message)
			}
			return nil, fmt.Errorf("%s: %w", disconnectedLine(e.name), ctx.Err())
		}
	}
}

// waitNew is wait for a new terminal, which the user is waiting for.
//   - The link up: its client.
//   - A refused ssh prompt (status "failed" reported after the wait began):
//     that line at once, not at the deadline. A host whose last prompt was
//     refused is asked again: the user asked for it.
//   - No link within h.newTabWait: the disconnected line with why. But not
//     while an ssh prompt of this host is open in the window — the user is
//     typing a passphrase; the prompt has its own limit (2 min). The wait
//     goes on until it closes, then for h.promptGrace more, and the first
//     status report after a prompt closed that is not "up" (a cancel, no
//     answer in time, a wrong answer ssh gave up on) ends it with its line.
func (h *Host) waitNew(ctx context.Context, e *remoteEP) (*ptyclient.Client, error) {
	e.mu.Lock()
	failed := e.status.State == "failed"
	closedAt := e.promptClosed
	e.mu.Unlock()
	if failed {
		h.KickRemote(e.name)
	}
	deadline := time.Now().Add(h.newTabWait)
	timer := time.NewTimer(h.newTabWait)
	defer timer.Stop()
	// After a prompt closed, the status reports from then on judge.
	judgeFrom := -1
	for {
		e.mu.Lock()
		c, ch, sch := e.client, e.upCh, e.statusCh
		e.mu.Unlock()
		if c != nil {
			return c, nil
		}
		select {
		case <-ch:
		case <-sch:
			e.mu.Lock()
			st, up, open, closed, seq, seqAtClose := e.status, e.client != nil, e.promptOpen, e.promptClosed, e.statusSeq, e.statusSeqAtClose
			e.mu.Unlock()
			if up {
				continue
			}
			if st.State == "failed" {
				return nil, errors.New(st.Message)
			}
			if closed != closedAt {
				// A prompt closed: time for what follows its answer.
				closedAt, judgeFrom = closed, seqAtClose
				if d := time.Now().Add(h.promptGrace); d.After(deadline) {
					deadline = d
					timer.Reset(time.Until(deadline))
				}
			}
			if judgeFrom >= 0 && seq > judgeFrom && !open {
				// The connect the prompt was part of failed after it.
				return nil, h.waitNewErr(e)
			}
		case <-timer.C:
			e.mu.Lock()
			open := e.promptOpen
			e.mu.Unlock()
			if !open {
				return nil, h.waitNewErr(e)
			}
			// The user is answering ssh: wait for the prompt to close.
		case <-ctx.Done():
			return e.wait(ctx) // its error line
		}
	}
}

// waitNewErr is the line of a new terminal's wait that ended without a
// link: the disconnected line and why (the last connect's error).
func (h *Host) waitNewErr(e *remoteEP) error {
	e.mu.Lock()
	st := e.status
	e.mu.Unlock()
	if st.Message != "" {
		return fmt.Errorf("%s: %s", disconnectedLine(e.name), st.Message)
	}
	return fmt.Errorf("%s: no link within %s", disconnectedLine(e.name), h.newTabWait)
}

// notePrompt keeps, per host, whether an ssh prompt of it is open in the
// window (waitNew).
func (h *Host) notePrompt(p api.AskpassPrompt) {
	h.mu.Lock()
	e := h.remotes[p.Host]
	h.mu.Unlock()
	if e == nil {
		return
	}
	e.mu.Lock()
	if !p.Open && e.promptOpen {
		e.promptClosed++
		e.statusSeqAtClose = e.statusSeq
	}
	e.promptOpen = p.Open
	close(e.statusCh)
	e.statusCh = make(chan struct{})
	e.mu.Unlock()
}

// HostStatus reports the link state of a remote host ("" state: unknown to
// this host, no terminal uses it yet).
func (h *Host) HostStatus(name string) api.HostStatus {
	h.mu.Lock()
	e := h.remotes[name]
	h.mu.Unlock()
	if e == nil {
		return api.HostStatus{Name: name}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.status
}

func (h *Host) setRemoteStatus(e *remoteEP, s api.HostStatus) {
	s.Name = e.name
	e.mu.Lock()
	changed := e.status.State != s.State || e.status.Message != s.Message
	e.status = s
	e.statusSeq++
	close(e.statusCh)
	e.statusCh = make(chan struct{})
	e.mu.Unlock()
	if !changed {
		return
	}
	h.events.publish(Event{Kind: api.EventHost, Data: s})
	// Panes of this host show the link in their terminal's Link field.
	terms, err := h.store.ListTerminals(h.ctx)
	if err != nil {
		return
	}
	for _, t := range terms {
		if t.Host == e.name && t.Status == api.StatusRunning {
			h.events.publish(Event{Kind: api.EventTerminal, Data: h.toAPI(h.ctx, t)})
		}
	}
}

// superviseRemote keeps one remote host's link up: connect (bootstrap,
// dial), reconcile, wait for the link to drop or stop answering, back off,
// again. It never ends a terminal because the link dropped.
func (h *Host) superviseRemote(e *remoteEP) {
	defer h.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			h.log.Error("remote supervisor panicked", "host", e.name, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	log := h.log.With("host", e.name)
	delay := linkRetryMin
	var downAt time.Time
	for h.ctx.Err() == nil {
		t0 := time.Now()
		c, err := h.connectRemote(e)
		if err != nil {
			log.Warn("remote host unreachable", "err", err, "retry", delay)
			retry := time.After(delay)
			if errors.Is(err, remote.ErrPromptCancelled) {
				// The user said no to ssh's prompt: asking again in 200 ms
				// would only repeat the question. Until something asks for
				// this host again (KickRemote).
				h.setRemoteStatus(e, api.HostStatus{State: "failed", Message: err.Error()})
				retry = nil
			} else {
				h.setRemoteStatus(e, api.HostStatus{State: "disconnected", Message: err.Error()})
			}
			if !e.forecasted {
				h.refreshRemoteForecast(h.ctx, e, nil, err.Error())
			}
			select {
			case <-h.ctx.Done():
				return
			case <-retry:
			case <-e.kick:
			}
			delay = min(delay*2, linkRetryMax)
			continue
		}
		delay = linkRetryMin
		dialT := time.Since(t0)
		// The remote inbox first, as a local host drains its inbox before
		// anything else: a goodbye an agent said while the link was down
		// is applied before the reconcile judges its ended terminal.
		lctx, lcancel := context.WithCancel(h.ctx)
		caught := make(chan struct{})
		var once sync.Once
		h.wg.Add(1)
		go h.relayLoop(lctx, e, func() { once.Do(func() { close(caught) }) })
		select {
		case <-caught:
		case <-c.Done():
		case <-time.After(15 * time.Second):
			log.Warn("remote inbox relay not caught up; reconciling anyway")
		}
		relayT := time.Since(t0)
		// The start's forecast for this host's panes, before the reconcile
		// changes anything (as the local forecast is made before the
		// local reconcile).
		if !e.forecasted {
			e.forecasted = h.refreshRemoteForecast(h.ctx, e, c, "")
		}
		// Reconcile before anyone else may use the link: a terminal created
		// in between would look like one the daemon lost.
		rctx, cancel := context.WithTimeout(h.ctx, 30*time.Second)
		lost, err := h.reconcileRemote(rctx, e, c)
		if err != nil {
			log.Error("reconcile remote terminals", "err", err)
		}
		cancel()
		e.mu.Lock()
		e.client = c
		close(e.upCh)
		e.mu.Unlock()
		// Where a reconnect's time goes: the ssh connection and the daemon
		// channel (dial), the inbox relay caught up, the reconcile (with the
		// first connect's forecast).
		phases := []any{"pid", c.DaemonPID, "dial", dialT.Round(time.Millisecond), "relay", (relayT - dialT).Round(time.Millisecond), "reconcile", (time.Since(t0) - relayT).Round(time.Millisecond)}
		if downAt.IsZero() {
			log.Info("remote daemon connected", phases...)
		} else {
			log.Info("link to remote daemon back", append(phases, "down", time.Since(downAt).Round(time.Millisecond))...)
		}
		h.setRemoteStatus(e, api.HostStatus{State: "up", PID: c.DaemonPID})
		// The panes of lost terminals get their new shells once the link
		// is offered, so a page that attaches to one finds it up.
		h.restoreLostRemote(e, c, lost)
		h.watchLink(e, c)
		lcancel()
		e.mu.Lock()
		e.client = nil
		e.upCh = make(chan struct{})
		e.mu.Unlock()
		if h.ctx.Err() != nil {
			c.Close()
			return
		}
		downAt = time.Now()
		log.Warn("link to remote daemon lost; its terminals keep running there", "err", c.Err())
		h.setRemoteStatus(e, api.HostStatus{State: "disconnected", Message: "link lost"})
	}
}

// watchLink returns when c's link ends: ssh exited (kill, network) or the
// daemon stopped answering heartbeats.
func (h *Host) watchLink(e *remoteEP, c *ptyclient.Client) {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	misses := 0
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-c.Done():
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(h.ctx, 3*time.Second)
			err := c.Ping(ctx)
			cancel()
			if err == nil {
				misses = 0
				continue
			}
			misses++
			if misses >= 3 {
				c.Close()
				return
			}
		}
	}
}

// connectRemote opens the control connection. The first connect of this
// host process bootstraps (installs or upgrades the remote binary, reads
// the login environment); a reconnect after a dropped link goes straight
// to the daemon channel, since only we change the remote binary: that
// makes a reconnect one ssh connection, not two. A failed dial bootstraps
// again next time.
func (h *Host) connectRemote(e *remoteEP) (*ptyclient.Client, error) {
	// The bound covers the time a user may take to answer ssh's prompt.
	ctx, cancel := context.WithTimeout(h.ctx, 60*time.Second+remote.DefaultAskTimeout)
	defer cancel()
	e.mu.Lock()
	probed := e.probed
	e.mu.Unlock()
	if !probed {
		if err := h.bootstrapRemote(ctx, e); err != nil {
			return nil, err
		}
	}
	c, err := e.dial(ctx, ptyclient.Options{
		Name:   fmt.Sprintf("host-%d", os.Getpid()),
		OnExit: func(info ptyclient.SessionInfo) { h.onRemoteExit(e, info) },
	})
	if err != nil {
		e.mu.Lock()
		e.probed = false
		e.mu.Unlock()
		return nil, err
	}
	return c, nil
}

// dial opens a daemon channel to the host. Dials may run at once: only
// the host's one master logs in (remote.Target.EnsureMaster), every
// channel rides on it.
func (e *remoteEP) dial(ctx context.Context, opts ptyclient.Options) (*ptyclient.Client, error) {
	c, _, err := e.target.Dial(ctx, opts)
	return c, err
}

func (h *Host) bootstrapRemote(ctx context.Context, e *remoteEP) error {
	up, probe, err := e.target.Bootstrap(ctx, h.cfg.Exe)
	if err != nil {
		return err
	}
	if up {
		h.log.Info("installed reprise on remote host", "host", e.name)
	}
	shell := probe.Shell
	rhome := e.target.HomeFrom(probe.Env)
	env, home := sessionEnv(probe.Env)
	e.mu.Lock()
	e.env, e.shell, e.home, e.rhome, e.probed = env, shell, home, rhome, true
	e.mu.Unlock()
	return nil
}

// sessionEnv is the environment remote terminals start from: the ssh
// session's (the probe's), less the variables of that connection, which
// mean nothing to a terminal that outlives it; and its HOME ("/" if none).
func sessionEnv(probeEnv []string) (env []string, home string) {
	for _, kv := range probeEnv {
		name, val, _ := strings.Cut(kv, "=")
		if name == "HOME" {
			home = val
		}
		if strings.HasPrefix(name, "SSH_") || strings.HasPrefix(name, "REPRISE_") || name == "TERM" || name == "_" || name == "SHLVL" || name == "OLDPWD" || name == "PWD" {
			continue
		}
		env = append(env, kv)
	}
	if home == "" {
		home = "/"
	}
	return env, home
}

func (h *Host) onRemoteExit(e *remoteEP, info ptyclient.SessionInfo) {
	go func() {
		ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
		defer cancel()
		h.recordExit(ctx, info)
		if c, err := e.wait(ctx); err == nil {
			if err := c.Collect(ctx, info.ID); err != nil {
				h.log.Debug("collect exited remote session", "host", e.name, "terminal", info.ID, "err", err)
			}
		}
	}()
}

// reconcileRemote asks the remote daemon what it still owns. Exits that
// happened while the link was down are recorded as exits; a running
// terminal the daemon does not know at all (its daemon was killed, the
// machine rebooted) is lost: its binding ends (terminal-exited), and it is
// returned with the output it left in its log on the remote, for its pane
// to be restored (restoreLostRemote). Every other terminal simply carries
// on: a dropped link alone never ends one.
func (h *Host) reconcileRemote(ctx context.Context, e *remoteEP, c *ptyclient.Client) ([]lostRemote, error) {
	sessions, err := c.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list remote sessions: %w", err)
	}
	have := map[string]ptyclient.SessionInfo{}
	for _, s := range sessions {
		have[s.ID] = s
	}
	terms, err := h.store.ListTerminals(ctx)
	if err != nil {
		return nil, err
	}
	var lost []lostRemote
	for _, t := range terms {
		if t.Host != e.name || t.Status != api.StatusRunning {
			continue
		}
		s, ok := have[t.ID]
		switch {
		case ok && s.Alive:
			delete(have, t.ID)
			if s.PID != t.PID {
				_ = h.store.SetTerminalPID(ctx, t.ID, s.PID)
			}
		case ok:
			delete(have, t.ID)
			h.recordExit(ctx, s)
			_ = c.Collect(ctx, t.ID)
		default:
			// The binding ends first, as in the local reconcile: whoever
			// sees the terminal ended sees its binding ended too.
			h.endBindings(ctx, []string{t.ID}, time.Now(), nil)
			if l, ok := h.markLostRemote(ctx, e, c, t); ok {
				lost = append(lost, l)
			}
		}
	}
	// Terminals closed here while the link was down: hang them up now.
	for id, s := range have {
		if t, err := h.store.GetTerminal(ctx, id); err == nil && t.Host == e.name && t.Status == api.StatusClosed && s.Alive {
			if err := c.CloseSession(ctx, id, false); err != nil {
				h.log.Warn("hang up remote terminal closed while disconnected", "terminal", id, "err", err)
			}
		}
	}
	return lost, nil
}

// lostRemote is a terminal its remote daemon lost, with the end of the log
// it left on the remote disk.
type lostRemote struct {
	t     store.Terminal
	log   ptyclient.LogTail
	ended time.Time
}

// markLostRemote reads the log a lost terminal left on the remote (the
// daemon serves it, ptyproto.TLogTail) and marks the terminal lost, ended
// when it last printed. ok is false when it had already ended.
func (h *Host) markLostRemote(ctx context.Context, e *remoteEP, c *ptyclient.Client, t store.Terminal) (lostRemote, bool) {
	lt, err := c.LogTail(ctx, t.ID, restoreTail)
	if err != nil {
		h.log.Warn("read scrollback of lost remote terminal", "host", e.name, "terminal", t.ID, "err", err)
	}
	ended := time.Now()
	if lt.OK && lt.Mod > 0 {
		ended = time.UnixMilli(lt.Mod) // when it last printed: the best evidence of when it died
	}
	changed, err := h.store.MarkTerminalEnded(ctx, t.ID, api.StatusLost, nil, "", ended)
	if err != nil {
		h.log.Warn("mark lost remote terminal", "host", e.name, "terminal", t.ID, "err", err)
		return lostRemote{}, false
	}
	if !changed {
		return lostRemote{}, false
	}
	h.log.Warn("remote daemon no longer has terminal; it ended there", "host", e.name, "terminal", t.ID, "logBytes", lt.Size)
	if a, err := h.Terminal(ctx, t.ID); err == nil {
		h.events.publish(Event{Kind: api.EventTerminal, Data: a})
	}
	return lostRemote{t: t, log: lt, ended: ended}, true
}

// restoreLostRemote restores the panes of terminals a remote daemon lost,
// as the local reconcile does, then resumes their agents if the user asked
// for that after a restart (agents.continueAfterRestart).
func (h *Host) restoreLostRemote(e *remoteEP, c *ptyclient.Client, lost []lostRemote) {
	if len(lost) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, 60*time.Second)
	defer cancel()
	terms := make([]store.Terminal, 0, len(lost))
	for _, l := range lost {
		terms = append(terms, l.t)
		if err := h.coldRespawnRemote(ctx, e, c, l); err != nil {
			h.log.Error("cold respawn of lost remote terminal failed", "host", e.name, "terminal", l.t.ID, "err", err)
		}
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.continueAfterRestart(h.ctx, terms)
	}()
}

// coldRespawnRemote is coldRespawn for a terminal its remote daemon lost:
// the pane's new shell runs on that host, in the same remote directory,
// under the output the old one left in its log there and the divider.
// Output beyond the restore budget is labelled above what is shown, never
// silently left out.
func (h *Host) coldRespawnRemote(ctx context.Context, e *remoteEP, c *ptyclient.Client, l lostRemote) error {
	old, lt, ended := l.t, l.log, l.ended
	paneID, err := h.store.PaneIDForTerminal(ctx, old.ID)
	if err != nil || paneID == "" {
		_ = c.RemoveLog(ctx, old.ID)
		return nil // no pane shows it: nothing to restore into
	}
	skipped := lt.Size - int64(len(lt.Data))
	preamble := func(line string) []byte {
		p := restorePreamble(lt.Data, skipped > 0, line)
		if skipped > 0 {
			p = append(skippedLabel(skipped+int64(cutToLine(lt.Data)), e.name), p...)
		}
		return p
	}
	line := fmt.Sprintf("── %s at %s.", Divider, ended.Local().Format("2006-01-02 15:04:05"))
	nt := newTerminal{host: e.name, via: c, cwd: old.Cwd, preamble: preamble(line), restoredFrom: old.ID, restoredEndedAt: &ended}
	t, err := h.createTerminal(ctx, nt)
	if err != nil && old.Cwd != "" && strings.Contains(err.Error(), "no such directory") {
		// As locally: the home (there), and the pane says why.
		h.log.Warn("directory of lost remote terminal is gone", "host", e.name, "terminal", old.ID, "cwd", old.Cwd)
		nt.cwd = ""
		nt.preamble = preamble(line + fmt.Sprintf(" Its directory %s is gone on %s; the new shell starts in the home there.", old.Cwd, e.name))
		t, err = h.createTerminal(ctx, nt)
	}
	if err != nil {
		return fmt.Errorf("start shell for pane %s on %s: %w", paneID, e.name, err)
	}
	if _, err := h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) {
		l2, _, err := layout.ReplaceTerminal(l, paneID, t.ID)
		return l2, err
	}); err != nil {
		return err
	}
	// The new terminal's log (on the remote) now holds the old output.
	if err := c.RemoveLog(ctx, old.ID); err != nil {
		h.log.Warn("remove restored log on remote host", "host", e.name, "terminal", old.ID, "err", err)
	}
	h.log.Info("remote pane cold-respawned", "host", e.name, "pane", paneID, "lost", old.ID, "terminal", t.ID, "restoredBytes", len(lt.Data), "logBytes", lt.Size)
	return nil
}

// cutToLine is how many bytes restorePreamble drops from the front of a
// truncated tail (up to its first line end), so the label counts them.
func cutToLine(tail []byte) int {
	for i, b := range tail {
		if b == '\n' {
			return i + 1
		}
	}
	return 0
}

// skippedLabel is the dim line above a restored tail that did not hold the
// whole log.
func skippedLabel(n int64, host string) []byte {
	return fmt.Appendf(nil, "\x1b[2m── %s of earlier output of this terminal on %s were beyond the restore budget (%d KiB) and are not shown\x1b[0m\r\n", humanBytes(n), host, restoreTail>>10)
}

func humanBytes(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// hostOf is the host a terminal runs on (” for this machine).
func (h *Host) hostOf(ctx context.Context, id string) string {
	h.mu.Lock()
	name, ok := h.termHost[id]
	h.mu.Unlock()
	if ok {
		return name
	}
	t, err := h.store.GetTerminal(ctx, id)
	if err != nil {
		return ""
	}
	h.mu.Lock()
	h.termHost[id] = t.Host
	h.mu.Unlock()
	return t.Host
}

// clientFor is the daemon connection that owns terminal id. For a remote
// terminal whose link is down it fails at once with the disconnected line.
func (h *Host) clientFor(ctx context.Context, id string) (*ptyclient.Client, error) {
	name := h.hostOf(ctx, id)
	if name == "" {
		return h.client()
	}
	e, err := h.endpoint(ctx, name)
	if err != nil {
		return nil, err
	}
	if c, ok := e.up(); ok {
		return c, nil
	}
	return nil, errors.New(disconnectedLine(name))
}

// remoteTerminalEnv is the environment of a new terminal on a remote host:
// the remote login environment plus how Reprise names the terminal.
func (h *Host) remoteTerminalEnv(e *remoteEP, id string) []string {
	e.mu.Lock()
	env := append([]string(nil), e.env...)
	rhome := e.rhome
	e.mu.Unlock()
	env = append(env, "TERM=xterm-256color", "COLORTERM=truecolor", "TERM_PROGRAM=Reprise", "REPRISE_TERMINAL_ID="+id)
	// The hooks of agents there write to this home's inbox, which the host
	// relays (remote_inbox.go).
	if rhome != "" {
		env = append(env, "REPRISE_HOME="+rhome)
	}
	return env
}

// installRemoteHooks runs `reprise hooks install` on the remote host for
// an agent that keeps its hooks in its own config files (Codex, Gemini,
// …). A failure is logged, as for a local launch: the agent still runs,
// with the launch wrapper's exit status as its only report.
func (h *Host) installRemoteHooks(ctx context.Context, e *remoteEP, agentID, rexe, rhome string) {
	cmd := "REPRISE_HOME=" + shellquote.Quote(rhome) + " " + shellquote.Quote(rexe) + " hooks install --agent " + shellquote.Quote(agentID) + " --exe " + shellquote.Quote(rexe)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	out, err := e.target.Run(wctx, cmd, nil)
	cancel()
	if err != nil {
		h.log.Warn("install hooks on remote host for launch", "host", e.name, "agent", agentID, "err", err)
		return
	}
	h.log.Info("installed Reprise hooks on remote host", "host", e.name, "agent", agentID, "said", strings.TrimSpace(string(out)))
}

// KickRemote retries a disconnected host's link now instead of at the end
// of its backoff (the network came back).
func (h *Host) KickRemote(name string) {
	h.mu.Lock()
	e := h.remotes[name]
	h.mu.Unlock()
	if e == nil {
		return
	}
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// kickDisconnected retries every remote host whose link is down now (the
// network changed: it may work again).
func (h *Host) kickDisconnected() {
	h.mu.Lock()
	var down []*remoteEP
	for _, e := range h.remotes {
		if _, ok := e.up(); !ok {
			down = append(down, e)
		}
	}
	h.mu.Unlock()
	for _, e := range down {
		select {
		case e.kick <- struct{}{}:
		default:
		}
	}
}

// createRemoteAgent starts an agent in a new tab on a remote host: its
// command line in the remote login shell, inside the same launch wrapper as
// locally (the remote reprise reports the exit status), with a binding
// recorded as for a local launch, so a dropped link and a remote death are
// judged by the same truth table. Claude gets Reprise's hooks through the
// per-launch settings file, written on the remote with the remote binary as
// the hook command; its events go to the remote inbox, which the host
// relays (remote_inbox.go). Agents that keep hooks in their own config
// files (Codex, Gemini, …) get them installed in the remote user's config
// by the remote binary (installRemoteHooks).
func (h *Host) createRemoteAgent(ctx context.Context, req api.CreateAgentRequest) (api.CreateAgentResult, error) {
	c, err := h.store.GetAgentConfig(ctx, req.Agent)
	if err != nil {
		return api.CreateAgentResult{}, unknownAgent(req.Agent, err)
	}
	lr := catalog.LaunchRequest{Prompt: req.Prompt, ResumeSessionID: req.ResumeSessionID}
	if req.ResumeSessionID == "" && len(c.SessionIDArgs) > 0 && c.SessionIDKind != "" {
		lr.PreassignID = catalog.NewUUID()
	}
	e, err := h.endpoint(ctx, req.Host)
	if err != nil {
		return api.CreateAgentResult{}, err
	}
	// As for a new tab: the wait lasts while the user answers ssh.
	if _, err = h.waitNew(ctx, e); err != nil {
		return api.CreateAgentResult{}, err
	}
	e.mu.Lock()
	rhome := e.rhome
	e.mu.Unlock()
	cfg := toCatalogConfig(c)
	rexe := "reprise"
	if rhome != "" {
		rexe = filepath.Join(rhome, "bin", "reprise")
	}
	if c.ID == "claude" && rhome != "" {
		b, err := install.ClaudeSettingsJSON(rexe)
		if err != nil {
			return api.CreateAgentResult{}, err
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = e.target.WriteFile(wctx, claudeSettingsPath(rhome), b)
		cancel()
		if err != nil {
			return api.CreateAgentResult{}, fmt.Errorf("write claude hook settings: %w", err)
		}
	}
	if c.ID != "claude" && c.Tracking == "hooks" && rhome != "" && slices.Contains(install.Supported(), c.ID) {
		// As locally, agents configured through their own files get
		// Reprise's hooks there — in the remote user's config, merged by
		// the remote binary (the same code), calling the remote binary.
		h.installRemoteHooks(ctx, e, c.ID, rexe, rhome)
	}
	if rhome != "" {
		cfg = launchConfig(c, rhome) // Claude's settings file, Codex's hook trust
	}
	l, err := catalog.Build(cfg, lr)
	if err != nil {
		return api.CreateAgentResult{}, err
	}
	e.mu.Lock()
	shell, home := e.shell, e.home
	sshPath := ""
	for _, kv := range e.env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			sshPath = p
		}
	}
	e.mu.Unlock()
	cwd := req.Cwd
	if cwd == "" {
		cwd = home
	}
	// A login shell's profile may reset PATH (Debian's /etc/profile
	// does): the agent is looked up on the ssh session's PATH too.
	pre := ""
	if sshPath != "" {
		pre = `PATH="$PATH":` + shellquote.Quote(sshPath) + "; export PATH; "
	}
	// As locally: the wrapper reports the agent's exit status (through the
	// remote reprise, into the remote inbox), then the pane drops to a
	// shell.
	argv := wrapperArgv(rexe, []string{shell, "-l"}, pre, c.ID, l)
	extra := []string{"REPRISE_AGENT=" + c.ID}
	for k, v := range l.Env {
		extra = append(extra, k+"="+v)
	}
	// A launch prompt (or a resume) is the evidence that there is a
	// conversation; agents without hooks there report nothing else.
	res, err := h.startAgent(ctx, req, l, newTerminal{cwd: cwd, argv: argv, env: extra, host: req.Host}, bindings.Input{
		Kind: bindings.KindLaunch, AgentID: c.ID, SessionID: l.SessionID, Cwd: cwd,
		Prompted: req.ResumeSessionID != "" || req.Prompt != "",
	})
	if err == nil {
		h.log.Info("agent started on remote host", "agent", c.ID, "host", req.Host, "terminal", res.TerminalID, "pane", res.PaneID, "session", l.SessionID)
	}
	return res, err
}
