package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/shellquote"
	"github.com/reprise-dev/reprise/backend/store"
)

// runRestoreCheck prints, without running anything, what each pane would
// do if Reprise started now: reattach, resume its agent (with the exact
// argv), start fresh, or fail to resume — each with the reason. It asks the
// daemon if one runs but never starts one.
func restoreCheckCommand(home *string, env Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "restore-check",
		Short: "Print what each pane would do after a restart, and why (runs nothing)",
		Args:  noArgs,
		RunE:  runE(func(cmd *cobra.Command, args []string) error { return runRestoreCheck(*home, asJSON, env) }),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func runRestoreCheck(homeFlag string, asJSON bool, env Env) error {
	home, err := paths.Resolve(homeFlag)
	if err != nil {
		return err
	}
	if _, err := os.Stat(home.DB()); errors.Is(err, fs.ErrNotExist) {
		// A fresh home: no pane to restore is an answer, not a failure.
		fcs := []host.PaneForecast{}
		if asJSON {
			return printJSON(env.Stdout, map[string]any{"daemonRunning": false, "summary": host.Summary(fcs), "panes": fcs})
		}
		fmt.Fprintf(env.Stdout, "No Reprise state in %s: %s\n", home.Dir, host.Summary(fcs))
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	st, err := store.Open(ctx, home.DB(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer st.Close()
	// Hook events still in the inbox are what a starting host applies
	// first; read them (changing nothing) so the forecast is the host's.
	pending, err := host.PendingHooks(home.Dir)
	if err != nil {
		return err
	}
	fe := host.ForecastEnv{HomeDir: home.Dir, Env: os.Environ(), Pending: pending}
	if c, err := ptyclient.Dial(ctx, home.PtydSocket(), ptyclient.Options{Name: "restore-check"}); err == nil {
		if list, err := c.List(ctx); err == nil {
			fe.Sessions, fe.DaemonUp = list, true
		}
		c.Close()
	}
	// Panes on remote hosts: each host's own daemon answers (never started
	// here); one that cannot be reached within the bound says so per pane.
	remotes, closeRemotes := host.ForecastRemotes(ctx, st, home.Dir, 25*time.Second)
	defer closeRemotes()
	fe.Remote = remotes
	fcs, err := host.Forecast(ctx, st, fe)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(env.Stdout, map[string]any{"daemonRunning": fe.DaemonUp, "summary": host.Summary(fcs), "panes": fcs})
	}
	if !fe.DaemonUp {
		fmt.Fprintln(env.Stdout, "The pty daemon is not running: every pane restarts.")
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tPANE\tHOST\tAGENT\tSESSION\tDETAIL")
	for _, f := range fcs {
		detail := f.Reason
		if len(f.Argv) > 0 {
			detail += " — argv: " + shellquote.Join(f.Argv)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.Action, f.PaneID, dash(f.Host), dash(f.AgentLabel), dash(f.SessionID), detail)
	}
	tw.Flush()
	fmt.Fprintln(env.Stdout, host.Summary(fcs))
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
