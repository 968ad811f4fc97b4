// Package cli is the reprise command line: the daemon entry point, the
// headless host (serve), and listings. Exit codes: 0 ok, 1 failure with one
// clear line on stderr, 2 bad usage.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
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

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/backend/mcp"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/ptyd"
	"github.com/reprise-dev/reprise/backend/safefile"
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

const usage = `usage: reprise [--home DIR]                 open the desktop app
       reprise serve [--listen 127.0.0.1:PORT] [--home DIR]
       reprise terminals list [--json] [--all] [--home DIR]
       reprise agents list [--json]
       reprise agents create --agent ID [--prompt TEXT] [--resume-session ID] [--cwd DIR] [--json]
       reprise agents update ID --resume-args "WORDS"
       reprise agents reset ID
       reprise sessions list [--all] [-q TEXT] [--json]
       reprise resume TERMINAL-ID [--json]
       reprise restore-check [--json]            what each pane would do after a restart, and why
       reprise mcp                               an MCP server on stdio
       reprise ptyd [--home DIR]                 the pty daemon (started for you)
       reprise version`

// IsDesktop reports whether args ask for the desktop app (no subcommand).
func IsDesktop(args []string) bool {
	return len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help"
}

// Run runs a subcommand and returns the process exit status.
func Run(args []string, env Env) int {
	err := run(args, env)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "reprise: %s\n%s\n", ue.msg, usage)
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 0
	default:
		fmt.Fprintf(env.Stderr, "reprise: %s\n", oneLine(err.Error()))
		return 1
	}
}

func oneLine(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ") }

func run(args []string, env Env) error {
	if len(args) == 0 {
		return usageError{"no command"}
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprintln(env.Stdout, usage)
		return nil
	case "version", "--version":
		fmt.Fprintf(env.Stdout, "reprise %s (pty protocol v%d, wire v%d)\n", Version, 1, api.Version)
		return nil
	case "ptyd":
		return runPtyd(args[1:], env)
	case "serve":
		return runServe(args[1:], env)
	case "hook":
		return runHook(args[1:], os.Stdin)
	case "agents":
		return runAgents(args[1:], env)
	case "sessions":
		return runSessions(args[1:], env)
	case "resume":
		return runResume(args[1:], env)
	case "mcp":
		fs, home := newFlags("mcp", env)
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		return mcp.Run(context.Background(), mcp.Options{Home: *home, Stdin: os.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Version: Version})
	case "restore-check":
		return runRestoreCheck(args[1:], env)
	case "terminals":
		if len(args) < 2 || args[1] != "list" {
			return usageError{"terminals: expected 'list'"}
		}
		return runTerminalsList(args[2:], env)
	}
	return usageError{fmt.Sprintf("unknown command %q", args[0])}
}

func newFlags(name string, env Env) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	home := fs.String("home", "", "state directory (default $REPRISE_HOME or ~/.local/share/reprise)")
	return fs, home
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

// OpenLog returns a logger writing to path (0600), or stderr if it cannot.
func OpenLog(path string, level slog.Level) (*slog.Logger, func()) {
	f, err := safefile.OpenAppend(path, 0o600) // a planted symlink is refused
	if err != nil {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})), func() {}
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})), func() { f.Close() }
}

func runPtyd(args []string, env Env) error {
	fs, homeFlag := newFlags("ptyd", env)
	if err := parse(fs, args); err != nil {
		return err
	}
	home, err := paths.Resolve(*homeFlag)
	if err != nil {
		return err
	}
	if err := home.Ensure(); err != nil {
		return err
	}
	// stdout/stderr already go to the log file when the host spawned us.
	logger := slog.New(slog.NewTextHandler(env.Stderr, nil))
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

func runServe(args []string, env Env) error {
	fs, homeFlag := newFlags("serve", env)
	listen := fs.String("listen", "127.0.0.1:0", "loopback address to serve on")
	shell := fs.String("shell", "", "command for new terminals (default: your login shell)")
	if err := parse(fs, args); err != nil {
		return err
	}
	home, err := paths.Resolve(*homeFlag)
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
	if *shell != "" {
		cfg.Shell = strings.Fields(*shell)
	}
	h, err := host.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer h.Close()
	token, err := web.LoadOrCreateToken(home.WebToken())
	if err != nil {
		return err
	}
	srv, err := web.Listen(h, web.Options{Listen: *listen, Assets: env.Assets, Logger: logger, Token: token})
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
	tmp := path + ".tmp"
	// A leftover (or planted symlink) at the temporary name is removed, not
	// written through; O_EXCL refuses one planted again in between.
	_ = os.Remove(tmp)
	f, err := safefile.CreateExcl(tmp, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
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
func runTerminalsList(args []string, env Env) error {
	fs, homeFlag := newFlags("terminals list", env)
	asJSON := fs.Bool("json", false, "print JSON")
	all := fs.Bool("all", false, "include terminals that ended and are in no pane")
	if err := parse(fs, args); err != nil {
		return err
	}
	home, err := paths.Resolve(*homeFlag)
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
		if !*all && pane == "" && a.Status != api.StatusRunning {
			continue
		}
		s, ok := alive[t.ID]
		rows = append(rows, terminalRow{ID: a.ID, PID: a.PID, Cwd: a.Cwd, Argv: a.Argv, Status: a.Status,
			Alive: ok && s.Alive, ExitCode: a.ExitCode, ExitSignal: a.ExitSignal, PaneID: pane})
	}
	if *asJSON {
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
