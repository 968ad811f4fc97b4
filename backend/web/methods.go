package web

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/remote"
	"github.com/reprise-dev/reprise/backend/store"
)

// The page's WebSocket calls (docs/wire.md), one typed method each: the
// params are decoded from JSON into P, the result R is encoded back. The
// same table generates the page's TypeScript (frontend/src/api.gen.ts, by
// TestTypeScriptIsGenerated), so host and page cannot drift apart.

// method is one entry of the table.
type method struct {
	name   string
	params reflect.Type
	result reflect.Type
	call   func(ctx context.Context, c call, raw json.RawMessage) (any, error)
	// selfReply: the handler queues its own response (attach does, before
	// it releases the output it held back).
	selfReply bool
}

// call is one request being handled: its session and id.
type call struct {
	*session
	id uint64
}

// Empty is the params of a method that takes none, and the result of one
// that returns nothing: {}.
type Empty struct{}

func def[P, R any](name string, fn func(ctx context.Context, c call, p P) (R, error)) method {
	return method{
		name:   name,
		params: reflect.TypeFor[P](),
		result: reflect.TypeFor[R](),
		call: func(ctx context.Context, c call, raw json.RawMessage) (any, error) {
			p, err := decode[P](raw)
			if err != nil {
				return nil, err
			}
			r, err := fn(ctx, c, p)
			if err != nil {
				return nil, err
			}
			return r, nil
		},
	}
}

// none adapts a host call that returns only an error.
func none(err error) (Empty, error) { return Empty{}, err }

// Params of the methods (the JSON keys are the wire's).
type (
	TerminalParams struct {
		TerminalID string `json:"terminalId"`
	}
	AttachParams struct {
		TerminalID string `json:"terminalId"`
		Cols       uint16 `json:"cols"`
		Rows       uint16 `json:"rows"`
		// Lines: replay at most this many lines (the page's scrollback +
		// rows); 0 or absent: all.
		Lines int `json:"lines,omitempty"`
	}
	AskpassAnswerParams struct {
		ID string `json:"id"`
		// Secret: what the user typed, for a "secret" prompt.
		Secret string `json:"secret,omitempty"`
		// Accept: the answer to a "confirm" prompt.
		Accept bool `json:"accept,omitempty"`
		// Cancel: no answer; ssh fails with one line.
		Cancel bool `json:"cancel,omitempty"`
	}
	DetachParams struct {
		Handle uint32 `json:"handle"`
	}
	ResizeParams struct {
		TerminalID string `json:"terminalId"`
		Cols       uint16 `json:"cols"`
		Rows       uint16 `json:"rows"`
	}
	NewTabParams struct {
		Cwd string `json:"cwd,omitempty"`
		// Host opens the tab on a remote host (empty: this machine).
		Host string `json:"host,omitempty"`
	}
	SplitParams struct {
		PaneID    string `json:"paneId"`
		Direction string `json:"direction" ts:"Direction"`
	}
	PaneParams struct {
		PaneID string `json:"paneId"`
	}
	TabParams struct {
		TabID string `json:"tabId"`
	}
	RenameTabParams struct {
		TabID string `json:"tabId"`
		Title string `json:"title"`
	}
	MoveTabParams struct {
		TabID string `json:"tabId"`
		Index int    `json:"index"`
	}
	ResizeSplitParams struct {
		SplitID string    `json:"splitId"`
		Sizes   []float64 `json:"sizes"`
	}
	AgentIDParams struct {
		ID string `json:"id"`
	}
	BindingsParams struct {
		Candidates bool `json:"candidates,omitempty"`
	}
	SessionsParams struct {
		All   bool   `json:"all,omitempty"`
		Query string `json:"query,omitempty"`
	}
	ForgetSessionParams struct {
		AgentID   string `json:"agentId"`
		SessionID string `json:"sessionId"`
	}
	SettingParams struct {
		Key string `json:"key" ts:"SettingKey"`
	}
	SetSettingParams struct {
		Key   string `json:"key" ts:"SettingKey"`
		Value string `json:"value"`
	}
	AddHostParams struct {
		Name string `json:"name"`
		// SSH is [user@]host[:port] or an alias from ~/.ssh/config.
		SSH string `json:"ssh"`
	}
	HostNameParams struct {
		Name string `json:"name"`
	}
)

// Results that are not the host's own types. Fields in the order of their
// JSON keys, as the maps they replace were encoded.
type (
	HelloResult struct {
		// Daemon is the pty daemon's health.
		Daemon    api.DaemonStatus `json:"daemon"`
		Layout    *api.Layout      `json:"layout" ts:"Layout"`
		Terminals []api.Terminal   `json:"terminals"`
		Version   int              `json:"version"`
	}
	AttachResult struct {
		Handle uint32 `json:"handle"`
		// ReplayBytes is how much of the terminal's past output follows.
		ReplayBytes int64        `json:"replayBytes"`
		Terminal    api.Terminal `json:"terminal"`
	}
	ForegroundResult struct {
		Busy    bool   `json:"busy"`
		Command string `json:"command"`
	}
	SettingValue struct {
		Value string `json:"value"`
	}
	// HostInfo is one configured remote host (the store's row) with its
	// link as this host sees it; an empty status.state means unknown (no
	// terminal has used the host since the host started).
	HostInfo struct {
		Name       string         `json:"name"`
		RemoteHome string         `json:"remoteHome,omitempty"`
		SSH        string         `json:"ssh"`
		SSHConfig  string         `json:"sshConfig,omitempty"`
		Status     api.HostStatus `json:"status"`
	}
)

// hostInfo joins a stored host with its live link status.
func hostInfo(h *host.Host, s store.Host) HostInfo {
	return HostInfo{Name: s.Name, SSH: s.SSH, RemoteHome: s.RemoteHome, SSHConfig: s.SSHConfig, Status: h.HostStatus(s.Name)}
}

// methods is the table, in docs/wire.md's order. "ack" is not here: it is
// frequent and cheap and handled inline by the read loop, without a reply.
var methods = []method{
	def("hello", func(ctx context.Context, c call, _ Empty) (HelloResult, error) {
		h := c.srv.host
		l, err := h.Layout(ctx)
		if err != nil {
			return HelloResult{}, err
		}
		ts, err := h.Terminals(ctx)
		if err != nil {
			return HelloResult{}, err
		}
		return HelloResult{Version: api.Version, Layout: l, Terminals: ts, Daemon: h.DaemonStatus()}, nil
	}),
	selfReplying(def("attach", func(ctx context.Context, c call, p AttachParams) (AttachResult, error) {
		return AttachResult{}, c.attach(ctx, c.id, p)
	})),
	def("detach", func(ctx context.Context, c call, p DetachParams) (Empty, error) {
		return none(c.detach(ctx, p.Handle))
	}),
	def("resize", func(ctx context.Context, c call, p ResizeParams) (Empty, error) {
		return none(c.srv.host.Resize(ctx, p.TerminalID, p.Cols, p.Rows))
	}),
	def("layout.get", func(ctx context.Context, c call, _ Empty) (*api.Layout, error) {
		return c.srv.host.Layout(ctx)
	}),
	def("layout.newTab", func(ctx context.Context, c call, p NewTabParams) (*api.Layout, error) {
		return c.srv.host.NewTabOn(ctx, p.Host, p.Cwd)
	}),
	def("layout.split", func(ctx context.Context, c call, p SplitParams) (*api.Layout, error) {
		return c.srv.host.Split(ctx, p.PaneID, p.Direction)
	}),
	def("layout.closePane", func(ctx context.Context, c call, p PaneParams) (*api.Layout, error) {
		return c.srv.host.ClosePane(ctx, p.PaneID)
	}),
	def("layout.closeTab", func(ctx context.Context, c call, p TabParams) (*api.Layout, error) {
		return c.srv.host.CloseTab(ctx, p.TabID)
	}),
	def("layout.restartPane", func(ctx context.Context, c call, p PaneParams) (*api.Layout, error) {
		return c.srv.host.RestartPane(ctx, p.PaneID)
	}),
	def("layout.focus", func(ctx context.Context, c call, p PaneParams) (*api.Layout, error) {
		return c.srv.host.Focus(ctx, p.PaneID)
	}),
	def("layout.activateTab", func(ctx context.Context, c call, p TabParams) (*api.Layout, error) {
		return c.srv.host.ActivateTab(ctx, p.TabID)
	}),
	def("layout.renameTab", func(ctx context.Context, c call, p RenameTabParams) (*api.Layout, error) {
		return c.srv.host.RenameTab(ctx, p.TabID, p.Title)
	}),
	def("layout.moveTab", func(ctx context.Context, c call, p MoveTabParams) (*api.Layout, error) {
		return c.srv.host.MoveTab(ctx, p.TabID, p.Index)
	}),
	def("layout.resize", func(ctx context.Context, c call, p ResizeSplitParams) (*api.Layout, error) {
		return c.srv.host.ResizeSplit(ctx, p.SplitID, p.Sizes)
	}),
	def("terminals.list", func(ctx context.Context, c call, _ Empty) ([]api.Terminal, error) {
		return c.srv.host.Terminals(ctx)
	}),
	def("terminals.foreground", func(ctx context.Context, c call, p TerminalParams) (ForegroundResult, error) {
		busy, cmd, err := c.srv.host.Foreground(ctx, p.TerminalID)
		return ForegroundResult{Busy: busy, Command: cmd}, err
	}),
	def("agents.list", func(ctx context.Context, c call, _ Empty) ([]api.Agent, error) {
		return c.srv.host.Agents(ctx)
	}),
	def("agents.save", func(ctx context.Context, c call, a api.Agent) (api.Agent, error) {
		return c.srv.host.SaveAgent(ctx, a)
	}),
	def("agents.reset", func(ctx context.Context, c call, p AgentIDParams) (api.Agent, error) {
		return c.srv.host.ResetAgent(ctx, p.ID)
	}),
	def("agents.delete", func(ctx context.Context, c call, p AgentIDParams) (Empty, error) {
		return none(c.srv.host.DeleteAgent(ctx, p.ID))
	}),
	def("agents.installHooks", func(ctx context.Context, c call, p AgentIDParams) (api.Agent, error) {
		return c.srv.host.SetHooks(ctx, p.ID, true)
	}),
	def("agents.removeHooks", func(ctx context.Context, c call, p AgentIDParams) (api.Agent, error) {
		return c.srv.host.SetHooks(ctx, p.ID, false)
	}),
	// agents.run is CreateAgent (its wire name predates the rename).
	def("agents.run", func(ctx context.Context, c call, p api.CreateAgentRequest) (api.CreateAgentResult, error) {
		return c.srv.host.CreateAgent(ctx, p)
	}),
	def("agents.states", func(ctx context.Context, c call, _ Empty) ([]api.AgentState, error) {
		return c.srv.host.AgentStates(ctx)
	}),
	def("bindings.list", func(ctx context.Context, c call, p BindingsParams) ([]api.Binding, error) {
		if p.Candidates {
			return c.srv.host.ResumeCandidates(ctx)
		}
		return c.srv.host.Bindings(ctx, false)
	}),
	def("resume", func(ctx context.Context, c call, p api.ResumeRequest) (api.ResumeResult, error) {
		return c.srv.host.ResumeWith(ctx, p)
	}),
	def("sessions.list", func(ctx context.Context, c call, p SessionsParams) ([]api.Session, error) {
		return c.srv.host.Sessions(ctx, p.All, p.Query)
	}),
	def("sessions.forget", func(ctx context.Context, c call, p ForgetSessionParams) (Empty, error) {
		return none(c.srv.host.ForgetSession(ctx, p.AgentID, p.SessionID))
	}),
	def("restore.report", func(ctx context.Context, c call, _ Empty) (host.RestoreReport, error) {
		return c.srv.host.LastRestore(), nil
	}),
	def("settings.get", func(ctx context.Context, c call, p SettingParams) (SettingValue, error) {
		v, err := c.srv.host.Setting(ctx, p.Key)
		return SettingValue{Value: v}, err
	}),
	def("settings.set", func(ctx context.Context, c call, p SetSettingParams) (Empty, error) {
		return none(c.srv.host.SetSetting(ctx, p.Key, p.Value))
	}),
	// hosts.* are `reprise hosts list|add|remove` for Settings → Hosts and
	// "New tab on host…", over the same store code and checks.
	def("hosts.list", func(ctx context.Context, c call, _ Empty) ([]HostInfo, error) {
		hs, err := c.srv.host.Store().ListHosts(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]HostInfo, 0, len(hs))
		for _, s := range hs {
			out = append(out, hostInfo(c.srv.host, s))
		}
		return out, nil
	}),
	def("hosts.add", func(ctx context.Context, c call, p AddHostParams) (HostInfo, error) {
		if p.SSH == "" {
			return HostInfo{}, fmt.Errorf("add host %q: an ssh destination is needed ([user@]host[:port])", p.Name)
		}
		if err := remote.ValidateDest(p.SSH); err != nil {
			return HostInfo{}, fmt.Errorf("add host %q: %w", p.Name, err)
		}
		s, err := c.srv.host.Store().AddHost(ctx, store.Host{Name: p.Name, SSH: p.SSH})
		if err != nil {
			return HostInfo{}, err
		}
		return hostInfo(c.srv.host, s), nil
	}),
	def("hosts.remove", func(ctx context.Context, c call, p HostNameParams) (Empty, error) {
		return none(c.srv.host.Store().RemoveHost(ctx, p.Name))
	}),
	// askpass.* answer ssh's prompts (event "askpass"): the page lists the
	// open ones when it connects, and answers one with the typed secret,
	// an accept/reject, or a cancel. The secret is never logged or kept.
	def("askpass.pending", func(ctx context.Context, c call, _ Empty) ([]api.AskpassPrompt, error) {
		return c.srv.host.Askpass().Pending(), nil
	}),
	def("askpass.answer", func(ctx context.Context, c call, p AskpassAnswerParams) (Empty, error) {
		return none(c.srv.host.Askpass().Answer(p.ID, []byte(p.Secret), p.Accept, p.Cancel))
	}),
}

func selfReplying(m method) method { m.selfReply = true; return m }

// methodByName indexes the table.
var methodByName = func() map[string]*method {
	byName := make(map[string]*method, len(methods))
	for i := range methods {
		m := &methods[i]
		if byName[m.name] != nil {
			panic(fmt.Sprintf("web: method %q defined twice", m.name))
		}
		byName[m.name] = m
	}
	return byName
}()
