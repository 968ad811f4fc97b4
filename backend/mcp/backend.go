package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/backend/logfile"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/sdk"
)

// connector is the Backend of `reprise mcp`. Every call goes to the
// running host's socket first, so a desktop app or `reprise serve` started
// after `reprise mcp` is used as soon as it answers. Only when no host
// answers does it start one in-process, lazily, and keep it until Close:
// that host holds the home's host lock (no app or serve can start for this
// home meanwhile) and serves the local API on the usual socket, so hooks,
// the CLI and the SDK reach it like any other host.
type connector struct {
	home   paths.Home
	log    *slog.Logger
	client *sdk.Client // the socket's client; it dials afresh for each new connection

	mu    sync.Mutex // guards local
	local *localHost
}

// localHost is a host started in-process because none was running.
type localHost struct {
	h        *host.Host
	api      *localapi.Server // nil if the socket could not be served
	closeLog func()
}

func newConnector(home paths.Home, logger *slog.Logger) *connector {
	return &connector{home: home, log: logger, client: sdk.New(home.HostSocket())}
}

// do runs fn against the running host, or the in-process one. A call that
// failed with ErrNoHost never reached a host (the dial failed), so it is
// safe to repeat it on the host started here.
func (c *connector) do(ctx context.Context, fn func(Backend) error) error {
	c.mu.Lock()
	l := c.local
	c.mu.Unlock()
	if l != nil {
		return fn(l.h)
	}
	err := fn(c.client)
	if !errors.Is(err, sdk.ErrNoHost) {
		return err
	}
	b, err := c.startLocal(ctx)
	if err != nil {
		return err
	}
	return fn(b)
}

// startLocal starts the in-process host, or returns the socket's client
// when another host turned out to be starting meanwhile.
func (c *connector) startLocal(ctx context.Context) (Backend, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local != nil {
		return c.local.h, nil
	}
	if err := c.home.Ensure(); err != nil {
		return nil, err
	}
	logger, closeLog := openLog(c.home.HostLog())
	h, err := host.Start(ctx, host.Config{Home: c.home, Logger: logger, BaseEnv: agentEnv(os.Environ())})
	if errors.Is(err, host.ErrHostRunning) {
		closeLog()
		// A host holds the lock but did not answer: it is starting up (or
		// shutting down). Give it a moment to open its socket.
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			if _, cerr := c.client.Agents(ctx); !errors.Is(cerr, sdk.ErrNoHost) {
				return c.client, nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return nil, err
	}
	if err != nil {
		closeLog()
		return nil, fmt.Errorf("start a Reprise host: %w", err)
	}
	l := &localHost{h: h, closeLog: closeLog}
	if l.api, err = localapi.Listen(h, c.home.HostSocket(), logger); err != nil {
		// The tools still work in-process; hooks reach the host through
		// its inbox, drained every second.
		c.log.Warn("in-process host: local API not served", "err", err)
	}
	c.log.Info("no Reprise host was running: started one in-process", "home", c.home.Dir)
	c.local = l
	return h, nil
}

// Close stops the in-process host, if one was started. Its terminals keep
// running in the pty daemon.
func (c *connector) Close() error {
	c.mu.Lock()
	l := c.local
	c.local = nil
	c.mu.Unlock()
	if l == nil {
		return nil
	}
	if l.api != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = l.api.Close(ctx)
		cancel()
	}
	err := l.h.Close()
	l.closeLog()
	return err
}

func (c *connector) Agents(ctx context.Context) (out []api.Agent, err error) {
	err = c.do(ctx, func(b Backend) (e error) { out, e = b.Agents(ctx); return })
	return
}

func (c *connector) CreateAgent(ctx context.Context, req api.CreateAgentRequest) (out api.CreateAgentResult, err error) {
	err = c.do(ctx, func(b Backend) (e error) { out, e = b.CreateAgent(ctx, req); return })
	return
}

func (c *connector) Terminals(ctx context.Context) (out []api.Terminal, err error) {
	err = c.do(ctx, func(b Backend) (e error) { out, e = b.Terminals(ctx); return })
	return
}

func (c *connector) Sessions(ctx context.Context, all bool, query string) (out []api.Session, err error) {
	err = c.do(ctx, func(b Backend) (e error) { out, e = b.Sessions(ctx, all, query); return })
	return
}

func (c *connector) ResumeCandidates(ctx context.Context) (out []api.Binding, err error) {
	err = c.do(ctx, func(b Backend) (e error) { out, e = b.ResumeCandidates(ctx); return })
	return
}

func (c *connector) AgentStates(ctx context.Context) (out []api.AgentState, err error) {
	err = c.do(ctx, func(b Backend) (e error) { out, e = b.AgentStates(ctx); return })
	return
}

func (c *connector) Resume(ctx context.Context, terminalID string) (out api.ResumeResult, err error) {
	err = c.do(ctx, func(b Backend) (e error) { out, e = b.Resume(ctx, terminalID); return })
	return
}

// The in-process host is a Backend as it is: it and the SDK client use the
// same names.
var (
	_ Backend = (*host.Host)(nil)
	_ Backend = (*sdk.Client)(nil)
)

// agentMarkers are variables an agent CLI sets for the processes it runs.
// `reprise mcp` is usually one of them; an agent started by the in-process
// host must not inherit them, or it would believe it runs nested inside
// the agent that called the tool.
var agentMarkers = []string{
	"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SESSION_ID", "CLAUDE_PROJECT_DIR",
	"CODEX_THREAD_ID", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED",
}

// agentEnv is the environment the in-process host gives new terminals:
// this process's, without the calling agent's markers.
func agentEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(agentMarkers, name) {
			out = append(out, kv)
		}
	}
	return out
}

// openLog appends to the rotating host log (0600), or discards if it cannot.
func openLog(path string) (*slog.Logger, func()) {
	f, err := logfile.Open(path) // rotating; a planted symlink is refused
	if err != nil {
		return slog.New(slog.DiscardHandler), func() {}
	}
	return slog.New(slog.NewTextHandler(f, nil)).With("via", "mcp"), func() { f.Close() }
}
