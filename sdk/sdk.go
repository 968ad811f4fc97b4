// Package sdk is the Go client of a running Reprise: it talks to the
// host's local API over its Unix socket ($REPRISE_HOME/run/host.sock) and
// offers the same actions as the UI — start agents in panes, list agents,
// terminals and sessions, find resume candidates, resume, close.
//
// A Client needs a running host (the desktop app or `reprise serve`);
// Connect fails with ErrNoHost otherwise.
package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
)

// Types shared with the host.
type (
	Agent              = api.Agent
	Terminal           = api.Terminal
	Session            = api.Session
	Binding            = api.Binding
	AgentState         = api.AgentState
	CreateAgentRequest = api.CreateAgentRequest
	CreateAgentResult  = api.CreateAgentResult
	// Deprecated: use CreateAgentRequest.
	RunAgentRequest = api.CreateAgentRequest
	// Deprecated: use CreateAgentResult.
	RunAgentResult = api.CreateAgentResult
	ResumeResult   = api.ResumeResult
)

// ErrNoHost means no Reprise host answers on the socket.
var ErrNoHost = errors.New("no Reprise host is running for this home")

// ErrNotAnswering means a host holds the socket but does not answer
// Connect's check in time (stopped, wedged).
var ErrNotAnswering = errors.New("the Reprise host for this home is not answering")

// connectProbe bounds Connect's check: the version route answers at once,
// and without the bound a stopped host held every CLI command for the
// client's whole 60 s timeout, then failed with net/http's words.
var connectProbe = 10 * time.Second

// Client calls one host. Safe for concurrent use.
type Client struct {
	http *http.Client
	sock string
}

// SocketPath is the host socket of a home directory (REPRISE_HOME).
func SocketPath(home string) string { return filepath.Join(home, "run", "host.sock") }

// DefaultHome resolves the home the way the reprise command does.
func DefaultHome() string {
	if h := os.Getenv("REPRISE_HOME"); h != "" {
		return h
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "reprise")
	}
	d, _ := os.UserHomeDir()
	return filepath.Join(d, ".local", "share", "reprise")
}

// Connect returns a client of the host serving home ("" = DefaultHome),
// after checking that it answers.
func Connect(ctx context.Context, home string) (*Client, error) {
	if home == "" {
		home = DefaultHome()
	}
	c := New(SocketPath(home))
	var v map[string]any
	pctx, cancel := context.WithTimeout(ctx, connectProbe)
	defer cancel()
	if err := c.do(pctx, http.MethodGet, "/v1/version", nil, &v); err != nil {
		if ctx.Err() == nil && pctx.Err() != nil {
			return nil, fmt.Errorf("%w (%s: no answer within %v; is it stopped?)", ErrNotAnswering, c.sock, connectProbe)
		}
		return nil, err
	}
	return c, nil
}

// New returns a client of the host socket at sock without checking it.
func New(sock string) *Client {
	return &Client{sock: sock, http: &http.Client{
		Timeout: 60 * time.Second,
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}},
	}}
}

// APIError is a failure the host reported, with its one-line message.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string { return e.Message }

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://reprise"+path, body)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ne *net.OpError
		if errors.As(err, &ne) && ne.Op == "dial" {
			return fmt.Errorf("%w (%s)", ErrNoHost, c.sock)
		}
		return fmt.Errorf("reprise host: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("reprise host: %w", err)
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = fmt.Sprintf("reprise host answered %s", resp.Status)
		}
		return &APIError{Status: resp.StatusCode, Message: e.Error}
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// Agents lists every agent configuration.
func (c *Client) Agents(ctx context.Context) ([]Agent, error) {
	var out []Agent
	return out, c.do(ctx, http.MethodGet, "/v1/agents", nil, &out)
}

// CreateAgent starts an agent in a new pane (or req.PaneID). Set
// req.ResumeSessionID to the agent's own session id to resume that
// conversation (in the session's own directory unless req.Cwd says
// otherwise); the prompt is optional.
func (c *Client) CreateAgent(ctx context.Context, req CreateAgentRequest) (CreateAgentResult, error) {
	var out CreateAgentResult
	return out, c.do(ctx, http.MethodPost, "/v1/agents/run", req, &out)
}

// SetResumeArgs changes an agent's resume args (the session id is appended
// after them; empty means it cannot resume by id).
func (c *Client) SetResumeArgs(ctx context.Context, agentID string, args []string) (Agent, error) {
	var out Agent
	return out, c.do(ctx, http.MethodPut, "/v1/agents/"+url.PathEscape(agentID)+"/resume-args", map[string]any{"resumeArgs": args}, &out)
}

// ResetAgent restores a builtin agent's defaults.
func (c *Client) ResetAgent(ctx context.Context, agentID string) (Agent, error) {
	var out Agent
	return out, c.do(ctx, http.MethodPost, "/v1/agents/"+url.PathEscape(agentID)+"/reset", nil, &out)
}

// Terminals lists the terminals the host knows.
func (c *Client) Terminals(ctx context.Context) ([]Terminal, error) {
	var out []Terminal
	return out, c.do(ctx, http.MethodGet, "/v1/terminals", nil, &out)
}

// Sessions lists agent sessions, newest first: live ones and resume
// candidates, or with all every session ever seen. query filters by agent,
// session id or directory.
func (c *Client) Sessions(ctx context.Context, all bool, query string) ([]Session, error) {
	v := url.Values{}
	if all {
		v.Set("all", "1")
	}
	if query != "" {
		v.Set("q", query)
	}
	var out []Session
	return out, c.do(ctx, http.MethodGet, "/v1/sessions?"+v.Encode(), nil, &out)
}

// ResumeCandidates lists terminals whose agent was interrupted and can be
// resumed.
func (c *Client) ResumeCandidates(ctx context.Context) ([]Binding, error) {
	var out []Binding
	return out, c.do(ctx, http.MethodGet, "/v1/candidates", nil, &out)
}

// AgentStates lists what each pane's agent is doing (starting, working,
// needs-input, idle, failed-turn, interrupted, exited), derived on every
// call.
func (c *Client) AgentStates(ctx context.Context) ([]AgentState, error) {
	var out []AgentState
	return out, c.do(ctx, http.MethodGet, "/v1/agent-states", nil, &out)
}

// Binding returns which agent ran in a terminal and how it ended.
func (c *Client) Binding(ctx context.Context, terminalID string) (Binding, error) {
	var out Binding
	return out, c.do(ctx, http.MethodGet, "/v1/bindings/"+url.PathEscape(terminalID), nil, &out)
}

// Resume relaunches the interrupted agent of a terminal, in its pane.
func (c *Client) Resume(ctx context.Context, terminalID string) (ResumeResult, error) {
	var out ResumeResult
	return out, c.do(ctx, http.MethodPost, "/v1/resume", map[string]string{"terminalId": terminalID}, &out)
}

// CloseTerminal closes a terminal's pane, hanging up its processes.
func (c *Client) CloseTerminal(ctx context.Context, terminalID string) error {
	return c.do(ctx, http.MethodPost, "/v1/terminals/"+url.PathEscape(terminalID)+"/close", nil, nil)
}

// NotifyHooks asks the host to apply queued hook events now.
func (c *Client) NotifyHooks(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/v1/hooks/notify", nil, nil)
}
