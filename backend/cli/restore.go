package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

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
func runRestoreCheck(args []string, env Env) error {
	fs, homeFlag := newFlags("restore-check", env)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	home, err := paths.Resolve(*homeFlag)
	if err != nil {
		return err
	}
	if _, err := os.Stat(home.DB()); err != nil {
		return fmt.Errorf("no Reprise state in %s (nothing to restore)", home.Dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := store.Open(ctx, home.DB(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer st.Close()
	fe := host.ForecastEnv{HomeDir: home.Dir, Env: os.Environ()}
	if c, err := ptyclient.Dial(ctx, home.PtydSocket(), ptyclient.Options{Name: "restore-check"}); err == nil {
		if list, err := c.List(ctx); err == nil {
			fe.Sessions, fe.DaemonUp = list, true
		}
		c.Close()
	}
	fcs, err := host.Forecast(ctx, st, fe)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(env.Stdout, map[string]any{"daemonRunning": fe.DaemonUp, "summary": host.Summary(fcs), "panes": fcs})
	}
	if !fe.DaemonUp {
		fmt.Fprintln(env.Stdout, "The pty daemon is not running: every pane restarts.")
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tPANE\tAGENT\tSESSION\tDETAIL")
	for _, f := range fcs {
		detail := f.Reason
		if len(f.Argv) > 0 {
			detail += " — argv: " + shellquote.Join(f.Argv)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Action, f.PaneID, dash(f.AgentLabel), dash(f.SessionID), detail)
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
