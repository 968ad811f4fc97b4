package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/backend/scrollback"
	"github.com/reprise-dev/reprise/backend/store"
)

var builder = layout.New(newID)

// Layout returns the saved layout.
func (h *Host) Layout(ctx context.Context) (*api.Layout, error) {
	return h.store.LoadLayout(ctx)
}

// mutateLayout applies fn to the current layout, saves the result (a
// compare-and-set on the version) and tells every client.
func (h *Host) mutateLayout(ctx context.Context, fn func(*api.Layout) (*api.Layout, error)) (*api.Layout, error) {
	h.layoutMu.Lock()
	defer h.layoutMu.Unlock()
	cur, err := h.store.LoadLayout(ctx)
	if err != nil {
		return nil, err
	}
	next, err := fn(cur)
	if err != nil {
		return nil, err
	}
	saved, err := h.store.SaveLayout(ctx, next, cur.Version)
	if err != nil {
		return nil, fmt.Errorf("save layout: %w", err)
	}
	h.events.publish(Event{Kind: api.EventLayout, Data: saved})
	return saved, nil
}

// ensureTab opens a first tab when there is none (first start).
func (h *Host) ensureTab(ctx context.Context) error {
	l, err := h.store.LoadLayout(ctx)
	if err != nil {
		return err
	}
	if len(l.Tabs) > 0 {
		return nil
	}
	_, err = h.NewTab(ctx, "")
	return err
}

// NewTab opens a tab with a fresh shell in cwd (empty: the focused pane's
// directory, else home).
func (h *Host) NewTab(ctx context.Context, cwd string) (*api.Layout, error) {
	return h.NewTabOn(ctx, "", cwd)
}

// NewTabOn is NewTab on a remote host (empty: this machine); there an
// empty cwd is the remote user's home.
//
// A new tab with neither ("new tab here") opens where the focused pane is:
// on its host, in its current directory there — on this machine, in home,
// when that host's link is down (docs/decisions.md "New tab and split of a
// remote pane").
func (h *Host) NewTabOn(ctx context.Context, host, cwd string) (*api.Layout, error) {
	if cwd == "" && host == "" {
		host, cwd = h.focusedPlace(ctx)
	}
	t, err := h.createTerminal(ctx, newTerminal{cwd: cwd, host: host})
	if err != nil {
		return nil, err
	}
	l, err := h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) {
		l2, _, err := builder.AddTab(l, t.ID)
		return l2, err
	})
	if err != nil {
		h.dispose(ctx, []string{t.ID})
	}
	return l, err
}

// Split opens a new shell beside (api.DirRow) or below (api.DirColumn) a
// pane, in the directory that pane's shell is in now.
func (h *Host) Split(ctx context.Context, paneID, direction string) (*api.Layout, error) {
	if direction != api.DirRow && direction != api.DirColumn {
		return nil, fmt.Errorf("split: direction must be %q or %q", api.DirRow, api.DirColumn)
	}
	cur, err := h.store.LoadLayout(ctx)
	if err != nil {
		return nil, err
	}
	ref, ok := layout.FindPane(cur, paneID)
	if !ok {
		return nil, fmt.Errorf("split: no pane %q", paneID)
	}
	// The new shell runs beside the old one: on its host, in the directory
	// its foreground process is in now (the daemon there reads it).
	cwd, host := userHome(), ""
	if old, err := h.store.GetTerminal(ctx, ref.TerminalID); err == nil {
		cwd, host = h.paneCwd(ctx, old), old.Host
	}
	t, err := h.createTerminal(ctx, newTerminal{cwd: cwd, host: host})
	if err != nil {
		return nil, err
	}
	l, err := h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) {
		l2, _, err := builder.Split(l, paneID, direction, t.ID)
		return l2, err
	})
	if err != nil {
		h.dispose(ctx, []string{t.ID})
	}
	return l, err
}

// ClosePane closes a pane and hangs up its terminal.
func (h *Host) ClosePane(ctx context.Context, paneID string) (*api.Layout, error) {
	var closed []string
	l, err := h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) {
		l2, ids, err := layout.ClosePane(l, paneID)
		closed = ids
		return l2, err
	})
	if err != nil {
		return nil, err
	}
	h.dispose(ctx, closed)
	return h.keepATab(ctx, l)
}

// keepATab opens a fresh tab when the last one was closed (docs/wire.md: "closing the last
// tab opens a fresh one"): the window was left with no tab and nothing in it, its last shell's
// `exit` or a click on the last tab's × showing a blank page until Ctrl+Shift+T.
func (h *Host) keepATab(ctx context.Context, l *api.Layout) (*api.Layout, error) {
	if len(l.Tabs) > 0 {
		return l, nil
	}
	return h.NewTab(ctx, "")
}

// CloseTab closes a tab and hangs up its terminals.
func (h *Host) CloseTab(ctx context.Context, tabID string) (*api.Layout, error) {
	var closed []string
	l, err := h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) {
		l2, ids, err := layout.CloseTab(l, tabID)
		closed = ids
		return l2, err
	})
	if err != nil {
		return nil, err
	}
	h.dispose(ctx, closed)
	return h.keepATab(ctx, l)
}

// dispose ends terminals the user closed: the end is stamped as "closed"
// before the hang-up, so the exit that follows cannot be mistaken for a
// death.
func (h *Host) dispose(ctx context.Context, ids []string) {
	for _, id := range ids {
		c, cerr := h.clientFor(ctx, id)
		now := time.Now()
		if _, _, err := h.applyBinding(ctx, id, bindings.Input{Kind: bindings.KindDispose, At: now}); err != nil && !errors.Is(err, store.ErrNotFound) {
			h.log.Warn("mark agent disposed", "terminal", id, "err", err)
		}
		if _, err := h.store.MarkTerminalEnded(ctx, id, api.StatusClosed, nil, "", now); err != nil {
			h.log.Warn("mark closed terminal", "terminal", id, "err", err)
		}
		if cerr == nil {
			if err := c.CloseSession(ctx, id, false); err != nil {
				h.log.Debug("hang up closed terminal", "terminal", id, "err", err)
			}
		}
		if t, err := h.Terminal(ctx, id); err == nil {
			h.events.publish(Event{Kind: api.EventTerminal, Data: t})
		}
	}
}

// RestartPane gives a pane whose terminal has ended a fresh shell in the
// same directory; the old output stays above a divider.
func (h *Host) RestartPane(ctx context.Context, paneID string) (*api.Layout, error) {
	cur, err := h.store.LoadLayout(ctx)
	if err != nil {
		return nil, err
	}
	ref, ok := layout.FindPane(cur, paneID)
	if !ok {
		return nil, fmt.Errorf("restart: no pane %q", paneID)
	}
	old, err := h.store.GetTerminal(ctx, ref.TerminalID)
	if err != nil {
		return nil, err
	}
	if old.Status == api.StatusRunning {
		return nil, errors.New("restart: the pane's terminal is still running")
	}
	tail, _, _, err := scrollback.Tail(h.cfg.Home.ScrollbackDir(), old.ID, restoreTail)
	if err != nil {
		h.log.Warn("read scrollback of ended terminal", "terminal", old.ID, "err", err)
	}
	how := "exited"
	if a := old.ToAPI(); a.ExitSignal != "" {
		how = "was killed by " + a.ExitSignal
	} else if a.ExitCode != nil {
		how = fmt.Sprintf("exited with status %d", *a.ExitCode)
	}
	when := time.Now()
	if old.EndedAt != nil {
		when = *old.EndedAt
	}
	line := fmt.Sprintf("── the process above %s at %s; new shell below", how, when.Local().Format("2006-01-02 15:04:05"))
	t, err := h.createTerminal(ctx, newTerminal{cwd: currentCwd(old), preamble: restorePreamble(tail, len(tail) == restoreTail, line)})
	if err != nil {
		return nil, err
	}
	l, err := h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) {
		l2, _, err := layout.ReplaceTerminal(l, paneID, t.ID)
		return l2, err
	})
	if err != nil {
		h.dispose(ctx, []string{t.ID})
		return nil, err
	}
	_ = scrollback.Remove(h.cfg.Home.ScrollbackDir(), old.ID)
	return l, nil
}

// Focus focuses a pane (and activates its tab).
func (h *Host) Focus(ctx context.Context, paneID string) (*api.Layout, error) {
	return h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) { return layout.Focus(l, paneID) })
}

// ActivateTab switches tabs.
func (h *Host) ActivateTab(ctx context.Context, tabID string) (*api.Layout, error) {
	return h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) { return layout.ActivateTab(l, tabID) })
}

// RenameTab sets a tab's title ("" gives it back the automatic one); it is kept with the layout.
func (h *Host) RenameTab(ctx context.Context, tabID, title string) (*api.Layout, error) {
	return h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) { return layout.RenameTab(l, tabID, title) })
}

// MoveTab moves a tab to index in the tab strip (kept with the layout).
func (h *Host) MoveTab(ctx context.Context, tabID string, index int) (*api.Layout, error) {
	return h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) { return layout.MoveTab(l, tabID, index) })
}

// ResizeSplit sets the relative sizes of a split's children.
func (h *Host) ResizeSplit(ctx context.Context, splitID string, sizes []float64) (*api.Layout, error) {
	return h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) { return layout.Resize(l, splitID, sizes) })
}

// focusedPlace is the host and current directory of the focused pane's
// terminal ("": this machine), or this machine's home.
func (h *Host) focusedPlace(ctx context.Context) (host, cwd string) {
	l, err := h.store.LoadLayout(ctx)
	if err != nil {
		return "", userHome()
	}
	for _, tab := range l.Tabs {
		if tab.ID != l.ActiveTabID {
			continue
		}
		if ref, ok := layout.FindPane(l, tab.FocusedPaneID); ok {
			if t, err := h.store.GetTerminal(ctx, ref.TerminalID); err == nil {
				if t.Host != "" && h.HostStatus(t.Host).State != "up" {
					return "", userHome() // a tab now beats one that waits for the link
				}
				return t.Host, h.paneCwd(ctx, t)
			}
		}
	}
	return "", userHome()
}

// focusedCwd is the focused pane's current directory when it is on this
// machine, else this machine's home (for launches here).
func (h *Host) focusedCwd(ctx context.Context) string {
	if host, cwd := h.focusedPlace(ctx); host == "" {
		return cwd
	}
	return userHome()
}
