package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// runCLI runs the command line in-process, as main does.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Run(args, Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// oneErrorLine: a failed invocation says so in exactly one line on stderr
// and prints nothing on stdout.
func oneErrorLine(t *testing.T, args []string, stdout, stderr string) {
	t.Helper()
	if stdout != "" {
		t.Errorf("%q: stdout %q, want nothing", args, stdout)
	}
	if !strings.HasPrefix(stderr, "reprise: ") || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("%q: stderr %q, want one line starting with \"reprise: \"", args, stderr)
	}
}

func TestUsageErrorsExitTwoWithOneLine(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"bogus"},
		{"agents"},
		{"agents", "bogus"},
		{"agents", "create"},            // --agent is required
		{"agents", "create", "--agent"}, // flag without its value
		{"agents", "update"},            // no agent id
		{"agents", "update", "claude"},  // nothing to change
		{"agents", "update", "claude", "--resume-args", "'open"}, // not shell words
		{"agents", "reset", "a", "b"},                            // one id only
		{"sessions"},                                             // no subcommand
		{"sessions", "list", "--bogus"},                          // unknown flag
		{"sessions", "list", "extra"},                            // no positional
		{"terminals", "show"},                                    // unknown subcommand
		{"resume"},                                               // no terminal id
		{"resume", "--json"},                                     // a flag is not the terminal id
		{"resume", "t_1", "t_2"},                                 // one id only
		{"restore-check", "--json=maybe"},                        // not a bool
		{"version", "now"},                                       // no positional
		{"completion", "tcsh"},                                   // not a shell it supports
		{"serve", "--listen"},                                    // flag without its value
		{"terminals", "list", "--home"},                          // flag without its value
	} {
		code, stdout, stderr := runCLI(args...)
		if code != 2 {
			t.Errorf("%q: exit %d (stderr %q), want 2", args, code, stderr)
			continue
		}
		oneErrorLine(t, args, stdout, stderr)
	}
}

// TestEmptyHomeIsRefused: an explicitly empty --home is bad usage. Before,
// it meant the default home, so `--home "$DIR"` with DIR unset drove the
// user's own instance.
func TestEmptyHomeIsRefused(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // were it taken as the default, not the real one
	t.Setenv("REPRISE_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	for _, args := range [][]string{
		{"terminals", "list", "--home", ""},
		{"--home=", "restore-check"},
		{"--home", " ", "hosts", "list"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != 2 || !strings.Contains(stderr, "--home is empty") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and --home is empty", args, code, stderr)
			continue
		}
		oneErrorLine(t, args, stdout, stderr)
	}
}

// commands lists every visible command of the tree, as its words.
func commands(c *cobra.Command, prefix []string) [][]string {
	var out [][]string
	for _, sub := range c.Commands() {
		if sub.Hidden || sub.Name() == "help" {
			continue
		}
		words := append(append([]string{}, prefix...), sub.Name())
		out = append(out, words)
		out = append(out, commands(sub, words)...)
	}
	return out
}

// allCommands is every command a user can run; TestEveryCommandHasHelp
// checks the tree has no other.
var allCommands = []string{"serve", "terminals", "terminals list", "agents", "agents list", "agents create", "agents update", "agents status",
	"agents reset", "sessions", "sessions list", "resume", "restore-check", "mcp", "ptyd", "ptyd connect", "inbox", "inbox drain", "version",
	"hosts", "hosts add", "hosts list", "hosts remove", "hosts check",
	"hooks", "hooks install", "hooks status",
	"completion", "completion bash", "completion zsh", "completion fish", "completion powershell"}

func TestEveryCommandIsListed(t *testing.T) {
	var got []string
	for _, c := range commands(newRoot(Env{}), nil) {
		got = append(got, strings.Join(c, " "))
	}
	if strings.Join(got, ",") != strings.Join(slices.Sorted(slices.Values(allCommands)), ",") {
		t.Errorf("the command tree is %q; allCommands (tested for help) is %q", got, allCommands)
	}
}

func TestHelpForEveryCommand(t *testing.T) {
	var cmds [][]string
	for _, c := range allCommands {
		cmds = append(cmds, strings.Fields(c))
	}
	cmds = append(cmds, nil) // reprise --help itself
	for _, c := range cmds {
		for _, args := range [][]string{append(append([]string{}, c...), "--help"), append([]string{"help"}, c...), append(append([]string{}, c...), "-h")} {
			code, stdout, stderr := runCLI(args...)
			if code != 0 || stderr != "" {
				t.Errorf("%q: exit %d, stderr %q; want 0 and nothing", args, code, stderr)
			}
			if !strings.Contains(stdout, "Usage:") || !strings.Contains(stdout, "reprise "+strings.Join(c, " ")) {
				t.Errorf("%q: help does not show the command's usage:\n%s", args, stdout)
			}
		}
	}
	// The flags of a command are in its help.
	_, stdout, _ := runCLI("agents", "create", "--help")
	for _, f := range []string{"--agent", "--prompt", "--resume-session", "--cwd", "--json", "--home"} {
		if !strings.Contains(stdout, f) {
			t.Errorf("agents create --help does not list %s:\n%s", f, stdout)
		}
	}
	_, stdout, _ = runCLI("sessions", "list", "--help")
	if !strings.Contains(stdout, "-q, --query") {
		t.Errorf("sessions list --help does not list -q:\n%s", stdout)
	}
}

// TestFlagHelpNamesTheValueType: pflag takes a `quoted` word in a flag's
// usage as the name of its value, so "agent id (see `reprise agents list`)"
// printed "--agent reprise agents list   agent id (see reprise agents
// list)" in the help. Every flag's value name is one word.
func TestFlagHelpNamesTheValueType(t *testing.T) {
	root := newRoot(Env{})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(f); strings.ContainsAny(name, " \t") {
				t.Errorf("%s --%s: help shows its value as %q (a `quoted` word in the usage)", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	_, stdout, _ := runCLI("agents", "create", "--help")
	if !strings.Contains(stdout, "--agent string") {
		t.Errorf("agents create --help does not show \"--agent string\":\n%s", stdout)
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "complete -o default -F __start_reprise reprise", "zsh": "#compdef reprise", "fish": "complete -c reprise"} {
		code, stdout, stderr := runCLI("completion", shell)
		if code != 0 || stderr != "" || !strings.Contains(stdout, marker) {
			t.Errorf("completion %s: exit %d, stderr %q, script has no %q (%d bytes)", shell, code, stderr, marker, len(stdout))
		}
	}
	if _, err := exec.LookPath("bash"); err == nil {
		code, stdout, _ := runCLI("completion", "bash")
		if code == 0 {
			cmd := exec.Command("bash", "-n")
			cmd.Stdin = strings.NewReader(stdout)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("the bash completion script does not parse: %v\n%s", err, out)
			}
		}
	}
	// The completion the scripts ask for: subcommands of agents.
	code, stdout, _ := runCLI("__complete", "agents", "")
	if code != 0 || !strings.Contains(stdout, "create") || !strings.Contains(stdout, "reset") {
		t.Errorf("__complete agents: exit %d:\n%s", code, stdout)
	}
	// Agent ids, for the flag and the positional that take one.
	for _, args := range [][]string{{"__complete", "agents", "create", "--agent", ""}, {"__complete", "agents", "reset", ""}} {
		code, stdout, _ := runCLI(args...)
		if code != 0 || !strings.Contains(stdout, "claude\tClaude Code") || !strings.Contains(stdout, "codex") {
			t.Errorf("%q: exit %d:\n%s", args, code, stdout)
		}
	}
}

// Flags go before or after the positional argument: `reprise resume
// --json T` and `reprise resume T --json` are the same call.
func TestFlagsAfterPositionals(t *testing.T) {
	th := startTestHost(t)
	home := th.home.Dir
	for _, args := range [][]string{
		{"agents", "update", "--home", home, "--resume-args", "--resume", "claude"},
		{"agents", "update", "claude", "--resume-args", "--resume", "--home", home},
		{"agents", "update", "--home", home, "claude", "--resume-args=--resume"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != 0 || stdout != "claude resume args: '--resume'\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	// An unknown terminal is a failure of the call (1), not bad usage (2):
	// the flags around the id were understood.
	for _, args := range [][]string{
		{"resume", "--json", "t_0000000000000000", "--home", home},
		{"resume", "t_0000000000000000", "--json", "--home", home},
		{"--home", home, "resume", "--json", "t_0000000000000000"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != 1 {
			t.Errorf("%q: exit %d (stderr %q), want 1", args, code, stderr)
			continue
		}
		oneErrorLine(t, args, stdout, stderr)
	}
	code, stdout, stderr := runCLI("agents", "list", "--home", home, "--json")
	var agents []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(stdout), &agents) != nil || len(agents) == 0 {
		t.Errorf("agents list --home H --json: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	code, stdout, _ = runCLI("sessions", "list", "-q", "nothing-matches-this", "--home", home, "--all")
	if code != 0 || !strings.HasPrefix(stdout, "AGENT") {
		t.Errorf("sessions list -q X --home H --all: exit %d, stdout %q", code, stdout)
	}
}

// A fresh home has nothing to restore: that is the answer, exit 0.
func TestRestoreCheckOnAFreshHome(t *testing.T) {
	home := t.TempDir()
	code, stdout, stderr := runCLI("restore-check", "--json", "--home", home)
	if code != 0 || stderr != "" {
		t.Fatalf("restore-check --json on a fresh home: exit %d, stderr %q", code, stderr)
	}
	var got struct {
		DaemonRunning *bool           `json:"daemonRunning"`
		Summary       string          `json:"summary"`
		Panes         json.RawMessage `json:"panes"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if got.DaemonRunning == nil || *got.DaemonRunning || string(got.Panes) != "[]" || got.Summary != "nothing to restore" {
		t.Errorf("forecast of a fresh home: %s", stdout)
	}
	code, stdout, _ = runCLI("restore-check", "--home", home)
	if code != 0 || !strings.Contains(stdout, "nothing to restore") {
		t.Errorf("restore-check on a fresh home: exit %d, %q", code, stdout)
	}
	if _, err := os.Stat(paths.Home{Dir: home}.DB()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("restore-check created state in the home it checked: %v", err)
	}
}

// The hook takes its arguments as they are: no flag parsing, no help, no
// output, exit 0 — outside a pane and with arguments that look like flags.
func TestHookArgumentsAreNotFlags(t *testing.T) {
	for _, args := range [][]string{
		{"hook"},
		{"hook", "--help"},
		{"hook", "claude", "Stop", "--json"},
		{"hook", "codex", "notify", `{"type":"agent-turn-complete"}`},
		{"hook", "-h"},
	} {
		cmd := exec.Command(reprise, args...)
		cmd.Env = []string{"PATH=/usr/bin:/bin"} // not in a pane
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil || out.Len() != 0 {
			t.Errorf("%q outside a pane: %v, output %q; want exit 0 and nothing", args, err, out.String())
		}
	}
}

// With no display the desktop app says so in one line and starts nothing:
// before, GTK panicked after the host had started a pty daemon.
func TestDesktopWithoutDisplay(t *testing.T) {
	home := t.TempDir()
	t.Cleanup(func() { testenv.StopInstance(home) })
	cmd := exec.Command(reprise, "--home", home)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "REPRISE_HOME=" + home}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("reprise with no display: %v, want exit 1; stderr:\n%s", err, stderr.String())
	}
	oneErrorLine(t, nil, stdout.String(), stderr.String())
	if !strings.Contains(stderr.String(), "no display") || !strings.Contains(stderr.String(), "reprise serve") {
		t.Errorf("stderr %q does not say there is no display and what to do", stderr.String())
	}
	h := paths.Home{Dir: home}
	for _, p := range []string{h.PtydSocket(), h.PtydLock(), h.HostLock(), h.DB()} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists: something was started without a display", p)
		}
	}
}

func TestIsDesktop(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--home", "/tmp/x"}, true},
		{[]string{"--home=/tmp/x"}, true},
		{[]string{"--home", "/tmp/x", "agents", "list"}, false},
		{[]string{"--home", "/tmp/x", "resume", "--json", "t_1"}, false},
		{[]string{"agents", "list", "--home", "/tmp/x"}, false},
		{[]string{"--help"}, false},
		{[]string{"-h"}, false},
		{[]string{"--version"}, false},
		{[]string{"version"}, false},
		{[]string{"bogus"}, false},
		{[]string{"hook", "claude", "Stop"}, false},
		{[]string{"--bogus"}, false},
		{[]string{"--home"}, false},
	} {
		if got := IsDesktop(c.args); got != c.want {
			t.Errorf("IsDesktop(%q) = %v, want %v", c.args, got, c.want)
		}
	}
	if code, stdout, _ := runCLI("--version"); code != 0 || stdout != versionLine() {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
}

// `inbox drain` is only the relay a host runs over ssh: without --stdio it
// refuses with one line instead of waiting on the terminal.
func TestInboxDrainNeedsStdio(t *testing.T) {
	code, stdout, stderr := runCLI("--home", t.TempDir(), "inbox", "drain")
	if code == 0 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") > 1 || !strings.Contains(stderr, "--stdio") {
		t.Fatalf("inbox drain without --stdio: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
