package api

import "time"

// Agent is one agent configuration as Settings → Agents shows it.
type Agent struct {
	ID              string            `json:"id"`
	Label           string            `json:"label"`
	Command         string            `json:"command"`
	Args            []string          `json:"args"`
	PromptArgs      []string          `json:"promptArgs"`
	PromptTransport string            `json:"promptTransport"` // "argv" or "stdin"
	ResumeArgs      []string          `json:"resumeArgs"`      // the session id is appended after these; empty = cannot resume by id
	Env             map[string]string `json:"env"`
	SessionIDArgs   []string          `json:"sessionIdArgs"`
	SessionIDKind   string            `json:"sessionIdKind"`
	Tracking        string            `json:"tracking"` // "hooks", "plugin", "none"
	Builtin         bool              `json:"builtin"`
	Edited          bool              `json:"edited"`         // a builtin changed away from its defaults
	Found           bool              `json:"found"`          // the command is on PATH
	Path            string            `json:"path,omitempty"` // where it was found
	Hooks           *HookStatus       `json:"hooks,omitempty"`
}

// HookStatus says whether Reprise's hooks are installed in an agent's config.
type HookStatus struct {
	Supported bool   `json:"supported"`
	Installed bool   `json:"installed"`
	Path      string `json:"path,omitempty"`
	Note      string `json:"note,omitempty"`
}

// CreateAgentRequest starts an agent in a pane: CreateAgent on the host, the
// SDK and the CLI (agents create), agents_create over MCP; on the page's
// WebSocket and the local API it keeps its first name, agents.run
// (docs/surfaces.md).
type CreateAgentRequest struct {
	Agent string `json:"agent"`
	// Prompt is optional (and optional when resuming).
	Prompt string `json:"prompt,omitempty"`
	// ResumeSessionID is the agent's own session id to resume (not a terminal id).
	ResumeSessionID string `json:"resumeSessionId,omitempty"`
	// Cwd is where the agent runs. Empty: for a resume, the session's own
	// recorded directory (agents scope sessions by directory); otherwise, or
	// when the session is unknown, DefaultCwd, else the focused pane's.
	Cwd string `json:"cwd,omitempty"`
	// DefaultCwd is the caller's own directory (the CLI's, `reprise mcp`'s),
	// used only when Cwd is empty and no recorded directory applies.
	DefaultCwd string `json:"defaultCwd,omitempty"`
	// PaneID runs the agent in that pane (replacing its terminal); empty opens a new tab.
	PaneID string `json:"paneId,omitempty"`
	// Host runs the agent on a remote host (reprise hosts add); empty:
	// this machine. Cwd is then a directory on that host (empty: its home).
	Host string `json:"host,omitempty"`
}

// ResumeRequest resumes a terminal's interrupted agent.
type ResumeRequest struct {
	TerminalID string `json:"terminalId"`
	// RecreateCwd first recreates the session's vanished directory (the
	// binding's RecreateCwd), as the user, for agents that find their
	// conversation again there.
	RecreateCwd bool `json:"recreateCwd,omitempty"`
}

// CreateAgentResult names the terminal the agent runs in.
type CreateAgentResult struct {
	TerminalID string   `json:"terminalId"`
	PaneID     string   `json:"paneId"`
	Argv       []string `json:"argv"`
	SessionID  string   `json:"sessionId,omitempty"` // pre-assigned or resumed id, when known
}

// Binding is which agent runs (or ran) in a terminal and how it ended.
type Binding struct {
	TerminalID  string     `json:"terminalId"`
	PaneID      string     `json:"paneId,omitempty"`
	AgentID     string     `json:"agentId"`
	AgentLabel  string     `json:"agentLabel"`
	SessionID   string     `json:"sessionId,omitempty"`
	Cwd         string     `json:"cwd,omitempty"`
	StartedAt   time.Time  `json:"startedAt"`
	LastEventAt time.Time  `json:"lastEventAt"`
	LastEvent   string     `json:"lastEvent,omitempty"`
	Prompted    bool       `json:"prompted"`
	EndedAt     *time.Time `json:"endedAt,omitempty"`
	EndReason   string     `json:"endReason,omitempty"` // "", detached, terminal-exited, disposed, resumed
	CanResume   bool       `json:"canResume"`           // the agent's config has resume args
	Resumable   bool       `json:"resumable"`           // session id known, prompted, and CanResume
	Candidate   bool       `json:"candidate"`           // show the resume banner
	// Unavailable explains why a terminal-exited session cannot be resumed.
	Unavailable string `json:"unavailable,omitempty"`
	// RecreateCwd, with Unavailable, is the vanished directory whose
	// recreation brings the conversation back (resume with RecreateCwd).
	RecreateCwd string `json:"recreateCwd,omitempty"`
	// ResumeError says why the last resume of this candidate failed (e.g.
	// an automatic resume), for the banner's "Couldn't resume" line.
	ResumeError string `json:"resumeError,omitempty"`
	// Outcome of a resume launched in this terminal: "resuming" until the
	// agent confirms, then "resumed", "fresh" or "failed" (or "unconfirmed"
	// for agents that report nothing); OutcomeDetail says why.
	ResumeOf      string     `json:"resumeOf,omitempty"`
	Outcome       string     `json:"outcome,omitempty"`
	OutcomeDetail string     `json:"outcomeDetail,omitempty"`
	OutcomeAt     *time.Time `json:"outcomeAt,omitempty"`
	// AgentState is the agent's attention state (Agent*), set on pushed
	// binding events only (computed after the hook's activity is stored);
	// agents.states has the whole AgentState, staleness included.
	AgentState string `json:"agentState,omitempty"`
}

// Session is one agent session from the history.
type Session struct {
	AgentID        string     `json:"agentId"`
	AgentLabel     string     `json:"agentLabel"`
	SessionID      string     `json:"sessionId"`
	Cwd            string     `json:"cwd"`
	TerminalID     string     `json:"terminalId,omitempty"`
	FirstSeenAt    time.Time  `json:"firstSeenAt"`
	FirstPromptAt  *time.Time `json:"firstPromptAt,omitempty"`
	LastActivityAt time.Time  `json:"lastActivityAt"`
	EndedAt        *time.Time `json:"endedAt,omitempty"`
	EndReason      string     `json:"endReason,omitempty"`
	Live           bool       `json:"live"`
	Resumable      bool       `json:"resumable"`
	Candidate      bool       `json:"candidate"`
	LastOutcome    string     `json:"lastOutcome,omitempty"`
	// LastOutcomeDetail says why (the launch's error, the agent's words).
	LastOutcomeDetail string `json:"lastOutcomeDetail,omitempty"`
	// FirstPrompt is the text of the first prompt (as its hook reported it, bounded), "" when unknown.
	FirstPrompt string `json:"firstPrompt,omitempty"`
	// Host is the remote host the conversation lives on ("" for this machine): its resume runs there.
	Host string `json:"host,omitempty"`
}

// ResumeResult is the terminal a resumed conversation now runs in.
type ResumeResult struct {
	TerminalID     string   `json:"terminalId"`
	PaneID         string   `json:"paneId"`
	AgentID        string   `json:"agentId"`
	SessionID      string   `json:"sessionId"`
	Argv           []string `json:"argv"`
	FromTerminal   string   `json:"fromTerminalId"`
	AlreadyResumed bool     `json:"alreadyResumed,omitempty"` // a concurrent or earlier resume launched it
}

// Setting keys.
const (
	SettingOnInterrupt       = "agents.onInterrupt" // "banner" (default) or "auto"
	SettingScrollbackPersist = "scrollback.persist" // "true" (default) or "false"
	// SettingContinueAfterRestart: "true" resumes every interrupted agent
	// after a reboot or daemon loss; "false" (default) offers the banner.
	SettingContinueAfterRestart    = "agents.continueAfterRestart"
	SettingSessionRetentionDays    = "sessions.retentionDays"   // "0" (default) keeps forever
	SettingScrollbackRetentionDays = "scrollback.retentionDays" // "0" (default) keeps forever
	// SettingNotifyWhen: which agent state changes raise a desktop
	// notification when the pane is not in front: "off", "needs-input", or
	// "needs-input-and-finished" (default).
	SettingNotifyWhen  = "notify.when"
	SettingNotifySound = "notify.sound" // "false" (default) or "true": a short beep with a notification
)

// EventBinding carries a Binding whenever one changes.
const EventBinding = "binding"

// Deprecated names, kept for the Go SDK's users.
type (
	// Deprecated: use CreateAgentRequest.
	RunAgentRequest = CreateAgentRequest
	// Deprecated: use CreateAgentResult.
	RunAgentResult = CreateAgentResult
)

// Agent attention states (backend/attention, docs/decisions.md "Agent
// states").
const (
	AgentStarting    = "starting"    // launched; no hook event yet
	AgentWorking     = "working"     // a prompt was submitted or a tool ran; the turn has not ended
	AgentNeedsInput  = "needs-input" // a permission or question prompt is open
	AgentIdle        = "idle"        // waiting for a prompt: the turn finished, or the agent is up (SessionStart) and none was sent
	AgentFailedTurn  = "failed-turn" // the turn failed (API error, out of quota)
	AgentInterrupted = "interrupted" // the terminal died under the agent
	AgentExited      = "exited"      // the agent ended on purpose (goodbye, pane closed, resumed elsewhere)
)

// AgentState is what one pane's agent is doing, derived on every read from
// the binding, the last hook activity and the terminal's process.
type AgentState struct {
	TerminalID string    `json:"terminalId"`
	PaneID     string    `json:"paneId,omitempty"`
	AgentID    string    `json:"agentId"`
	AgentLabel string    `json:"agentLabel"`
	SessionID  string    `json:"sessionId,omitempty"`
	Cwd        string    `json:"cwd,omitempty"`
	State      string    `json:"state"` // Agent*
	Since      time.Time `json:"since"` // when the state began
	// Stale: working, but no hook event for 10 minutes or more (QuietForSec
	// says how long); the turn may be stuck.
	Stale       bool   `json:"stale,omitempty"`
	QuietForSec int64  `json:"quietForSec,omitempty"`
	Detail      string `json:"detail"` // the state in words, e.g. "working — no activity for 12 min"
	EndReason   string `json:"endReason,omitempty"`
	// ExitStatus is the agent's exit status as its launch wrapper reported
	// it (≥ 128: killed by signal status−128), once it exited.
	ExitStatus *int `json:"exitStatus,omitempty"`
}
