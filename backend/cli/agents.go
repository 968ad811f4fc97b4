package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/shellquote"
	"github.com/reprise-dev/reprise/sdk"
)

// backend is what agent and session commands need. A running host serves
// it over its socket (sdk.Client); with none running, the command starts a
// host in-process for the one call (hostBackend) — the same code path the
// app uses, so nothing is lost either way.
type backend interface {
	Agents(ctx context.Context) ([]api.Agent, error)
	CreateAgent(ctx context.Context, req api.RunAgentRequest) (api.RunAgentResult, error)
	SetResumeArgs(ctx context.Context, id string, args []string) (api.Agent, error)
	ResetAgent(ctx context.Context, id string) (api.Agent, error)
	Sessions(ctx context.Context, all bool, query string) ([]api.Session, error)
	ResumeCandidates(ctx context.Context) ([]api.Binding, error)
	Resume(ctx context.Context, terminalID string) (api.ResumeResult, error)
}

type hostBackend struct{ h *host.Host }

func (b hostBackend) Agents(ctx context.Context) ([]api.Agent, error) { return b.h.Agents(ctx) }
func (b hostBackend) CreateAgent(ctx context.Context, r api.RunAgentRequest) (api.RunAgentResult, error) {
	return b.h.RunAgent(ctx, r)
}
func (b hostBackend) SetResumeArgs(ctx context.Context, id string, a []string) (api.Agent, error) {
	return b.h.UpdateResumeArgs(ctx, id, a)
}
func (b hostBackend) ResetAgent(ctx context.Context, id string) (api.Agent, error) {
	return b.h.ResetAgent(ctx, id)
}
func (b hostBackend) Sessions(ctx context.Context, all bool, q string) ([]api.Session, error) {
	return b.h.Sessions(ctx, all, q)
}
func (b hostBackend) ResumeCandidates(ctx context.Context) ([]api.Binding, error) {
	return b.h.Bindings(ctx, true)
}
func (b hostBackend) Resume(ctx context.Context, tid string) (api.ResumeResult, error) {
	return b.h.Resume(ctx, tid)
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
	return fn(ctx, hostBackend{h})
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runAgents(args []string, env Env) error {
	if len(args) == 0 {
		return usageError{"agents: expected list, create, update or reset"}
	}
	switch args[0] {
	case "list":
		fs, home := newFlags("agents list", env)
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		return withBackend(*home, func(ctx context.Context, b backend) error {
			as, err := b.Agents(ctx)
			if err != nil {
				return err
			}
			if *asJSON {
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
	case "create":
		fs, home := newFlags("agents create", env)
		agent := fs.String("agent", "", "agent id (see `reprise agents list`)")
		prompt := fs.String("prompt", "", "first prompt (optional)")
		resume := fs.String("resume-session", "", "the agent's own session id to resume")
		cwd := fs.String("cwd", "", "working directory (default: the current directory)")
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		if *agent == "" {
			return usageError{"agents create: --agent is required"}
		}
		dir := *cwd
		if dir == "" {
			dir, _ = os.Getwd()
		}
		return withBackend(*home, func(ctx context.Context, b backend) error {
			res, err := b.CreateAgent(ctx, api.RunAgentRequest{Agent: *agent, Prompt: *prompt, ResumeSessionID: *resume, Cwd: dir})
			if err != nil {
				return err
			}
			if *asJSON {
				return printJSON(env.Stdout, res)
			}
			fmt.Fprintln(env.Stdout, res.TerminalID)
			return nil
		})
	case "update":
		fs, home := newFlags("agents update", env)
		resumeArgs := fs.String("resume-args", "", `resume args as shell words, e.g. "--resume" ("" = cannot resume by id)`)
		if len(args) < 2 || strings.HasPrefix(args[1], "-") {
			return usageError{"agents update: expected an agent id"}
		}
		id := args[1]
		if err := parse(fs, args[2:]); err != nil {
			return err
		}
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "resume-args" })
		if !set {
			return usageError{"agents update: nothing to change (use --resume-args)"}
		}
		words, err := shellquote.Split(*resumeArgs)
		if err != nil {
			return fmt.Errorf("resume args: %w", err)
		}
		return withBackend(*home, func(ctx context.Context, b backend) error {
			a, err := b.SetResumeArgs(ctx, id, words)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s resume args: %s\n", a.ID, shellquote.Join(a.ResumeArgs))
			return nil
		})
	case "reset":
		fs, home := newFlags("agents reset", env)
		if len(args) < 2 || strings.HasPrefix(args[1], "-") {
			return usageError{"agents reset: expected an agent id"}
		}
		id := args[1]
		if err := parse(fs, args[2:]); err != nil {
			return err
		}
		return withBackend(*home, func(ctx context.Context, b backend) error {
			a, err := b.ResetAgent(ctx, id)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s reset to defaults (resume args: %s)\n", a.ID, shellquote.Join(a.ResumeArgs))
			return nil
		})
	}
	return usageError{fmt.Sprintf("agents: unknown subcommand %q", args[0])}
}

func runSessions(args []string, env Env) error {
	if len(args) == 0 || args[0] != "list" {
		return usageError{"sessions: expected 'list'"}
	}
	fs, home := newFlags("sessions list", env)
	all := fs.Bool("all", false, "every session ever seen, not just live ones and resume candidates")
	query := fs.String("q", "", "filter by agent, session id or directory")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	return withBackend(*home, func(ctx context.Context, b backend) error {
		ss, err := b.Sessions(ctx, *all, *query)
		if err != nil {
			return err
		}
		if *asJSON {
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
}

func runResume(args []string, env Env) error {
	fs, home := newFlags("resume", env)
	asJSON := fs.Bool("json", false, "print JSON")
	if len(args) < 1 || strings.HasPrefix(args[0], "-") {
		return usageError{"resume: expected a terminal id (see `reprise sessions list`)"}
	}
	tid := args[0]
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	return withBackend(*home, func(ctx context.Context, b backend) error {
		res, err := b.Resume(ctx, tid)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(env.Stdout, res)
		}
		fmt.Fprintln(env.Stdout, res.TerminalID)
		return nil
	})
}
