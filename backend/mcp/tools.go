package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reprise-dev/reprise/backend/api"
)

// Backend is what the tools need from a host: the running host's local API
// (sdk.Client satisfies it), the host itself in-process, or a fake in
// tests.
type Backend interface {
	Agents(ctx context.Context) ([]api.Agent, error)
	CreateAgent(ctx context.Context, req api.CreateAgentRequest) (api.CreateAgentResult, error)
	Terminals(ctx context.Context) ([]api.Terminal, error)
	Sessions(ctx context.Context, all bool, query string) ([]api.Session, error)
	ResumeCandidates(ctx context.Context) ([]api.Binding, error)
	AgentStates(ctx context.Context) ([]api.AgentState, error)
	Resume(ctx context.Context, terminalID string) (api.ResumeResult, error)
}

// ServerOptions configures NewServer.
type ServerOptions struct {
	// Version is reported to clients as the server's version.
	Version string
	// DefaultCwd is where agents_create starts an agent when the call names
	// no cwd and resumes no known session (which resumes in its own cwd):
	// the directory `reprise mcp` was started in, which MCP clients set to
	// the project they work on. Empty leaves the choice to the host.
	DefaultCwd string
	// Logger gets the SDK's and the tools' diagnostics; nil discards them.
	Logger *slog.Logger
}

// Tool inputs. The JSON schemas clients see are inferred from these types
// (descriptions from the jsonschema tags) and pinned by the snapshots in
// testdata/toolsnaps.
type (
	agentsCreateInput struct {
		Agent           string `json:"agent" jsonschema:"the agent's id from agents_list, e.g. claude or codex"`
		Prompt          string `json:"prompt,omitempty" jsonschema:"the first prompt to send to the agent (optional)"`
		ResumeSessionID string `json:"resumeSessionId,omitempty" jsonschema:"the agent's own session id to continue (a sessionId from sessions_list, not a terminal id); it resumes in that session's own cwd"`
		Cwd             string `json:"cwd,omitempty" jsonschema:"working directory for the agent (default: a resumed session's own cwd, else the directory reprise mcp runs in)"`
	}
	noInput           struct{}
	sessionsListInput struct {
		All   bool   `json:"all,omitempty" jsonschema:"include every session ever seen, not only live ones and resume candidates"`
		Query string `json:"query,omitempty" jsonschema:"only sessions whose agent, session id or directory contains this text"`
	}
	resumeInput struct {
		TerminalID string `json:"terminalId" jsonschema:"the terminalId of a resume candidate (from resume_candidates)"`
	}
)

// Tool outputs wrap lists in an object: structured content must be one.
type (
	agentsOutput struct {
		Agents []api.Agent `json:"agents"`
	}
	terminalsOutput struct {
		Terminals []api.Terminal `json:"terminals"`
	}
	sessionsOutput struct {
		Sessions []api.Session `json:"sessions"`
	}
	candidatesOutput struct {
		Candidates []api.Binding `json:"candidates"`
	}
	agentStatesOutput struct {
		Agents []api.AgentState `json:"agents"`
	}
)

// NewServer returns the MCP server of Reprise's tools, each calling b.
func NewServer(b Backend, opts ServerOptions) *mcpsdk.Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "reprise", Title: "Reprise", Version: version}, &mcpsdk.ServerOptions{
		Logger: logger,
		Instructions: "Reprise runs coding-agent CLIs in terminal panes and can resume a conversation whose agent was interrupted. " +
			"Use agents_list to see which agents exist, agents_create to start one, and resume_candidates then resume to bring an interrupted conversation back.",
	})

	addTool(s, logger, &mcpsdk.Tool{
		Name:  "agents_create",
		Title: "Start an agent",
		Description: "Start a coding agent (an id from agents_list, e.g. claude or codex) in a new Reprise tab, optionally with a first prompt, " +
			"or continue one of the agent's own earlier sessions by its session id. " +
			"Returns the terminalId and paneId it runs in, the argv launched and, when known, the agent's sessionId.",
		Annotations: writeHints(false),
	}, func(ctx context.Context, in agentsCreateInput) (any, error) {
		return b.CreateAgent(ctx, api.CreateAgentRequest{Agent: in.Agent, Prompt: in.Prompt, ResumeSessionID: in.ResumeSessionID, Cwd: in.Cwd, DefaultCwd: opts.DefaultCwd})
	}, required("agent"))

	addTool(s, logger, &mcpsdk.Tool{
		Name:  "agents_list",
		Title: "List agents",
		Description: "List the coding agents Reprise can start: id (what agents_create takes), label, command, whether the command is installed (found), " +
			"and the resume args used to continue a session by id (empty means the agent cannot resume by id).",
		Annotations: readOnlyHints(),
	}, func(ctx context.Context, _ noInput) (any, error) {
		as, err := b.Agents(ctx)
		return agentsOutput{Agents: nonNil(as)}, err
	})

	addTool(s, logger, &mcpsdk.Tool{
		Name:  "terminals_list",
		Title: "List terminals",
		Description: "List every terminal Reprise knows, oldest first: id, pid, status (running, exited, lost or closed), " +
			"exit code or signal, the pane showing it, working directory and argv.",
		Annotations: readOnlyHints(),
	}, func(ctx context.Context, _ noInput) (any, error) {
		ts, err := b.Terminals(ctx)
		return terminalsOutput{Terminals: nonNil(ts)}, err
	})

	addTool(s, logger, &mcpsdk.Tool{
		Name:  "sessions_list",
		Title: "List agent sessions",
		Description: "List coding-agent sessions newest first: by default the live ones and the interrupted ones that can be resumed; " +
			"set all to include every session ever seen (a resumable one continues with agents_create and its sessionId, in its own cwd), and query to filter.",
		Annotations: readOnlyHints(),
	}, func(ctx context.Context, in sessionsListInput) (any, error) {
		ss, err := b.Sessions(ctx, in.All, in.Query)
		return sessionsOutput{Sessions: nonNil(ss)}, err
	})

	addTool(s, logger, &mcpsdk.Tool{
		Name:  "resume_candidates",
		Title: "List interrupted agents",
		Description: "List terminals whose agent was interrupted mid-conversation (killed, crashed, or the pty daemon or machine restarted) " +
			"and can be resumed; pass a candidate's terminalId to resume.",
		Annotations: readOnlyHints(),
	}, func(ctx context.Context, _ noInput) (any, error) {
		bs, err := b.ResumeCandidates(ctx)
		return candidatesOutput{Candidates: nonNil(bs)}, err
	})

	addTool(s, logger, &mcpsdk.Tool{
		Name:  "agents_status",
		Title: "What each agent is doing",
		Description: "List each pane's agent and its state: starting, working, needs-input (a permission or question prompt is open), " +
			"idle (the turn finished), failed-turn, interrupted or exited. stale is true when a working agent sent no event for 10 minutes " +
			"(quietForSec says how long): it may be stuck.",
		Annotations: readOnlyHints(),
	}, func(ctx context.Context, _ noInput) (any, error) {
		as, err := b.AgentStates(ctx)
		return agentStatesOutput{Agents: nonNil(as)}, err
	})

	addTool(s, logger, &mcpsdk.Tool{
		Name:  "resume",
		Title: "Resume an interrupted agent",
		Description: "Continue the interrupted conversation of a terminal from resume_candidates: relaunches its agent with the same session id in the same pane " +
			"and returns the new terminalId. Calling it again for the same terminal launches nothing and returns the terminal the first call started.",
		Annotations: writeHints(true),
	}, func(ctx context.Context, in resumeInput) (any, error) {
		return b.Resume(ctx, in.TerminalID)
	}, required("terminalId"))

	return s
}

func readOnlyHints() *mcpsdk.ToolAnnotations {
	return &mcpsdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
}

// writeHints: the tools that start agents add a pane and never destroy
// anything the user has; the agent they start reaches the outside world.
func writeHints(idempotent bool) *mcpsdk.ToolAnnotations {
	return &mcpsdk.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: new(false), IdempotentHint: idempotent, OpenWorldHint: new(true)}
}

// required makes string properties non-empty: an empty agent or terminal
// id is a mistake the schema can name before the host sees it.
func required(names ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, n := range names {
			s.Properties[n].MinLength = new(1)
		}
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// toolError is a failed call as the model reads it: the host's one-line
// message, returned as a tool result with IsError set.
type toolError struct{ err error }

func (e toolError) Error() string {
	return strings.ReplaceAll(strings.TrimSpace(e.err.Error()), "\n", "; ")
}
func (e toolError) Unwrap() error { return e.err }

// addTool registers a tool whose input schema is inferred from In. The
// handler's error, and any panic, become an error result: a failing call
// never turns into a protocol error or brings the server down.
func addTool[In any](s *mcpsdk.Server, logger *slog.Logger, t *mcpsdk.Tool, fn func(context.Context, In) (any, error), tweaks ...func(*jsonschema.Schema)) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
	}
	for _, tw := range tweaks {
		tw(schema)
	}
	t.InputSchema = schema
	mcpsdk.AddTool(s, t, func(ctx context.Context, _ *mcpsdk.CallToolRequest, in In) (_ *mcpsdk.CallToolResult, out any, err error) {
		defer func() {
			if r := recover(); r != nil {
				logger.Error("tool panicked", "tool", t.Name, "panic", r, "stack", string(debug.Stack()))
				out, err = nil, toolError{fmt.Errorf("internal error in %s: %v", t.Name, r)}
			}
		}()
		out, err = fn(ctx, in)
		if err != nil {
			logger.Info("tool failed", "tool", t.Name, "err", err)
			return nil, nil, toolError{err}
		}
		return nil, out, nil
	})
}
