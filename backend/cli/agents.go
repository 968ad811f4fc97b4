package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/reprise-dev/reprise/backend/agents/catalog"
	"github.com/reprise-dev/reprise/backend/api"
	"github.com/spf13/cobra"

	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/shellquote"
	"github.com/reprise-dev/reprise/sdk"
)

// backend is what agent and session commands need. A running host serves
// it over its socket (sdk.Client); with none running, the command starts a
// host in-process for the one call (*host.Host itself: the SDK and the host
// use the same names) — the same code path the app uses, so nothing is lost
// either way.
type backend interface {
	Agents(ctx context.Context) ([]api.Agent, error)
	CreateAgent(ctx context.Context, req api.CreateAgentRequest) (api.CreateAgentResult, error)
	SetResumeArgs(ctx context.Context, id string, args []string) (api.Agent, error)
	ResetAgent(ctx context.Context, id string) (api.Agent, error)
	Sessions(ctx context.Context, all bool, query string) ([]api.Session, error)
	ResumeCandidates(ctx context.Context) ([]api.Binding, error)
	AgentStates(ctx context.Context) ([]api.AgentState, error)
	Resume(ctx context.Context, terminalID string) (api.ResumeResult, error)
}

func withBackend(homeFlag string, fn func(ctx context.Context, b backend) error) error {
	home, err := paths.Resolve(homeFlag)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := sdk.Connect(ctx, home.Dir)
	if err == nil {
		return fn(ctx, c)
	}
	if !errors.Is(err, sdk.ErrNoHost) {
		return err
	}
	if err := home.Ensure(); err != nil {
		return err
	}
	logger, closeLog := OpenLog(home.HostLog(), slog.LevelInfo)
	defer closeLog()
	h, err := host.Start(ctx, host.Config{Home: home, Logger: logger})
	if errors.Is(err, host.ErrHostRunning) {
		// A host is starting up or shutting down right now: try its socket once more.
		time.Sleep(500 * time.Millisecond)
		if c, cerr := sdk.Connect(ctx, home.Dir); cerr == nil {
			return fn(ctx, c)
		}
	}
	if err != nil {
		return err
	}
	defer h.Close()
	return fn(ctx, h)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func agentsCommand(home *string, env Env) *cobra.Command {
	agents := &cobra.Command{
		Use:   "agents",
		Short: "Agent configurations, and starting an agent in a pane",
		Args:  cobra.ArbitraryArgs,
		RunE:  group("agents", "list, create, update or reset"),
	}

	var listJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the agent configurations",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return withBackend(*home, func(ctx context.Context, b backend) error {
				as, err := b.Agents(ctx)
				if err != nil {
					return err
				}
				if listJSON {
					return printJSON(env.Stdout, as)
				}
				tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tLABEL\tCOMMAND\tFOUND\tRESUME ARGS\tTRACKING")
				for _, a := range as {
					resume := "(cannot resume by id)"
					if len(a.ResumeArgs) > 0 {
						resume = shellquote.Join(a.ResumeArgs) + " <id>"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\n", a.ID, a.Label, a.Command, a.Found, resume, a.Tracking)
				}
				return tw.Flush()
			})
		}),
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print JSON")

	var c struct {
		agent, prompt, resume, cwd, host string
		json                             bool
	}
	create := &cobra.Command{
		Use:   "create --agent ID",
		Short: "Start an agent in a new tab and print its terminal id",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if c.agent == "" {
				return usageError{"agents create: --agent is required"}
			}
			here, _ := os.Getwd()
			if c.host != "" {
				here = "" // this machine's directory means nothing on another one
			}
			return withBackend(*home, func(ctx context.Context, b backend) error {
				res, err := b.CreateAgent(ctx, api.CreateAgentRequest{Agent: c.agent, Prompt: c.prompt, ResumeSessionID: c.resume, Cwd: c.cwd, DefaultCwd: here, Host: c.host})
				if err != nil {
					return err
				}
				if c.json {
					return printJSON(env.Stdout, res)
				}
				fmt.Fprintln(env.Stdout, res.TerminalID)
				return nil
			})
		}),
	}
	create.Flags().StringVar(&c.agent, "agent", "", "agent id (see 'reprise agents list')")
	create.Flags().StringVar(&c.prompt, "prompt", "", "first prompt (optional)")
	create.Flags().StringVar(&c.resume, "resume-session", "", "the agent's own session id to resume")
	create.Flags().StringVar(&c.cwd, "cwd", "", "working directory (default: the resumed session's own, else the current directory)")
	create.Flags().StringVar(&c.host, "host", "", "run it on this remote host (see 'reprise hosts list'); --cwd is then a directory there")
	create.Flags().BoolVar(&c.json, "json", false, "print JSON")

	var resumeArgs string
	update := &cobra.Command{
		Use:   "update AGENT-ID --resume-args WORDS",
		Short: "Change an agent's resume args",
		Args:  exactArgs(1, "an agent id"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if !cmd.Flags().Changed("resume-args") {
				return usageError{"agents update: nothing to change (use --resume-args)"}
			}
			words, err := shellquote.Split(resumeArgs)
			if err != nil {
				return usageError{"--resume-args: " + err.Error()} // the user's words do not parse: bad usage
			}
			return withBackend(*home, func(ctx context.Context, b backend) error {
				a, err := b.SetResumeArgs(ctx, id, words)
				if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "%s resume args: %s\n", a.ID, shellquote.Join(a.ResumeArgs))
				return nil
			})
		}),
	}
	update.Flags().StringVar(&resumeArgs, "resume-args", "", `resume args as shell words, e.g. "--resume" ("" = cannot resume by id)`)

	reset := &cobra.Command{
		Use:   "reset AGENT-ID",
		Short: "Reset a builtin agent to its defaults",
		Args:  exactArgs(1, "an agent id"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			id := args[0]
			return withBackend(*home, func(ctx context.Context, b backend) error {
				a, err := b.ResetAgent(ctx, id)
				if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "%s reset to defaults (resume args: %s)\n", a.ID, shellquote.Join(a.ResumeArgs))
				return nil
			})
		}),
	}
	create.RegisterFlagCompletionFunc("agent", completeAgentIDs)
	update.ValidArgsFunction, reset.ValidArgsFunction = completeAgentIDs, completeAgentIDs
	agents.AddCommand(list, create, update, reset, agentsStatusCommand(home, env))
	return agents
}

// completeAgentIDs offers the builtin agents' ids. It reads no state and
// starts nothing: completion runs on every Tab.
func completeAgentIDs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if cmd.Name() != "create" && len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, a := range catalog.Builtins() {
		out = append(out, cobra.CompletionWithDesc(a.ID, a.Label))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func sessionsCommand(home *string, env Env) *cobra.Command {
	sessions := &cobra.Command{
		Use:   "sessions",
		Short: "Agent sessions from the history",
		Args:  cobra.ArbitraryArgs,
		RunE:  group("sessions", "'list'"),
	}
	var o struct {
		all, json bool
		query     string
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List live sessions and resume candidates (--all: every session ever seen)",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return withBackend(*home, func(ctx context.Context, b backend) error {
				ss, err := b.Sessions(ctx, o.all, o.query)
				if err != nil {
					return err
				}
				if o.json {
					return printJSON(env.Stdout, ss)
				}
				tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "AGENT\tSESSION\tSTATE\tRESUMABLE\tLAST ACTIVITY\tTERMINAL\tCWD")
				for _, s := range ss {
					state := s.EndReason
					switch {
					case s.Live:
						state = "live"
					case s.Candidate:
						state = "interrupted (resume candidate)"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\t%s\n", s.AgentID, s.SessionID, state, s.Resumable,
						s.LastActivityAt.Local().Format("2006-01-02 15:04:05"), s.TerminalID, s.Cwd)
				}
				return tw.Flush()
			})
		}),
	}
	list.Flags().BoolVar(&o.all, "all", false, "every session ever seen, not just live ones and resume candidates")
	list.Flags().StringVarP(&o.query, "query", "q", "", "filter by agent, session id or directory")
	list.Flags().BoolVar(&o.json, "json", false, "print JSON")
	sessions.AddCommand(list)
	return sessions
}

func resumeCommand(home *string, env Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "resume TERMINAL-ID",
		Short: "Resume the interrupted agent of a terminal, in its pane, and print the new terminal id",
		Args:  exactArgs(1, "a terminal id (see `reprise sessions list`)"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			tid := args[0]
			return withBackend(*home, func(ctx context.Context, b backend) error {
				res, err := b.Resume(ctx, tid)
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(env.Stdout, res)
				}
				fmt.Fprintln(env.Stdout, res.TerminalID)
				return nil
			})
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// The in-process host and the SDK client are both backends.
var (
	_ backend = (*host.Host)(nil)
	_ backend = (*sdk.Client)(nil)
)
