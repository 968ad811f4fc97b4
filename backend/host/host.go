// Package host is Reprise's host: it owns the store, keeps a connection to
// the pty daemon (starting and supervising it), restores panes whose
// terminals died, and serves terminals and the layout to frontends. The
// desktop app and `reprise serve` both run one Host.
package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"strings"
	"sync"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/lockfile"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/remote"
	"github.com/reprise-dev/reprise/backend/store"
)

// ErrHostRunning means another host holds this home.
var ErrHostRunning = errors.New("another Reprise is already running for this home")

// Config wires a Host.
type Config struct {
	Home   paths.Home
	Exe    string // the reprise binary, whose "ptyd" subcommand is the daemon
	Logger *slog.Logger
	// Shell is the argv of a new terminal; empty means the user's login shell.
	Shell []string
	// BaseEnv is the environment new terminals start from; nil means os.Environ().
	BaseEnv []string
	// RestartBudget caps daemon restarts within RestartWindow.
	RestartBudget int
	RestartWindow time.Duration
}

// Host is the running host. Safe for concurrent use.
type Host struct {
	cfg    Config
	log    *slog.Logger
	store  *store.Store
	lock   *lockfile.Lock
	events *broadcaster
	// askpass holds ssh's open prompts for remote hosts until the UI
	// answers them (remote/askpass.go; served on the local API socket).
	askpass *remote.Broker
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu       sync.Mutex // guards daemon, status, restarts, fg
	daemon   *ptyclient.Client
	status   api.DaemonStatus
	restarts []time.Time
	sweep    map[string]string    // daemon-death snapshot: terminal id → session id, until reconciled
	diedAt   time.Time            // when the host saw the daemon die, until reconciled; zero at boot
	fg       map[string]string    // terminal id → last reported foreground command
	cwd      map[string]string    // terminal id → last recorded working directory
	remotes  map[string]*remoteEP // remote host name → its supervisor
	termHost map[string]string    // terminal id → host ('' local), a cache of the store

	layoutMu  sync.Mutex // serialises load-modify-save of the layout
	publishes keyedMutex // one binding push per terminal at a time (publishBinding)
	drainMu   sync.Mutex // one inbox drain at a time
	inboxKick chan struct{}
	resumes   resumeCalls
	// autoResumed remembers candidates already resumed automatically
	// (terminal/session), guarded by mu.
	autoResumed map[string]bool
	restore     RestoreReport     // guarded by mu
	forecastMu  sync.Mutex        // one forecast (or a remote host's part of it) at a time
	resumeErr   map[string]string // terminal id → why its last resume failed; guarded by mu

	viewersMu sync.Mutex
	viewers   map[*Viewer]struct{} // open viewers, for StreamStats

	// newTabWait bounds how long a new terminal on a remote host waits for
	// the host's link (waitNew), not counting the time an ssh prompt of
	// that host stays open in the window; promptGrace is how long it waits
	// more once such a prompt has closed (the login finishing, the daemon
	// channel coming up). Fields so that tests can shorten them.
	newTabWait  time.Duration
	promptGrace time.Duration
}

// newHost is a Host on st with every map and channel made, nothing started
// (Start's, and the benchmarks' that drive a Host's methods on a seeded store).
func newHost(cfg Config, st *store.Store) *Host {
	hctx, cancel := context.WithCancel(context.Background())
	return &Host{
		cfg: cfg, log: cfg.Logger.With("component", "host"), store: st,
		events: newBroadcaster(), ctx: hctx, cancel: cancel, fg: map[string]string{}, cwd: map[string]string{}, remotes: map[string]*remoteEP{}, termHost: map[string]string{},
		inboxKick: make(chan struct{}, 1), resumes: resumeCalls{calls: map[string]*resumeCall{}}, autoResumed: map[string]bool{}, resumeErr: map[string]string{},
		newTabWait: 60 * time.Second, promptGrace: 30 * time.Second,
	}
}

// Start takes the home's host lock, opens the store, connects to (or
// starts) the daemon, reconciles terminals with it and begins supervising.
func Start(ctx context.Context, cfg Config) (*Host, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RestartBudget <= 0 {
		cfg.RestartBudget = 5
	}
	if cfg.RestartWindow <= 0 {
		cfg.RestartWindow = time.Minute
	}
	if len(cfg.Shell) == 0 {
		cfg.Shell = []string{loginShell(), "-l"}
	}
	if cfg.BaseEnv == nil {
		cfg.BaseEnv = os.Environ()
	}
	if cfg.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find own executable: %w", err)
		}
		cfg.Exe = exe
	}
	if err := cfg.Home.Ensure(); err != nil {
		return nil, err
	}
	lock, err := lockfile.TryLock(cfg.Home.HostLock())
	if errors.Is(err, lockfile.ErrLocked) {
		return nil, fmt.Errorf("%w (pid %d, home %s)", ErrHostRunning, lockfile.Holder(cfg.Home.HostLock()), cfg.Home.Dir)
	}
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, cfg.Home.DB(), cfg.Logger)
	if err != nil {
		lock.Release()
		return nil, err
	}
	h := newHost(cfg, st)
	h.lock = lock
	h.askpass = &remote.Broker{Publish: func(p api.AskpassPrompt) {
		h.notePrompt(p)
		h.events.publish(Event{Kind: api.EventAskpass, Data: p})
	}}
	if err := st.SyncBuiltins(ctx, catalogRows()); err != nil {
		h.Close()
		return nil, fmt.Errorf("sync agent catalog: %w", err)
	}
	// Hook events recorded while no host ran come first, in order, so
	// reconciliation sees every goodbye that was said.
	h.DrainInbox(ctx)
	if err := h.connect(ctx); err != nil {
		h.Close()
		return nil, err
	}
	// The forecast is made before reconciliation changes anything: it is
	// what this start is about to do.
	h.recordForecast(ctx, false)
	if err := h.reconcile(ctx); err != nil {
		h.Close()
		return nil, fmt.Errorf("reconcile terminals: %w", err)
	}
	h.prune(ctx)
	h.startRemotes(ctx)
	if err := h.ensureTab(ctx); err != nil {
		h.Close()
		return nil, err
	}
	h.wg.Add(4)
	go h.supervise()
	go h.pollForeground()
	go h.drainLoop()
	go h.watchNetwork()
	return h, nil
}

// Close stops the host. The daemon and its terminals keep running.
func (h *Host) Close() error {
	h.cancel()
	h.mu.Lock()
	d := h.daemon
	var remotes []*ptyclient.Client
	for _, e := range h.remotes {
		if c, ok := e.up(); ok {
			remotes = append(remotes, c)
		}
	}
	h.mu.Unlock()
	if d != nil {
		d.Close()
	}
	for _, c := range remotes {
		c.Close() // ends the ssh child; the remote daemon and its terminals live on
	}
	h.wg.Wait()
	err := h.store.Close()
	h.lock.Release()
	return err
}

// Askpass is the broker of ssh's prompts: the local API serves its helper
// side, the UI answers through it.
func (h *Host) Askpass() *remote.Broker { return h.askpass }

// Store exposes the store to other host-side services (CLI, API).
func (h *Host) Store() *store.Store { return h.store }

// Home is the instance's home.
func (h *Host) Home() paths.Home { return h.cfg.Home }

// Subscribe returns a channel of events; call Unsubscribe when done. The
// channel is closed if the subscriber falls too far behind.
func (h *Host) Subscribe() chan Event { return h.events.subscribe() }

// Unsubscribe stops delivery to ch.
func (h *Host) Unsubscribe(ch chan Event) { h.events.unsubscribe(ch) }

// DaemonStatus reports the daemon's health.
func (h *Host) DaemonStatus() api.DaemonStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status
}

func (h *Host) client() (*ptyclient.Client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.daemon == nil {
		return nil, errors.New("pty daemon is not connected")
	}
	return h.daemon, nil
}

func newID(prefix string) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return prefix + hex.EncodeToString(b[:])
}

func loginShell() string {
	if s := os.Getenv("SHELL"); s != "" {
		return s
	}
	if u, err := user.Current(); err == nil {
		if b, err := os.ReadFile("/etc/passwd"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				f := strings.Split(line, ":")
				if len(f) >= 7 && f[0] == u.Username && f[6] != "" {
					return f[6]
				}
			}
		}
	}
	return "/bin/sh"
}

// terminalEnv is the environment of a new terminal: the base environment
// without Reprise's own variables from an enclosing pane, plus how to reach
// this instance. No variable names containing KEY/TOKEN/SECRET: some agents
// strip those.
func (h *Host) terminalEnv(id string) []string {
	env := make([]string, 0, len(h.cfg.BaseEnv)+6)
	for _, kv := range h.cfg.BaseEnv {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "REPRISE_"), name == "TERM", name == "COLORTERM", name == "TERM_PROGRAM":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"TERM=xterm-256color",
		"COLORTERM=truecolor",
		"TERM_PROGRAM=Reprise",
		"REPRISE_TERMINAL_ID="+id,
		"REPRISE_HOME="+h.cfg.Home.Dir,
		"REPRISE_HOST_SOCKET="+h.cfg.Home.HostSocket(),
	)
}
