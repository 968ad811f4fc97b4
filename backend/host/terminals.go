package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/store"
)

// newTerminal describes a terminal to create.
type newTerminal struct {
	cwd             string
	argv            []string
	preamble        []byte
	restoredFrom    string
	restoredEndedAt *time.Time
	cols, rows      uint16
	env             []string // added to the terminal's environment
	beforeStart     func(terminalID string)
	host            string // a remote host's name; '' is this machine
	// via: the remote host's daemon connection to open it on, when the
	// caller holds one the link does not offer yet (a reconcile restoring
	// the panes of lost terminals before anyone else may use the link).
	via *ptyclient.Client
}

// createTerminal records a terminal and starts it in the daemon. The row is
// written first so a crash between the two leaves a terminal the next
// reconcile sees as lost, never a process nobody knows about.
func (h *Host) createTerminal(ctx context.Context, n newTerminal) (store.Terminal, error) {
	var c *ptyclient.Client
	var ep *remoteEP
	var err error
	if n.host != "" {
		if ep, err = h.endpoint(ctx, n.host); err != nil {
			return store.Terminal{}, err
		}
		// A new terminal may wait for a link that is coming up (the first
		// connect bootstraps the remote, the user may be answering ssh's
		// prompt), not for one that is down.
		if c = n.via; c == nil {
			if c, err = h.waitNew(ctx, ep); err != nil {
				return store.Terminal{}, err
			}
		}
		ep.mu.Lock()
		if n.cwd == "" {
			n.cwd = ep.home
		}
		if len(n.argv) == 0 {
			n.argv = []string{ep.shell, "-l"}
		}
		ep.mu.Unlock()
	} else if c, err = h.client(); err != nil {
		return store.Terminal{}, err
	}
	if n.cwd == "" {
		n.cwd = userHome()
	}
	if len(n.argv) == 0 {
		n.argv = h.cfg.Shell
	}
	t, err := h.store.CreateTerminal(ctx, store.Terminal{
		ID: newID("t_"), Cwd: n.cwd, Argv: n.argv, Status: api.StatusRunning, CreatedAt: time.Now(),
		RestoredFrom: n.restoredFrom, RestoredEndedAt: n.restoredEndedAt, Host: n.host,
	})
	if err != nil {
		return store.Terminal{}, fmt.Errorf("record terminal: %w", err)
	}
	if n.beforeStart != nil {
		n.beforeStart(t.ID)
	}
	h.mu.Lock()
	h.termHost[t.ID] = n.host
	h.mu.Unlock()
	env := h.terminalEnv(t.ID)
	if ep != nil {
		env = h.remoteTerminalEnv(ep, t.ID)
	}
	info, err := c.Open(ctx, ptyclient.OpenRequest{
		ID: t.ID, Argv: n.argv, Cwd: n.cwd, Env: append(env, n.env...),
		Cols: n.cols, Rows: n.rows, Log: h.scrollbackEnabled(ctx), Preamble: n.preamble,
	})
	if err != nil {
		now := time.Now()
		if _, merr := h.store.MarkTerminalEnded(ctx, t.ID, api.StatusExited, nil, "", now); merr != nil {
			h.log.Warn("mark failed terminal ended", "terminal", t.ID, "err", merr)
		}
		return store.Terminal{}, err
	}
	if err := h.store.SetTerminalPID(ctx, t.ID, info.PID); err != nil {
		h.log.Warn("record terminal pid", "terminal", t.ID, "err", err)
	}
	t.PID = info.PID
	h.log.Info("terminal started", "terminal", t.ID, "pid", info.PID, "cwd", n.cwd, "host", n.host)
	return t, nil
}

func (h *Host) scrollbackEnabled(ctx context.Context) bool {
	v, ok, err := h.store.GetSetting(ctx, "scrollback.persist")
	return err != nil || !ok || v != "false"
}

func userHome() string {
	if d, err := os.UserHomeDir(); err == nil {
		return d
	}
	return "/"
}

// onExit records a session's exit reported by the daemon, then lets the
// daemon forget it. It is called on the daemon client's reader goroutine,
// which must not wait for daemon replies, so the work moves off it.
func (h *Host) onExit(info ptyclient.SessionInfo) {
	go func() {
		ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
		defer cancel()
		h.recordExit(ctx, info)
		c, err := h.clientFor(ctx, info.ID)
		if err != nil {
			return
		}
		if err := c.Collect(ctx, info.ID); err != nil {
			h.log.Debug("collect exited session", "terminal", info.ID, "err", err)
		}
	}()
}

func (h *Host) recordExit(ctx context.Context, info ptyclient.SessionInfo) {
	ended := time.Now()
	if info.Ended > 0 {
		ended = time.UnixMilli(info.Ended)
	}
	changed, err := h.store.MarkTerminalEnded(ctx, info.ID, api.StatusExited, info.ExitCode, info.ExitSignal, ended)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			h.log.Error("record terminal exit", "terminal", info.ID, "err", err)
		}
		return
	}
	h.endBindings(ctx, []string{info.ID}, ended, nil)
	if !changed {
		return // already ended (closed by the user, or recorded before)
	}
	h.log.Info("terminal exited", "terminal", info.ID, "code", info.ExitCode, "signal", info.ExitSignal)
	t, err := h.Terminal(ctx, info.ID)
	if err == nil {
		h.events.publish(Event{Kind: api.EventTerminal, Data: t})
	}
	// A shell that exits cleanly on its own closes its pane, as in any
	// terminal; a non-zero status or a signal keeps the pane, showing how
	// it ended.
	if info.ExitCode != nil && *info.ExitCode == 0 && info.ExitSignal == "" {
		if paneID, err := h.store.PaneIDForTerminal(ctx, info.ID); err == nil && paneID != "" {
			if _, err := h.ClosePane(ctx, paneID); err != nil {
				h.log.Warn("close pane of exited shell", "pane", paneID, "err", err)
			}
		}
	}
}

// Terminal returns one terminal as the API describes it.
func (h *Host) Terminal(ctx context.Context, id string) (api.Terminal, error) {
	t, err := h.store.GetTerminal(ctx, id)
	if err != nil {
		return api.Terminal{}, err
	}
	return h.toAPI(ctx, t), nil
}

func (h *Host) toAPI(ctx context.Context, t store.Terminal) api.Terminal {
	a := t.ToAPI()
	if a.Status == api.StatusRunning {
		a.Foreground = h.foreground(t.ID)
		if t.Host != "" && h.HostStatus(t.Host).State != "up" {
			a.Link = disconnectedLine(t.Host)
		}
	}
	if p, err := h.store.PaneIDForTerminal(ctx, t.ID); err == nil {
		a.PaneID = p
	}
	return a
}

// Terminals lists every terminal the store knows, oldest first.
func (h *Host) Terminals(ctx context.Context) ([]api.Terminal, error) {
	ts, err := h.store.ListTerminals(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]api.Terminal, 0, len(ts))
	for _, t := range ts {
		out = append(out, h.toAPI(ctx, t))
	}
	return out, nil
}

// Resize changes a running terminal's size.
func (h *Host) Resize(ctx context.Context, id string, cols, rows uint16) error {
	c, err := h.clientFor(ctx, id)
	if err != nil {
		return err
	}
	return c.Resize(ctx, id, cols, rows)
}

// Foreground says whether a program other than the shell runs in front.
func (h *Host) Foreground(ctx context.Context, id string) (busy bool, command string, err error) {
	c, err := h.clientFor(ctx, id)
	if err != nil {
		return false, "", err
	}
	list, err := c.List(ctx)
	if err != nil {
		return false, "", err
	}
	for _, s := range list {
		if s.ID == id && s.Alive {
			return s.Foreground != "", s.Foreground, nil
		}
	}
	return false, "", nil
}

// Signal sends a signal to a terminal's process group.
func (h *Host) Signal(ctx context.Context, id, sig string) error {
	c, err := h.clientFor(ctx, id)
	if err != nil {
		return err
	}
	return c.Signal(ctx, id, sig)
}

// currentCwd is where a terminal's shell is now (it may have cd'd), falling
// back to where it started.
func currentCwd(t store.Terminal) string {
	if t.Status == api.StatusRunning && t.PID > 0 {
		if d, err := os.Readlink("/proc/" + strconv.Itoa(t.PID) + "/cwd"); err == nil {
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				return d
			}
		}
	}
	if st, err := os.Stat(t.Cwd); err == nil && st.IsDir() {
		return t.Cwd
	}
	return userHome()
}
