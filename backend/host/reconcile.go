package host

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/backend/scrollback"
	"github.com/reprise-dev/reprise/backend/store"
)

// restoreTail is how much of a dead terminal's log is shown above the
// divider when its pane is cold-respawned.
const restoreTail = 512 << 10

// reconcile brings the store in line with the daemon: exits that happened
// while no host listened are recorded, and every terminal the daemon no
// longer has (it died, or the machine rebooted) is marked lost and its pane
// cold-respawned with its old contents.
func (h *Host) reconcile(ctx context.Context) error {
	c, err := h.client()
	if err != nil {
		return err
	}
	sessions, err := c.List(ctx)
	if err != nil {
		return fmt.Errorf("list daemon sessions: %w", err)
	}
	inDaemon := make(map[string]int, len(sessions))
	for i, s := range sessions {
		inDaemon[s.ID] = i
	}
	terms, err := h.store.ListTerminals(ctx)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	var lost []store.Terminal
	for _, t := range terms {
		known[t.ID] = true
		if t.Status != api.StatusRunning || t.Host != "" {
			continue // a remote terminal is its host's supervisor's to judge
		}
		i, ok := inDaemon[t.ID]
		switch {
		case ok && sessions[i].Alive:
			if sessions[i].PID != t.PID {
				_ = h.store.SetTerminalPID(ctx, t.ID, sessions[i].PID)
			}
		case ok:
			h.recordExit(ctx, sessions[i])
			_ = c.Collect(ctx, t.ID)
		default:
			lost = append(lost, t)
		}
	}
	for _, s := range sessions {
		if !known[s.ID] {
			h.log.Warn("daemon holds a session the store does not know; leaving it alone", "session", s.ID, "pid", s.PID)
		}
	}
	h.mu.Lock()
	snap := h.sweep
	h.sweep = nil
	diedAt := h.diedAt
	h.diedAt = time.Time{}
	h.mu.Unlock()
	// Bindings of terminals the daemon still owns are not swept; bindings
	// of lost terminals end, unless their session changed since the death
	// was noticed (snap is nil at boot: every lost terminal's binding ends).
	at := time.Now()
	for _, t := range lost {
		bindAt := at
		if snap == nil {
			bindAt = lastOutput(h.cfg.Home.ScrollbackDir(), t.ID, at)
		}
		h.endBindings(ctx, []string{t.ID}, bindAt, snap)
	}
	for _, t := range lost {
		if err := h.coldRespawn(ctx, t, diedAt); err != nil {
			h.log.Error("cold respawn failed", "terminal", t.ID, "err", err)
		}
	}
	if len(lost) > 0 {
		h.log.Warn("terminals lost with the pty daemon were restored from scrollback", "count", len(lost))
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			h.continueAfterRestart(h.ctx, lost)
		}()
	}
	return nil
}

// coldRespawn marks a terminal lost and, if a pane shows it, gives that pane
// a new shell in the same directory whose screen starts with the old
// terminal's output and a divider saying when it ended: diedAt when the host
// saw the daemon die, else (zero: it died while no host watched) when the
// terminal last printed.
func (h *Host) coldRespawn(ctx context.Context, old store.Terminal, diedAt time.Time) error {
	dir := h.cfg.Home.ScrollbackDir()
	tail, modMs, haveLog, err := scrollback.Tail(dir, old.ID, restoreTail)
	if err != nil {
		h.log.Warn("read scrollback of lost terminal", "terminal", old.ID, "err", err)
	}
	ended := time.Now()
	switch {
	case !diedAt.IsZero():
		// Seen live: an idle shell's last output may be hours before its death.
		ended = diedAt
	case haveLog && modMs > 0:
		ended = time.UnixMilli(modMs) // when it last printed: the best evidence of when it died
	}
	changed, err := h.store.MarkTerminalEnded(ctx, old.ID, api.StatusLost, nil, "", ended)
	if err != nil {
		return err
	}
	if !changed {
		return nil
	}
	paneID, err := h.store.PaneIDForTerminal(ctx, old.ID)
	if err != nil || paneID == "" {
		_ = scrollback.Remove(dir, old.ID)
		return nil // no pane shows it: nothing to restore into
	}
	cwd := old.Cwd
	note := ""
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		note = fmt.Sprintf(" Its directory %s is gone; the new shell starts in your home.", cwd)
		cwd = userHome()
	}
	// No closing rule: the line must fit a half-width pane without wrapping.
	line := fmt.Sprintf("── %s at %s.%s", Divider, ended.Local().Format("2006-01-02 15:04:05"), note)
	preamble := restorePreamble(tail, len(tail) == restoreTail, line)
	t, err := h.createTerminal(ctx, newTerminal{cwd: cwd, preamble: preamble, restoredFrom: old.ID, restoredEndedAt: &ended})
	if err != nil {
		return fmt.Errorf("start shell for pane %s: %w", paneID, err)
	}
	if _, err := h.mutateLayout(ctx, func(l *api.Layout) (*api.Layout, error) {
		l2, _, err := layout.ReplaceTerminal(l, paneID, t.ID)
		return l2, err
	}); err != nil {
		return err
	}
	// The new terminal's log now holds the old output; the old log can go.
	_ = scrollback.Remove(dir, old.ID)
	h.log.Info("pane cold-respawned", "pane", paneID, "lost", old.ID, "terminal", t.ID, "restoredBytes", len(tail))
	return nil
}

// Divider is the line that separates restored output from the new shell.
const Divider = "output above is from before this terminal ended"

// restorePreamble is what a pane shows above a new shell: the old
// terminal's output tail, a reset of any modes it left on, and a dim line.
func restorePreamble(tail []byte, truncated bool, line string) []byte {
	if truncated {
		// Start at a line boundary, not inside an escape sequence or a
		// multi-byte character.
		for i, b := range tail {
			if b == '\n' {
				tail = tail[i+1:]
				break
			}
		}
	}
	var out []byte
	out = append(out, tail...)
	// Leave whatever mode the dead program left: alternate screen, colours,
	// hidden cursor, mouse and paste modes.
	// ESC 7 first: leaving an alternate screen that is not active would
	// otherwise restore a cursor saved at the top left, and the divider and
	// the new shell would overwrite the restored output.
	out = append(out, "\x1b[0m\x1b7\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1006l\x1b[?2004l\r\n"...)
	out = append(out, "\x1b[2m"...)
	out = append(out, line...)
	out = append(out, "\x1b[0m\r\n"...)
	return out
}

// lastOutput is when a terminal last printed (its log's modification time),
// the best evidence of when it died while no host was watching.
func lastOutput(dir, id string, fallback time.Time) time.Time {
	if t, ok := scrollback.LastWrite(dir, id); ok {
		return t
	}
	return fallback
}
