// Package catalog holds the builtin agent presets and builds the argv that
// launches or resumes an agent.
//
// The presets follow shared/AGENTS.md; vendors change their CLIs, so every
// value is only a default that the user can edit in Settings (the store
// keeps the edited rows and converts them to a Config). Build is the one
// place where launch argv are made, and ValidateConfig is the check a
// Config passes before anything is launched from it.
//
// The package is pure data and functions: no I/O besides crypto/rand.
package catalog

import (
	"maps"
	"slices"
)

// Prompt transports: how the first prompt reaches the agent.
const (
	TransportArgv  = "argv"  // after PromptArgs, as the last argv element
	TransportStdin = "stdin" // written to the agent's stdin, newline-terminated
)

// Session id kinds for agents that accept a pre-assigned id.
const (
	KindUUID = "uuid" // the id must be a UUID
	KindAny  = "any"  // any valid session id
)

// How Reprise learns an agent's session id.
const (
	TrackingHooks  = "hooks"  // Reprise installs hooks into the agent's config
	TrackingPlugin = "plugin" // the agent needs a plugin or extension; not available yet
	TrackingNone   = "none"
)

// Agent is one builtin agent preset.
type Agent struct {
	ID              string            // "claude", "codex", …
	Label           string            // shown to the user: "Claude Code", "Codex", …
	Command         string            // binary name, looked up in the login shell's PATH
	Args            []string          // always passed (before resume args)
	PromptArgs      []string          // placed before the prompt; nil = positional
	PromptTransport string            // TransportArgv or TransportStdin
	ResumeArgs      []string          // the session id is appended after these; nil = cannot resume by id
	Env             map[string]string // extra env for the agent process
	SessionIDArgs   []string          // flag(s) that pre-assign a session id, the id appended; nil = cannot
	SessionIDKind   string            // KindUUID or KindAny; "" when SessionIDArgs is nil
	Tracking        string            // TrackingHooks, TrackingPlugin or TrackingNone
}

// builtins is the catalog table of AGENTS.md, in its order. Never hand it
// out: Builtins and ByID return copies.
var builtins = []Agent{
	{
		ID: "claude", Label: "Claude Code", Command: "claude",
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--resume"},
		SessionIDArgs:   []string{"--session-id"}, SessionIDKind: KindUUID,
		Tracking: TrackingHooks,
	},
	{
		// resume is a subcommand: root flags (Args) must come before it.
		// The prompt goes after "--" so one that starts with "-" is not
		// read as a flag.
		ID: "codex", Label: "Codex", Command: "codex",
		PromptArgs:      []string{"--"},
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"resume"},
		Tracking:        TrackingHooks,
	},
	{
		ID: "gemini", Label: "Gemini CLI", Command: "gemini",
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--resume"},
		SessionIDArgs:   []string{"--session-id"}, SessionIDKind: KindAny,
		Tracking: TrackingHooks,
	},
	{
		ID: "amp", Label: "Amp", Command: "amp",
		PromptTransport: TransportStdin,
		ResumeArgs:      []string{"threads", "continue"},
		Tracking:        TrackingPlugin,
	},
	{
		ID: "opencode", Label: "OpenCode", Command: "opencode",
		PromptArgs:      []string{"--prompt"},
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--session"},
		Tracking:        TrackingPlugin,
	},
	{
		ID: "pi", Label: "pi", Command: "pi",
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--session"},
		SessionIDArgs:   []string{"--session-id"}, SessionIDKind: KindAny,
		Tracking: TrackingPlugin,
	},
	{
		ID: "copilot", Label: "GitHub Copilot CLI", Command: "copilot",
		PromptArgs:      []string{"-i"},
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--resume"},
		SessionIDArgs:   []string{"--session-id"}, SessionIDKind: KindUUID,
		Tracking: TrackingHooks,
	},
	{
		// Cursor can make an id up front only with a separate
		// `agent create-chat` call, not with a flag.
		ID: "cursor-agent", Label: "Cursor Agent", Command: "cursor-agent",
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--resume"},
		Tracking:        TrackingHooks,
	},
	{
		ID: "droid", Label: "Droid", Command: "droid",
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--resume"},
		Tracking:        TrackingHooks,
	},
	{
		// --session <id> resumes an existing session or creates it.
		ID: "kimi", Label: "Kimi CLI", Command: "kimi",
		PromptArgs:      []string{"-p"},
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--session"},
		SessionIDArgs:   []string{"--session"}, SessionIDKind: KindAny,
		Tracking: TrackingHooks,
	},
	{
		ID: "mastracode", Label: "Mastra Code", Command: "mastracode",
		PromptArgs:      []string{"--prompt"},
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--thread"},
		Tracking:        TrackingHooks,
	},
	{
		// Per-turn hooks only: no SessionStart, the id arrives with the
		// first turn.
		ID: "vibe", Label: "Mistral Vibe", Command: "vibe",
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--resume"},
		Tracking:        TrackingHooks,
	},
	{
		ID: "grok", Label: "Grok CLI", Command: "grok",
		PromptTransport: TransportArgv,
		ResumeArgs:      []string{"--resume"},
		SessionIDArgs:   []string{"-s"}, SessionIDKind: KindUUID,
		Tracking: TrackingHooks,
	},
}

// Builtins returns every builtin agent in the order of AGENTS.md's catalog
// table. The result is a fresh copy that the caller may modify.
func Builtins() []Agent {
	out := make([]Agent, len(builtins))
	for i, a := range builtins {
		out[i] = a.clone()
	}
	return out
}

// ByID returns a copy of the builtin agent with the given id.
func ByID(id string) (Agent, bool) {
	for _, a := range builtins {
		if a.ID == id {
			return a.clone(), true
		}
	}
	return Agent{}, false
}

// Config returns the agent's launch settings as a Config.
func (a Agent) Config() Config {
	return Config{
		ID:              a.ID,
		Label:           a.Label,
		Command:         a.Command,
		Args:            slices.Clone(a.Args),
		PromptArgs:      slices.Clone(a.PromptArgs),
		PromptTransport: a.PromptTransport,
		ResumeArgs:      slices.Clone(a.ResumeArgs),
		Env:             maps.Clone(a.Env),
		SessionIDArgs:   slices.Clone(a.SessionIDArgs),
		SessionIDKind:   a.SessionIDKind,
	}
}

func (a Agent) clone() Agent {
	a.Args = slices.Clone(a.Args)
	a.PromptArgs = slices.Clone(a.PromptArgs)
	a.ResumeArgs = slices.Clone(a.ResumeArgs)
	a.Env = maps.Clone(a.Env)
	a.SessionIDArgs = slices.Clone(a.SessionIDArgs)
	return a
}
