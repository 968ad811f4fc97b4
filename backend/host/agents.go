package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/reprise-dev/reprise/backend/agents/catalog"
	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/atomicfile"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/hooks/install"
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/backend/shellquote"
	"github.com/reprise-dev/reprise/backend/store"
)

// catalogRows is the builtin catalog in the store's shape.
func catalogRows() []store.AgentConfig {
	var out []store.AgentConfig
	for _, a := range catalog.Builtins() {
		out = append(out, store.AgentConfig{
			ID: a.ID, Label: a.Label, Command: a.Command, Args: a.Args, PromptArgs: a.PromptArgs,
			PromptTransport: a.PromptTransport, ResumeArgs: a.ResumeArgs, Env: a.Env,
			SessionIDArgs: a.SessionIDArgs, SessionIDKind: a.SessionIDKind, Tracking: a.Tracking,
		})
	}
	return out
}

func toCatalogConfig(c store.AgentConfig) catalog.Config {
	return catalog.Config{
		ID: c.ID, Label: c.Label, Command: c.Command, Args: c.Args, PromptArgs: c.PromptArgs,
		PromptTransport: c.PromptTransport, ResumeArgs: c.ResumeArgs, Env: c.Env,
		SessionIDArgs: c.SessionIDArgs, SessionIDKind: c.SessionIDKind,
	}
}

// pathOf finds a command on the PATH terminals get.
func (h *Host) pathOf(command string) (string, bool) { return lookPathIn(h.cfg.BaseEnv, command) }

func (h *Host) installer() install.Installer {
	in := install.Installer{Exe: h.cfg.Exe}
	for _, kv := range h.cfg.BaseEnv {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME":
			in.Home = v
		case "CLAUDE_CONFIG_DIR":
			in.ClaudeConfigDir = v
		case "CODEX_HOME":
			in.CodexHome = v
		}
	}
	if in.Home == "" {
		in.Home = userHome()
	}
	return in
}

func (h *Host) agentToAPI(c store.AgentConfig) api.Agent {
	a := api.Agent{
		ID: c.ID, Label: c.Label, Command: c.Command, Args: c.Args, PromptArgs: c.PromptArgs,
		PromptTransport: c.PromptTransport, ResumeArgs: c.ResumeArgs, Env: c.Env,
		SessionIDArgs: c.SessionIDArgs, SessionIDKind: c.SessionIDKind, Tracking: c.Tracking,
		Builtin: c.Builtin, Edited: c.Edited(),
	}
	a.Path, a.Found = h.pathOf(c.Command)
	hs := &api.HookStatus{}
	if slices.Contains(install.Supported(), c.ID) {
		hs.Supported = true
		if st, err := h.installer().Status(c.ID); err == nil {
			hs.Installed, hs.Path, hs.Note = st.Installed, st.Path, st.Note
		} else {
			hs.Note = err.Error()
		}
	} else if c.Tracking == "plugin" {
		hs.Note = "session tracking not available yet"
	}
	a.Hooks = hs
	return a
}

// Agents lists every agent configuration in display order.
func (h *Host) Agents(ctx context.Context) ([]api.Agent, error) {
	cs, err := h.store.ListAgentConfigs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]api.Agent, 0, len(cs))
	for _, c := range cs {
		out = append(out, h.agentToAPI(c))
	}
	return out, nil
}

// Agent returns one agent configuration.
func (h *Host) Agent(ctx context.Context, id string) (api.Agent, error) {
	c, err := h.store.GetAgentConfig(ctx, id)
	if err != nil {
		return api.Agent{}, unknownAgent(id, err)
	}
	return h.agentToAPI(c), nil
}

func unknownAgent(id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return notFound(fmt.Sprintf("unknown agent %q (see `reprise agents list`)", id))
	}
	return err
}

// notFound is a one-line message that still answers errors.Is(err,
// store.ErrNotFound), so the API can say 404.
type notFound string

func (e notFound) Error() string        { return string(e) }
func (e notFound) Is(target error) bool { return target == store.ErrNotFound }

// SaveAgent validates and stores an agent configuration (a builtin's edit,
// or a custom agent).
func (h *Host) SaveAgent(ctx context.Context, a api.Agent) (api.Agent, error) {
	c := store.AgentConfig{
		ID: a.ID, Label: a.Label, Command: a.Command, Args: a.Args, PromptArgs: a.PromptArgs,
		PromptTransport: a.PromptTransport, ResumeArgs: a.ResumeArgs, Env: a.Env,
		SessionIDArgs: a.SessionIDArgs, SessionIDKind: a.SessionIDKind, Tracking: a.Tracking,
	}
	if c.PromptTransport == "" {
		c.PromptTransport = "argv"
	}
	if c.Tracking == "" {
		c.Tracking = "none"
	}
	if old, err := h.store.GetAgentConfig(ctx, a.ID); err == nil && old.Builtin {
		c.Tracking = old.Tracking // how sessions are tracked is not the user's to change
	}
	if err := catalog.ValidateConfig(toCatalogConfig(c)); err != nil {
		return api.Agent{}, err
	}
	saved, err := h.store.SaveAgentConfig(ctx, c)
	if err != nil {
		return api.Agent{}, err
	}
	return h.agentToAPI(saved), nil
}

// SetResumeArgs changes only an agent's resume args.
func (h *Host) SetResumeArgs(ctx context.Context, id string, args []string) (api.Agent, error) {
	a, err := h.Agent(ctx, id)
	if err != nil {
		return api.Agent{}, err
	}
	a.ResumeArgs = args
	return h.SaveAgent(ctx, a)
}

// ResetAgent restores a builtin agent's defaults.
func (h *Host) ResetAgent(ctx context.Context, id string) (api.Agent, error) {
	c, err := h.store.ResetAgentConfig(ctx, id)
	if err != nil {
		return api.Agent{}, unknownAgent(id, err)
	}
	return h.agentToAPI(c), nil
}

// DeleteAgent deletes a custom agent.
func (h *Host) DeleteAgent(ctx context.Context, id string) error {
	return unknownAgent(id, h.store.DeleteAgentConfig(ctx, id))
}

// SetHooks installs or removes Reprise's hooks in an agent's own config.
func (h *Host) SetHooks(ctx context.Context, id string, installed bool) (api.Agent, error) {
	if _, err := h.store.GetAgentConfig(ctx, id); err != nil {
		return api.Agent{}, unknownAgent(id, err)
	}
	in := h.installer()
	var err error
	if installed {
		err = in.Install(id)
	} else {
		err = in.Remove(id)
	}
	if err != nil {
		return api.Agent{}, err
	}
	return h.Agent(ctx, id)
}

// posixShells run the launch wrapper with -l -c; any other login shell
// (fish, nu, …) gets the wrapper from /bin/sh and is exec'd afterwards.
var posixShells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true}

// wrapperArgv runs an agent inside the user's login shell: when the agent
// exits, the wrapper reports its exit status (≥ 128 means it was killed)
// and the pane falls back to an interactive shell. Every token passes
// through shellquote; nothing else builds the command line.
func (h *Host) wrapperArgv(agentID string, l catalog.Launch) []string {
	return wrapperArgv(h.cfg.Exe, h.cfg.Shell, "", agentID, l)
}

// wrapperArgv is the launch wrapper with exe as the reporting reprise and
// shell as the login shell; pre (shell code, may be empty) runs first. A
// remote launch passes the remote's binary, shell and PATH.
func wrapperArgv(exe string, shell []string, pre, agentID string, l catalog.Launch) []string {
	cmd := shellquote.Join(l.Argv)
	if len(l.Stdin) > 0 {
		cmd = "printf '%s' " + shellquote.Quote(string(l.Stdin)) + " | " + cmd
	}
	report := shellquote.Join([]string{exe, "hook", agentID, "process-exit", "--status"})
	// The wrapper's own stderr goes to /dev/null while the agent runs (the
	// agent's goes to the terminal through fd 3), so a killed agent does not
	// leave the shell's "Killed <whole command line>" job report in the pane.
	script := pre + "exec 3>&2 2>/dev/null; " + cmd + " 2>&3 3>&-; __reprise_status=$?; " + report +
		` "$__reprise_status" 2>&3 3>&-; exec 2>&3 3>&-; exec ` + shellquote.Join(shell)
	if posixShells[filepath.Base(shell[0])] {
		return []string{shell[0], "-l", "-c", script}
	}
	return []string{"/bin/sh", "-c", script}
}

// wrappedReport finds, in a terminal's argv, the exit report of the launch
// wrapper (wrapperArgv): shellquote.Join quotes every token, and catalog
// agent ids need no escaping inside the quotes.
var wrappedReport = regexp.MustCompile(`'hook' '([a-z0-9][a-z0-9-]{0,31})' 'process-exit' '--status'`)

// wrappedAgent is the agent a terminal's launch wrapper runs, "" when
// Reprise did not start the terminal for an agent.
func wrappedAgent(argv []string) string {
	if len(argv) < 2 {
		return ""
	}
	if m := wrappedReport.FindStringSubmatch(argv[len(argv)-1]); m != nil {
		return m[1]
	}
	return ""
}

// launch builds the argv for an agent, checks it can run, and prepares
// the per-launch hook settings where the agent takes them.
func (h *Host) launch(ctx context.Context, req api.CreateAgentRequest) (store.AgentConfig, catalog.Launch, string, error) {
	c, err := h.store.GetAgentConfig(ctx, req.Agent)
	if err != nil {
		return c, catalog.Launch{}, "", unknownAgent(req.Agent, err)
	}
	lr := catalog.LaunchRequest{Prompt: req.Prompt, ResumeSessionID: req.ResumeSessionID}
	if req.ResumeSessionID == "" && len(c.SessionIDArgs) > 0 && c.SessionIDKind != "" {
		lr.PreassignID = catalog.NewUUID()
	}
	// Reprise's own hooks for launches it makes, without touching the
	// user's settings: Claude takes a per-process settings file.
	if c.ID == "claude" {
		b, err := install.ClaudeSettingsJSON(h.cfg.Exe)
		if err != nil {
			return c, catalog.Launch{}, "", err
		}
		if err := writeFileAtomic(claudeSettingsPath(h.cfg.Home.Dir), b); err != nil {
			return c, catalog.Launch{}, "", fmt.Errorf("write claude hook settings: %w", err)
		}
	}
	// Agents configured through their own config files get Reprise's
	// (guarded, removable) hooks there when Reprise launches them; Codex
	// also needs its hooks trusted.
	if c.ID != "claude" && c.Tracking == "hooks" && slices.Contains(install.Supported(), c.ID) {
		in := h.installer()
		if st, err := in.Status(c.ID); err == nil && !st.Installed {
			if err := in.Install(c.ID); err != nil {
				h.log.Warn("install hooks for launch", "agent", c.ID, "err", err)
			} else {
				h.log.Info("installed Reprise hooks", "agent", c.ID, "path", st.Path)
			}
		}
	}
	l, err := catalog.Build(launchConfig(c, h.cfg.Home.Dir), lr)
	if err != nil {
		return c, catalog.Launch{}, "", err
	}
	bin, ok := h.pathOf(c.Command)
	if !ok {
		return c, catalog.Launch{}, "", fmt.Errorf("%s was not found on PATH", c.Command)
	}
	// Run what we found: a login shell's profile may reset PATH (Debian's
	// /etc/profile does), and "found on PATH" must mean "will run".
	l.Argv[0] = bin
	cwd := req.Cwd
	if cwd == "" && req.ResumeSessionID != "" {
		// Agents scope sessions by directory: a known session resumes where
		// it ran, whichever directory the request comes from.
		if s, err := h.store.GetAgentSession(ctx, c.ID, req.ResumeSessionID); err == nil {
			cwd = s.Cwd
		}
	}
	if cwd == "" {
		cwd = req.DefaultCwd
	}
	if cwd == "" {
		cwd = h.focusedCwd(ctx)
	}
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	if st, err := os.Stat(cwd); err != nil {
		//lint:ignore ST1005 a sentence the user reads as is (the resume banner, CLI, MCP, SDK show it verbatim)
		return c, catalog.Launch{}, "", fmt.Errorf("No such directory: %s", cwd)
	} else if !st.IsDir() {
		//lint:ignore ST1005 as above
		return c, catalog.Launch{}, "", fmt.Errorf("Not a directory: %s", cwd)
	}
	return c, l, cwd, nil
}

func claudeSettingsPath(homeDir string) string {
	return filepath.Join(homeDir, "hooks", "claude-settings.json")
}

// launchConfig is an agent's config as Reprise launches it: Claude with the
// per-process settings file carrying Reprise's hooks, Codex with its hooks
// trusted.
func launchConfig(c store.AgentConfig, homeDir string) catalog.Config {
	cfg := toCatalogConfig(c)
	switch c.ID {
	case "claude":
		cfg.Args = append([]string{"--settings", claudeSettingsPath(homeDir)}, cfg.Args...)
	case "codex":
		cfg.Args = append([]string{"--dangerously-bypass-hook-trust"}, cfg.Args...)
	}
	return cfg
}

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o600)
}

// CreateAgent starts an agent in a new tab, or in the given pane (replacing
// its terminal). The binding is recorded before the agent starts, with the
// pre-assigned or resumed session id, so even a crash before the first hook
// leaves a known id.
func (h *Host) CreateAgent(ctx context.Context, req api.CreateAgentRequest) (api.CreateAgentResult, error) {
	if req.Host != "" {
		return h.createRemoteAgent(ctx, req)
	}
	c, l, cwd, err := h.launch(ctx, req)
	if err != nil {
		h.resumeFailed(ctx, req, err)
		return api.CreateAgentResult{}, err
	}
	// Resuming a session by id (Sessions view, CLI, MCP) consumes any
	// interrupted binding of that same session, so its banner can't start a
	// second copy of the conversation later.
	var claimed []string
	if req.ResumeSessionID != "" {
		claimed = h.claimSession(ctx, c.ID, l.SessionID)
	}
	res, err := h.runLaunch(ctx, req, c, l, cwd)
	if err != nil {
		for _, tid := range claimed {
			h.applyBinding(context.WithoutCancel(ctx), tid, bindings.Input{Kind: bindings.KindUnclaim, At: time.Now()})
		}
		h.resumeFailed(ctx, req, err)
	}
	return res, err
}

// resumeFailed records a resume that could not even launch as the
// session's last outcome, with the reason, so the Sessions view shows it.
// A session Reprise never saw has no history row and gets none.
func (h *Host) resumeFailed(ctx context.Context, req api.CreateAgentRequest, err error) {
	if req.ResumeSessionID == "" {
		return
	}
	h.setSessionOutcome(context.WithoutCancel(ctx), req.Agent, req.ResumeSessionID, OutcomeFailed, err.Error())
}

// claimSession claims every resume candidate of one agent session.
func (h *Host) claimSession(ctx context.Context, agentID, sessionID string) []string {
	bs, err := h.store.ListBindings(ctx, bindings.TerminalExited)
	if err != nil {
		return nil
	}
	can, _ := h.canResume(ctx, agentID)
	var out []string
	for _, b := range bs {
		if b.AgentID != agentID || b.SessionID != sessionID {
			continue
		}
		if ok, _ := h.candidate(ctx, b); !ok {
			continue
		}
		if _, changed, err := h.applyBinding(ctx, b.TerminalID, bindings.Input{Kind: bindings.KindClaim, CanResume: can, At: time.Now()}); err == nil && changed {
			out = append(out, b.TerminalID)
		}
	}
	return out
}

func (h *Host) runLaunch(ctx context.Context, req api.CreateAgentRequest, c store.AgentConfig, l catalog.Launch, cwd string) (api.CreateAgentResult, error) {
	argv := h.wrapperArgv(c.ID, l)
	extra := make([]string, 0, len(l.Env)+1)
	for k, v := range l.Env {
		extra = append(extra, k+"="+v)
	}
	extra = append(extra, "REPRISE_AGENT="+c.ID)
	// A resume of an id Reprise never saw is not history until the agent
	// confirms it: an id the agent does not know must leave no entry.
	unconfirmed := false
	if req.ResumeSessionID != "" {
		_, err := h.store.GetAgentSession(ctx, c.ID, l.SessionID)
		unconfirmed = errors.Is(err, store.ErrNotFound)
	}
	res, err := h.startAgent(ctx, req, l, newTerminal{cwd: cwd, argv: argv, env: extra, host: req.Host}, bindings.Input{
		Kind: bindings.KindLaunch, AgentID: c.ID, SessionID: l.SessionID, Cwd: cwd,
		Prompted: req.ResumeSessionID != "", Unconfirmed: unconfirmed,
	})
	if err == nil {
		h.log.Info("agent started", "agent", c.ID, "terminal", res.TerminalID, "pane", res.PaneID, "session", l.SessionID, "resume", req.ResumeSessionID != "")
	}
	return res, err
}

// startAgent is the tail every agent launch shares, local or remote: the
// launch binding (and, for a resume, the pending outcome) is recorded
// before the agent starts, so its first hook can't overtake them; then the
// terminal starts and takes req.PaneID's place (its old terminal, dead or
// a surviving shell, is disposed) or a new tab.
func (h *Host) startAgent(ctx context.Context, req api.CreateAgentRequest, l catalog.Launch, nt newTerminal, launch bindings.Input) (api.CreateAgentResult, error) {
	var recorded string
	nt.beforeStart = func(tid string) {
		recorded = tid
		in := launch
		in.At = time.Now()
		if _, _, err := h.applyBinding(ctx, tid, in); err != nil {
			h.log.Warn("record launch binding", "terminal", tid, "err", err)
		}
		if req.ResumeSessionID != "" {
			h.markResuming(ctx, tid, launch.AgentID, l.SessionID)
		}
	}
	t, err := h.createTerminal(ctx, nt)
	if err != nil {
		h.log.Warn("agent terminal did not start", "agent", launch.AgentID, "terminal", recorded, "err", err)
		if recorded != "" {
			// Its launch binding was recorded before the open failed: ended
			// as closed, or the session of an agent that never ran was
			// listed "live" for good.
			if _, _, berr := h.applyBinding(context.WithoutCancel(ctx), recorded, bindings.Input{Kind: bindings.KindDispose, At: time.Now()}); berr != nil {
				h.log.Warn("end launch binding", "terminal", recorded, "err", berr)
			}
		}
		return api.CreateAgentResult{}, err
	}
	var paneID, replaced string
	_, err = h.mutateLayout(ctx, func(lay *api.Layout) (*api.Layout, error) {
		if req.PaneID != "" {
			l2, old, err := layout.ReplaceTerminal(lay, req.PaneID, t.ID)
			paneID, replaced = req.PaneID, old
			return l2, err
		}
		l2, p, err := builder.AddTab(lay, t.ID)
		paneID = p
		return l2, err
	})
	if err != nil {
		h.dispose(ctx, []string{t.ID})
		return api.CreateAgentResult{}, err
	}
	if replaced != "" {
		h.dispose(ctx, []string{replaced})
	}
	return api.CreateAgentResult{TerminalID: t.ID, PaneID: paneID, Argv: l.Argv, SessionID: l.SessionID}, nil
}
