package host

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/ptyclient"
)

// connect dials the daemon or starts one, counting starts against the
// restart budget.
func (h *Host) connect(ctx context.Context) error {
	c, err := ptyclient.Ensure(ctx, h.cfg.Home, h.cfg.Exe, ptyclient.Options{
		Name:   fmt.Sprintf("host-%d", os.Getpid()),
		OnExit: h.onExit,
	})
	if err != nil {
		return fmt.Errorf("connect to pty daemon: %w", err)
	}
	h.mu.Lock()
	h.daemon = c
	h.status = api.DaemonStatus{State: "up", PID: c.DaemonPID}
	h.mu.Unlock()
	h.log.Info("connected to pty daemon", "pid", c.DaemonPID)
	h.events.publish(Event{Kind: api.EventDaemon, Data: h.DaemonStatus()})
	return nil
}

// supervise notices the daemon's death (its connection closes at once; a
// heartbeat catches a hung one), reconnects or restarts it within a capped
// budget, and reconciles terminals afterwards.
func (h *Host) supervise() {
	defer h.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			h.log.Error("supervisor panicked", "panic", r, "stack", string(debug.Stack()))
		}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	misses := 0
	for {
		c, _ := h.client()
		var done <-chan struct{}
		if c != nil {
			done = c.Done()
		}
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
			if c == nil {
				h.restart()
				continue
			}
			ctx, cancel := context.WithTimeout(h.ctx, 2*time.Second)
			err := c.Ping(ctx)
			cancel()
			if err != nil && h.ctx.Err() == nil {
				misses++
				h.log.Warn("pty daemon did not answer a heartbeat", "misses", misses, "err", err)
				if misses >= 3 {
					c.Close() // treat a hung daemon as gone; Done fires next round
				}
			} else {
				misses = 0
			}
		case <-done:
			if h.ctx.Err() != nil {
				return
			}
			h.log.Warn("pty daemon connection lost", "err", c.Err())
			// Which agent sessions could this death end? Taken before anything
			// else, so a session that starts meanwhile is not swept.
			diedAt := time.Now()
			snap := h.liveSnapshot(h.ctx)
			h.mu.Lock()
			h.daemon = nil
			h.sweep = snap
			h.diedAt = diedAt
			h.mu.Unlock()
			h.restart()
		}
	}
}

// restart reconnects, spending the restart budget; when the budget is
// spent it reports failure and retries slowly.
func (h *Host) restart() {
	now := time.Now()
	h.mu.Lock()
	recent := h.restarts[:0]
	for _, t := range h.restarts {
		if now.Sub(t) < h.cfg.RestartWindow {
			recent = append(recent, t)
		}
	}
	h.restarts = recent
	over := len(recent) >= h.cfg.RestartBudget
	if !over {
		h.restarts = append(h.restarts, now)
	}
	h.mu.Unlock()
	if over {
		msg := fmt.Sprintf("the pty daemon died %d times within %s; not restarting it until that eases (see %s and %s)", len(recent), h.cfg.RestartWindow, h.cfg.Home.PtydLog(), h.cfg.Home.PtydStderr())
		// The supervisor comes back here every second until the budget eases: say it once.
		if h.setStatus(api.DaemonStatus{State: "failed", Message: msg}) {
			h.log.Error("pty daemon restart budget spent", "restarts", len(recent))
		}
		h.sweepUnanswered()
		return
	}
	h.setStatus(api.DaemonStatus{State: "restarting"})
	ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
	defer cancel()
	if err := h.connect(ctx); err != nil {
		h.log.Error("pty daemon restart failed", "err", err)
		h.setStatus(api.DaemonStatus{State: "failed", Message: err.Error()})
		h.sweepUnanswered()
		return
	}
	h.recordForecast(ctx, true)
	if err := h.reconcile(ctx); err != nil {
		h.log.Error("reconcile after daemon restart failed", "err", err)
	}
}

// setStatus publishes s if it differs from the current status and says whether it did.
func (h *Host) setStatus(s api.DaemonStatus) (changed bool) {
	h.mu.Lock()
	changed = h.status != s
	h.status = s
	h.mu.Unlock()
	if changed {
		h.events.publish(Event{Kind: api.EventDaemon, Data: s})
	}
	return changed
}

// pollForeground reports which program runs in front in each terminal, so
// pane titles and close confirmations can name it, and records each shell's
// current directory, so a pane restored after a crash starts where the user
// was. A change of either is pushed as a terminal event: pane and tab titles
// follow a `cd` from it when the shell does not report its directory itself
// (OSC 7).
func (h *Host) pollForeground() {
	defer h.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		list, cwdNow, asked := h.pollDaemons()
		var changed []string
		cwds := map[string]string{}
		fresh := map[string]bool{} // first reading for this host: maybe what the store has
		h.mu.Lock()
		seen := map[string]bool{}
		for _, s := range list {
			if !s.Alive {
				continue
			}
			seen[s.ID] = true
			if h.fg[s.ID] != s.Foreground {
				h.fg[s.ID] = s.Foreground
				changed = append(changed, s.ID)
			}
			if d, ok := cwdNow[s.ID]; ok && d != h.cwd[s.ID] {
				_, known := h.cwd[s.ID]
				h.cwd[s.ID] = d
				cwds[s.ID] = d
				fresh[s.ID] = !known
			}
		}
		if !asked {
			h.mu.Unlock()
			continue
		}
		for id := range h.fg {
			if !seen[id] {
				delete(h.fg, id)
			}
		}
		for id := range h.cwd {
			if !seen[id] {
				delete(h.cwd, id)
			}
		}
		h.mu.Unlock()
		for id, d := range cwds {
			if fresh[id] {
				// Pages already have the stored directory (hello, attach): say nothing unless it moved.
				if t, err := h.store.GetTerminal(h.ctx, id); err == nil && t.Cwd == d {
					continue
				}
			}
			if err := h.store.SetTerminalCwd(h.ctx, id, d); err != nil {
				h.log.Warn("record terminal cwd", "terminal", id, "err", err)
				continue
			}
			if !slices.Contains(changed, id) {
				changed = append(changed, id)
			}
		}
		for _, id := range changed {
			if t, err := h.Terminal(h.ctx, id); err == nil {
				h.events.publish(Event{Kind: api.EventTerminal, Data: t})
			}
		}
	}
}

// pollDaemons asks every daemon that answers — this machine's and each
// connected remote host's — for its sessions and their current
// directories (read by each daemon from its own machine's /proc). asked is
// false when none answered.
func (h *Host) pollDaemons() (list []ptyclient.SessionInfo, cwds map[string]string, asked bool) {
	cwds = map[string]string{}
	var cs []*ptyclient.Client
	local, _ := h.client()
	if local != nil {
		cs = append(cs, local)
	}
	h.mu.Lock()
	for _, e := range h.remotes {
		if c, ok := e.up(); ok {
			cs = append(cs, c)
		}
	}
	h.mu.Unlock()
	for _, c := range cs {
		ctx, cancel := context.WithTimeout(h.ctx, 2*time.Second)
		l, err := c.List(ctx)
		if err != nil {
			cancel()
			continue
		}
		m, err := c.Cwds(ctx, "")
		cancel()
		if err != nil && c == local {
			// A daemon of an older Reprise (it outlives upgrades): this
			// machine's /proc answers for it.
			m = map[string]string{}
			for _, s := range l {
				if d, err := os.Readlink("/proc/" + strconv.Itoa(s.PID) + "/cwd"); err == nil && s.Alive {
					m[s.ID] = d
				}
			}
		}
		asked = true
		list = append(list, l...)
		for id, d := range m {
			cwds[id] = d
		}
	}
	return list, cwds, asked
}

func (h *Host) foreground(id string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fg[id]
}

// sweepUnanswered ends every binding of the last daemon-death snapshot when
// no daemon answers at all: their terminals are gone.
func (h *Host) sweepUnanswered() {
	h.mu.Lock()
	snap := h.sweep
	h.sweep = nil
	h.mu.Unlock()
	if len(snap) == 0 {
		return
	}
	ids := make([]string, 0, len(snap))
	for id := range snap {
		if h.hostOf(h.ctx, id) != "" {
			continue // the local daemon's failure ends no remote terminal
		}
		ids = append(ids, id)
	}
	h.endBindings(h.ctx, ids, time.Now(), snap)
	h.log.Warn("no pty daemon answers; agent sessions marked interrupted", "count", len(ids))
}
