// Package cli is the reprise command line: the daemon entry point, the
// headless host (serve), and listings. Exit codes: 0 ok, 1 failure with one
// clear line on stderr, 2 bad usage.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/atomicfile"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/inbox"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/backend/logfile"
	"github.com/reprise-dev/reprise/backend/mcp"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/ptyd"
	"github.com/reprise-dev/reprise/backend/remote"
	"github.com/reprise-dev/reprise/backend/store"
	"github.com/reprise-dev/reprise/backend/web"
)

// Version is set at build time (-ldflags "-X …cli.Version=…").
var Version = "0.1.0-dev"

// Env is what a command needs from the outside world.
type Env struct {
	Stdout, Stderr io.Writer
	Assets         fs.FS // the built frontend, for serve
}

// usageError is a bad invocation: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// failure is an error a command returned while running (not while its
// arguments were parsed): exit status 1. Everything else cobra reports
// (unknown command or flag, a missing flag value, wrong argument count) is
// bad usage.
type failure struct{ err error }

func (e failure) Error() string { return e.err.Error() }
func (e failure) Unwrap() error { return e.err }

// IsDesktop reports whether args ask for the desktop app: no subcommand,
// wherever the flags are (`reprise --home D` is the app, `reprise --home D
// agents list` is not), and not a request for help or the version.
func IsDesktop(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "--help", "--version", "help":
			return false
		}
	}
	root := newRoot(Env{Stdout: io.Discard, Stderr: io.Discard})
	cmd, rest, err := root.Find(args)
	if err != nil || cmd != root {
		return false
	}
	// A bad flag is not the app either: Run says so in one line (exit 2).
	if err := root.ParseFlags(rest); err != nil {
		return false
	}
	return len(root.Flags().Args()) == 0
}

// Run runs a subcommand and returns the process exit status: 0 ok, 1 the
// command failed (one line on stderr), 2 bad usage (one line on stderr,
// naming the help to read).
func Run(args []string, env Env) int {
	if remote.IsAskpass() {
		// Started by ssh as its SSH_ASKPASS (remote/askpass.go): args are
		// the prompt, stdout is where ssh reads the answer.
		return remote.RunAskpass(args, os.Stdout, env.Stderr)
	}
	if len(args) > 0 && args[0] == "hook" {
		// Run by agents on every event (reprise hook AGENT EVENT [ARGS…];
		// Codex passes JSON as the last argument): its arguments are taken
		// as they are — no flags, no help — it is silent and exits 0
		// whatever happens, and it skips building the command tree.
		_ = runHook(args[1:], os.Stdin)
		return 0
	}
	root := newRoot(env)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	var f failure
	switch {
	case err == nil:
		return 0
	case errors.As(err, &f):
		var ue usageError
		if errors.As(f.err, &ue) {
			break
		}
		fmt.Fprintf(env.Stderr, "reprise: %s\n", oneLine(f.err.Error()))
		return 1
	}
	if cmd == nil {
		cmd = root
	}
	msg := err.Error()
	if errors.As(err, &f) {
		msg = f.err.Error()
	}
	fmt.Fprintf(env.Stderr, "reprise: %s (see '%s --help')\n", oneLine(msg), cmd.CommandPath())
	return 2
}

func oneLine(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ") }

// runE adapts a command body: its errors are failures (exit 1), unless it
// says the invocation was bad (usageError, exit 2).
func runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := fn(cmd, args); err != nil {
			return failure{err}
		}
		return nil
	}
}

// group is the body of a command that only holds subcommands: bare or
// with an unknown subcommand, it is bad usage.
func group(name, expected string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageError{fmt.Sprintf("%s: expected %s", name, expected)}
		}
		return usageError{fmt.Sprintf("%s: unknown subcommand %q", name, args[0])}
	}
}

// exactArgs is cobra.ExactArgs with the project's message (what is missing,
// in words).
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < n:
			return usageError{fmt.Sprintf("%s: expected %s", cmd.CommandPath()[len("reprise "):], what)}
		case len(args) > n:
			return usageError{fmt.Sprintf("unexpected argument %q", args[n])}
		}
		return nil
	}
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", args[0])}
	}
	return nil
}

// newRoot builds the command tree. cobra gives every command its own help
// (`reprise X --help`, `reprise help X`), flags before or after positional
// arguments, and `reprise completion bash|zsh|fish`.
func newRoot(env Env) *cobra.Command {
	var home string
	root := &cobra.Command{
		Use:   "reprise",
		Short: "A terminal for coding agents in which a conversation is never lost",
		Long: `Reprise runs coding-agent CLIs in terminal panes and brings their conversations back
after a crash, a kill or a reboot. With no command it opens the desktop app.`,
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{"no command"}
			}
			return usageError{fmt.Sprintf("unknown command %q", args[0])}
		},
	}
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetVersionTemplate(versionLine())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })
	root.PersistentFlags().StringVar(&home, "home", "", "state directory (default $REPRISE_HOME or ~/.local/share/reprise)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		// `--home "$DIR"` with DIR unset meant the default home: a script
		// meant for a throwaway instance drove the user's own.
		if f := cmd.Flag("home"); f != nil && f.Changed && strings.TrimSpace(home) == "" {
			return usageError{"--home is empty (leave it out to use $REPRISE_HOME or the default home)"}
		}
		return nil
	}

	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version and the protocol versions",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			fmt.Fprint(env.Stdout, versionLine())
			return nil
		}),
	})
	ptydCmd := &cobra.Command{
		Use:   "ptyd",
		Short: "Run the pty daemon (started for you)",
		Args:  noArgs,
		RunE:  runE(func(cmd *cobra.Command, args []string) error { return runPtyd(home, env) }),
	}
	var noStart bool
	connectCmd := &cobra.Command{
		Use:   "connect",
		Short: "Relay the pty daemon protocol between stdin/stdout and this home's daemon, starting it detached (what a remote host runs over ssh)",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			h, err := paths.Resolve(home)
			if err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find own executable: %w", err)
			}
			return ptyclient.Bridge(context.Background(), h, exe, noStart, os.Stdin, env.Stdout)
		}),
	}
	connectCmd.Flags().BoolVar(&noStart, "no-start", false, "only connect to a running daemon; never start one")
	ptydCmd.AddCommand(connectCmd)
	root.AddCommand(ptydCmd)
	inboxCmd := &cobra.Command{
		Use:   "inbox",
		Short: "The hook inbox of this home",
		Args:  cobra.ArbitraryArgs,
		RunE:  group("inbox", "'drain --stdio'"),
	}
	var drainStdio bool
	drain := &cobra.Command{
		Use:   "drain",
		Short: "Stream this home's hook inbox to a host on stdin/stdout, deleting each event once the host acknowledges it (what a remote host runs over ssh)",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if !drainStdio {
				return usageError{"inbox drain needs --stdio (the host relays it over ssh)"}
			}
			h, err := paths.Resolve(home)
			if err != nil {
				return err
			}
			return inbox.Relay(context.Background(), host.InboxOf(h.Dir), os.Stdin, env.Stdout, relayPoll)
		}),
	}
	drain.Flags().BoolVar(&drainStdio, "stdio", false, "speak the relay protocol on stdin/stdout (docs/wire.md)")
	inboxCmd.AddCommand(drain)
	root.AddCommand(inboxCmd)
	root.AddCommand(hostsCommand(&home, env), hooksCommand(env))

	var listen, shell, tokenFile string
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Run the host headless and serve the app to a browser on loopback",
		Args:  noArgs,
		RunE:  runE(func(cmd *cobra.Command, args []string) error { return runServe(home, listen, shell, tokenFile, env) }),
	}
	serve.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "loopback address to serve on")
	serve.Flags().StringVar(&shell, "shell", "", "command for new terminals (default: your login shell)")
	serve.Flags().StringVar(&tokenFile, "token-file", "", "keep the web token in this file (0600) so it survives restarts; default: a fresh token every launch")
	root.AddCommand(serve)

	root.AddCommand(&cobra.Command{
		Use:   "mcp",
		Short: "Run an MCP server on stdio (tools to start and resume agents)",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return mcp.Run(context.Background(), mcp.Options{Home: home, Stdin: os.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Version: Version})
		}),
	})

	terminals := &cobra.Command{
		Use:   "terminals",
		Short: "Terminals the host knows",
		Args:  cobra.ArbitraryArgs,
		RunE:  group("terminals", "'list'"),
	}
	var tl terminalsListOptions
	tlist := &cobra.Command{
		Use:   "list",
		Short: "List terminals, and whether each is alive in the pty daemon (needs no running host)",
		Args:  noArgs,
		RunE:  runE(func(cmd *cobra.Command, args []string) error { return runTerminalsList(home, tl, env) }),
	}
	tlist.Flags().BoolVar(&tl.json, "json", false, "print JSON")
	tlist.Flags().BoolVar(&tl.all, "all", false, "include terminals that ended and are in no pane")
	terminals.AddCommand(tlist)
	root.AddCommand(terminals)

	root.AddCommand(agentsCommand(&home, env), sessionsCommand(&home, env), resumeCommand(&home, env), restoreCheckCommand(&home, env))

	// cobra's own `completion bash|zsh|fish|powershell`, made now rather
	// than at Execute so that a bare or unknown shell is bad usage too.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args, c.RunE = cobra.ArbitraryArgs, group("completion", "bash, zsh, fish or powershell")
		}
	}
	return root
}

func versionLine() string {
	return fmt.Sprintf("reprise %s (pty protocol v%d, wire v%d)\n", Version, 1, api.Version)
}

// OpenLog returns a logger writing to path (0600), or stderr if it cannot.
func OpenLog(path string, level slog.Level) (*slog.Logger, func()) {
	f, err := logfile.Open(path) // rotating; a planted symlink is refused
	if err != nil {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})), func() {}
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})), func() { f.Close() }
}

func runPtyd(homeFlag string, env Env) error {
	home, err := paths.Resolve(homeFlag)
	if err != nil {
		return err
	}
	if err := home.Ensure(); err != nil {
		return err
	}
	// The daemon logs to its rotating ptyd.log; stdout/stderr (a crash
	// trace) go to ptyd.stderr.log when the host spawned us.
	logger := slog.New(slog.NewTextHandler(env.Stderr, nil))
	if f, err := logfile.Open(home.PtydLog()); err == nil {
		defer f.Close()
		logger = slog.New(slog.NewTextHandler(f, nil))
	}
	err = ptyd.Run(context.Background(), home, logger)
	if errors.Is(err, ptyd.ErrAlreadyRunning) {
		fmt.Fprintf(env.Stderr, "reprise ptyd: %s (%s)\n", err, home.Dir)
		return nil
	}
	return err
}

// HostInfo is written to run/host.json while a host serves, so tools and
// tests can find the page.
type HostInfo struct {
	PID   int    `json:"pid"`
	URL   string `json:"url"`
	WSURL string `json:"wsUrl"`
	Token string `json:"token"`
}

func runServe(homeFlag, listen, shell, tokenFile string, env Env) error {
	home, err := paths.Resolve(homeFlag)
	if err != nil {
		return err
	}
	if err := home.Ensure(); err != nil {
		return err
	}
	logger, closeLog := OpenLog(home.HostLog(), slog.LevelInfo)
	defer closeLog()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cfg := host.Config{Home: home, Logger: logger}
	if shell != "" {
		cfg.Shell = strings.Fields(shell)
	}
	// Earlier versions kept every launch's token in run/web-token; a token
	// on disk that nothing uses is only something to steal.
	_ = os.Remove(home.WebToken())
	token := "" // per launch (web.Listen makes one)
	if tokenFile != "" {
		if token, err = web.LoadOrCreateToken(tokenFile); err != nil {
			return err
		}
	}
	h, err := host.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer h.Close()
	srv, err := web.Listen(h, web.Options{Listen: listen, Assets: env.Assets, Logger: logger, Token: token})
	if err != nil {
		return err
	}
	lapi, err := localapi.Listen(h, home.HostSocket(), logger)
	if err != nil {
		return err
	}
	defer lapi.Close(context.Background())
	info := HostInfo{PID: os.Getpid(), URL: srv.URL(), WSURL: srv.WSURL(), Token: srv.Token()}
	if err := writeJSONFile(home.HostInfo(), info); err != nil {
		logger.Warn("write host info", "err", err)
	}
	defer os.Remove(home.HostInfo())
	fmt.Fprintf(env.Stdout, "Reprise is serving %s\n%s\n", home.Dir, srv.URL())
	<-ctx.Done()
	fmt.Fprintln(env.Stderr, "reprise: stopping; terminals keep running in the pty daemon")
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = srv.Close(sctx)
	return nil
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o600)
}

// terminalRow is one line of `reprise terminals list`.
type terminalRow struct {
	ID         string   `json:"id"`
	PID        int      `json:"pid"`
	Cwd        string   `json:"cwd"`
	Argv       []string `json:"argv"`
	Status     string   `json:"status"`
	Alive      bool     `json:"alive"`
	ExitCode   *int     `json:"exitCode,omitempty"`
	ExitSignal string   `json:"exitSignal,omitempty"`
	PaneID     string   `json:"paneId,omitempty"`
}

// runTerminalsList reads the store and asks the daemon (without starting
// one) which terminals are alive. It needs no running host.
type terminalsListOptions struct{ json, all bool }

func runTerminalsList(homeFlag string, o terminalsListOptions, env Env) error {
	home, err := paths.Resolve(homeFlag)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := os.Stat(home.DB()); err != nil {
		return fmt.Errorf("no Reprise state in %s (start Reprise first)", home.Dir)
	}
	st, err := store.Open(ctx, home.DB(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer st.Close()
	terms, err := st.ListTerminals(ctx)
	if err != nil {
		return err
	}
	alive := map[string]ptyclient.SessionInfo{}
	daemonUp := false
	if c, err := ptyclient.Dial(ctx, home.PtydSocket(), ptyclient.Options{Name: "cli"}); err == nil {
		if list, err := c.List(ctx); err == nil {
			daemonUp = true
			for _, s := range list {
				alive[s.ID] = s
			}
		}
		c.Close()
	}
	rows := []terminalRow{}
	for _, t := range terms {
		a := t.ToAPI()
		pane, _ := st.PaneIDForTerminal(ctx, t.ID)
		if !o.all && pane == "" && a.Status != api.StatusRunning {
			continue
		}
		s, ok := alive[t.ID]
		rows = append(rows, terminalRow{ID: a.ID, PID: a.PID, Cwd: a.Cwd, Argv: a.Argv, Status: a.Status,
			Alive: ok && s.Alive, ExitCode: a.ExitCode, ExitSignal: a.ExitSignal, PaneID: pane})
	}
	if o.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if !daemonUp {
		fmt.Fprintln(env.Stderr, "note: the pty daemon is not running; no terminal is alive")
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPID\tALIVE\tSTATUS\tEXIT\tPANE\tCWD")
	for _, r := range rows {
		exit := ""
		if r.ExitCode != nil {
			exit = fmt.Sprint(*r.ExitCode)
		} else if r.ExitSignal != "" {
			exit = r.ExitSignal
		}
		fmt.Fprintf(tw, "%s\t%d\t%v\t%s\t%s\t%s\t%s\n", r.ID, r.PID, r.Alive, r.Status, exit, r.PaneID, r.Cwd)
	}
	return tw.Flush()
}
