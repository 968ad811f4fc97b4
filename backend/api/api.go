// Package api holds the types that cross from the host to its clients: the
// browser/desktop frontend (over the WebSocket described in docs/wire.md) and,
// later, the CLI and SDK. It imports only the standard library so that every
// client can depend on it.
package api

import "time"

// Version of the frontend wire protocol. Bumped on incompatible changes.
const Version = 1

// Terminal statuses.
const (
	StatusRunning = "running" // process alive in the daemon
	StatusExited  = "exited"  // process ended; exit code/signal recorded
	StatusLost    = "lost"    // the daemon died under it (or the machine rebooted); cold-respawned into a new terminal
	StatusClosed  = "closed"  // the user closed its pane; stamped before the hang-up
)

// Event names pushed to frontend clients.
const (
	EventLayout   = "layout"   // data: Layout
	EventTerminal = "terminal" // data: Terminal (any change, including exit)
	EventDaemon   = "daemon"   // data: DaemonStatus
	EventHost     = "host"     // data: HostStatus (a remote host's link)
	EventAskpass  = "askpass"  // data: AskpassPrompt (ssh asks the user; open, then closed)
)

// DaemonStatus reports the pty daemon's health to the UI.
type DaemonStatus struct {
	State   string `json:"state"` // "up", "restarting", "failed"
	PID     int    `json:"pid,omitempty"`
	Message string `json:"message,omitempty"`
}

// Terminal describes one pty session as the host knows it.
type Terminal struct {
	ID         string     `json:"id"`
	PID        int        `json:"pid"`
	Cwd        string     `json:"cwd"`
	Argv       []string   `json:"argv"`
	Status     string     `json:"status"`
	ExitCode   *int       `json:"exitCode,omitempty"`
	ExitSignal string     `json:"exitSignal,omitempty"`
	CreatedAt  time.Time  `json:"createdAt"`
	EndedAt    *time.Time `json:"endedAt,omitempty"`
	// RestoredFrom is the id of the terminal whose scrollback this one shows
	// above its divider (cold respawn), with the time that terminal ended.
	RestoredFrom    string     `json:"restoredFrom,omitempty"`
	RestoredEndedAt *time.Time `json:"restoredEndedAt,omitempty"`
	PaneID          string     `json:"paneId,omitempty"`
	// Foreground is the command name of the process in the terminal's
	// foreground when it is not the terminal's own first process (e.g. "vim"
	// in a shell); empty when the shell itself is in front or it exited.
	Foreground string `json:"foreground,omitempty"`
	// Host is the remote host the terminal runs on ('' is this machine).
	Host string `json:"host,omitempty"`
	// Link, for a terminal on a remote host whose ssh link is down, is
	// what its pane says ("disconnected from HOST — reconnecting"); the
	// terminal is still running there as far as anyone knows.
	Link string `json:"link,omitempty"`
}

// HostStatus is the state of the link to one remote host's daemon.
type HostStatus struct {
	Name    string `json:"name"`
	State   string `json:"state"` // "connecting", "up", "disconnected", "failed"
	PID     int    `json:"pid,omitempty"`
	Message string `json:"message,omitempty"`
}

// AskpassPrompt is a question ssh asks while connecting to a remote host
// (a key's passphrase, a password, an unknown host key): shown in the UI
// until answered (askpass.answer), cancelled or timed out, when the same
// id comes again with Open false. The answer is never part of it.
type AskpassPrompt struct {
	ID     string `json:"id"`
	Host   string `json:"host"`
	Prompt string `json:"prompt"`
	// Kind: "secret" (a masked field) or "confirm" (Accept / Reject: a
	// yes/no question such as an unknown host key's fingerprint).
	Kind string `json:"kind"`
	Open bool   `json:"open"`
	// Outcome, once closed: "answered", "cancelled" or "timeout".
	Outcome string `json:"outcome,omitempty"`
}

// Node kinds in a layout tree.
const (
	NodePane  = "pane"
	NodeSplit = "split"
)

// Split directions: "row" puts children side by side (split right),
// "column" stacks them (split down).
const (
	DirRow    = "row"
	DirColumn = "column"
)

// Node is a layout tree node: a pane holding one terminal, or a split of
// two or more children with relative sizes that sum to 1.
type Node struct {
	Type       string    `json:"type"`
	ID         string    `json:"id"`
	TerminalID string    `json:"terminalId,omitempty"` // pane only
	Direction  string    `json:"direction,omitempty"`  // split only
	Sizes      []float64 `json:"sizes,omitempty"`      // split only
	Children   []*Node   `json:"children,omitempty"`   // split only
}

// Tab is one tab of the window.
type Tab struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Root          *Node  `json:"root" ts:"Node"` // never null: a tab has a pane
	FocusedPaneID string `json:"focusedPaneId"`
}

// Layout is the whole window: ordered tabs and the active one. Version grows
// on every change so clients can drop stale updates.
type Layout struct {
	Version     int64  `json:"version"`
	Tabs        []*Tab `json:"tabs" ts:"Tab[]"` // never null: closing the last tab opens a fresh one
	ActiveTabID string `json:"activeTabId"`
}
