package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/sdk"
)

// watchEvery is how often `agents status --watch` asks the host.
const watchEvery = time.Second

func agentsStatusCommand(home *string, env Env) *cobra.Command {
	var o struct{ json, watch bool }
	status := &cobra.Command{
		Use:   "status",
		Short: "What each pane's agent is doing (starting, working, needs-input, idle, failed-turn, interrupted, exited)",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if o.watch {
				return watchAgentStates(*home, env, o.json)
			}
			return withBackend(*home, func(ctx context.Context, b backend) error {
				ss, err := b.AgentStates(ctx)
				if err != nil {
					return err
				}
				if o.json {
					return printJSON(env.Stdout, ss)
				}
				return printAgentStates(env.Stdout, ss)
			})
		}),
	}
	status.Flags().BoolVar(&o.json, "json", false, "print JSON (with --watch: one JSON object per line and change)")
	status.Flags().BoolVar(&o.watch, "watch", false, "print a line whenever a state changes, until Ctrl+C (needs a running host)")
	return status
}

func printAgentStates(w io.Writer, ss []api.AgentState) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TERMINAL\tPANE\tAGENT\tSTATE\tSINCE\tDETAIL")
	for _, s := range ss {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.TerminalID, s.PaneID, s.AgentID, s.State,
			s.Since.Local().Format("15:04:05"), s.Detail)
	}
	return tw.Flush()
}

// watchAgentStates polls a running host once a second and prints one line
// per change (a new agent, a new state, a turn turning stale, an agent
// leaving the list) until Ctrl+C. It does not start a host in-process as
// the one-shot commands do: a watch runs for hours, and that host would
// keep the app from starting in this home.
func watchAgentStates(homeFlag string, env Env, asJSON bool) error {
	home, err := paths.Resolve(homeFlag)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := sdk.Connect(ctx, home.Dir)
	if errors.Is(err, sdk.ErrNoHost) {
		return fmt.Errorf("agents status --watch needs a running Reprise (the app or `reprise serve`): %w", err)
	}
	if err != nil {
		return err
	}
	return watchStates(ctx, c.AgentStates, env.Stdout, asJSON, watchEvery)
}

// watchStates is the loop of --watch: list, compare with the last list,
// print the differences. It returns nil when ctx ends (Ctrl+C).
func watchStates(ctx context.Context, list func(context.Context) ([]api.AgentState, error), w io.Writer, asJSON bool, every time.Duration) error {
	type key struct {
		state, session string
		stale          bool
	}
	last := map[string]key{}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		ss, err := list(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, s := range ss {
			seen[s.TerminalID] = true
			k := key{s.State, s.SessionID, s.Stale}
			if old, ok := last[s.TerminalID]; ok && old == k {
				continue
			}
			last[s.TerminalID] = k
			if asJSON {
				if err := printJSONLine(w, s); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintf(w, "%s  %s  %s  %s  %s\n", time.Now().Format("15:04:05"), s.TerminalID, s.AgentID, s.State, s.Detail)
		}
		for tid := range last {
			if !seen[tid] {
				delete(last, tid)
				if asJSON {
					if err := printJSONLine(w, api.AgentState{TerminalID: tid, State: "gone"}); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(w, "%s  %s  gone (its pane was closed)\n", time.Now().Format("15:04:05"), tid)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

func printJSONLine(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }
