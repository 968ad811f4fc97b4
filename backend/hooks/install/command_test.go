package install

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommandShape(t *testing.T) {
	got := Command("/opt/reprise/bin/reprise", "claude", "SessionStart")
	want := `[ -n "$REPRISE_TERMINAL_ID" ] && '/opt/reprise/bin/reprise' hook claude SessionStart || true`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	got = Command("/home/o'brien/my apps/reprise", "codex", "Stop")
	want = `[ -n "$REPRISE_TERMINAL_ID" ] && '/home/o'\''brien/my apps/reprise' hook codex Stop || true`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestParseCommand(t *testing.T) {
	for _, exe := range []string{"/r", "/opt/reprise/bin/reprise", "/home/o'brien/it's/reprise", "/a b/' hook x y || true/reprise", "/'''"} {
		cmd := Command(exe, "cursor-agent", "beforeSubmitPrompt")
		o, ok := parseCommand(cmd)
		if !ok || o != (owned{exe, "cursor-agent", "beforeSubmitPrompt"}) {
			t.Fatalf("%q: got %+v %v", cmd, o, ok)
		}
	}
	// The user's, however close to ours.
	for _, cmd := range []string{
		`'/opt/reprise/bin/reprise' hook claude Stop`,
		`/opt/reprise/bin/reprise hook claude Stop`,
		`[ -n "$REPRISE_TERMINAL_ID" ] && /opt/reprise/bin/reprise hook claude Stop || true`,
		`[ -n "$REPRISE_TERMINAL_ID" ] && '/opt/reprise/bin/reprise' hook claude Stop`,
		`[ -n "$REPRISE_TERMINAL_ID" ] && '/opt/reprise/bin/reprise' hook claude Stop extra || true`,
		`[ -n "$REPRISE_TERMINAL_ID" ] && '/opt/reprise/bin/reprise' hook claude Stop; rm -rf ~ || true`,
		`[ -n "$REPRISE_TERMINAL_ID" ] && '/opt/reprise/bin/reprise' notify claude Stop || true`,
		`[ -n "$REPRISE_TERMINAL_ID" ] && '/opt/reprise/bin/reprise'  hook claude Stop || true`,
		`[ -n "$REPRISE_TERMINAL_ID" ] && '/opt/reprise/bin/reprise hook claude Stop || true`,
		`[ -n "$REPRISE_TERMINAL_ID" ] && '' hook claude Stop || true`,
		`[ -n "$OTHER" ] && '/opt/reprise/bin/reprise' hook claude Stop || true`,
	} {
		if o, ok := parseCommand(cmd); ok {
			t.Errorf("%q taken for ours: %+v", cmd, o)
		}
	}
}

// TestGuard runs the installed commands the way agents do (sh -c) and checks
// AGENTS.md's rules: nothing happens outside a Reprise pane, nothing is
// printed, the exit status is 0 whatever the binary does or if it is gone.
func TestGuard(t *testing.T) {
	dir := filepath.Join(t.TempDir(), `it's a "dir" $HOME`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "reprise")
	record := filepath.Join(t.TempDir(), "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$REPRISE_TEST_RECORD\"\nexit 3\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	in := Installer{Home: t.TempDir(), Exe: exe}
	for _, agent := range Supported() {
		if err := in.Install(agent); err != nil {
			t.Fatalf("install %s: %v", agent, err)
		}
	}
	run := func(cmd string, env ...string) (string, int) {
		t.Helper()
		c := exec.Command("/bin/sh", "-c", cmd)
		c.Env = append([]string{"PATH=/usr/bin:/bin", "REPRISE_TEST_RECORD=" + record}, env...)
		var out bytes.Buffer
		c.Stdout = &out
		c.Stdin = strings.NewReader(`{"session_id":"abc"}`)
		err := c.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), 0
	}
	for _, agent := range Supported() {
		tg, _ := in.Target(agent)
		cmds := installedCommands(t, agent, tg.Path)
		if len(cmds) != len(tg.Events) {
			t.Fatalf("%s: %d commands for %d events", agent, len(cmds), len(tg.Events))
		}
		for _, ev := range tg.Events {
			cmd := cmds[ev]
			if cmd != Command(exe, agent, ev) {
				t.Fatalf("%s %s: installed %q", agent, ev, cmd)
			}
			os.Remove(record)
			// Outside a pane: not even started.
			for _, env := range [][]string{nil, {"REPRISE_TERMINAL_ID="}} {
				if out, code := run(cmd, env...); code != 0 || out != "" {
					t.Fatalf("%s %s outside a pane: exit %d, stdout %q", agent, ev, code, out)
				}
				if _, err := os.Stat(record); err == nil {
					t.Fatalf("%s %s: binary ran outside a pane", agent, ev)
				}
			}
			// Inside: called with exactly hook <agent> <event>; its exit 3 is swallowed.
			if out, code := run(cmd, "REPRISE_TERMINAL_ID=t_1"); code != 0 || out != "" {
				t.Fatalf("%s %s in a pane: exit %d, stdout %q", agent, ev, code, out)
			}
			got, err := os.ReadFile(record)
			if err != nil {
				t.Fatalf("%s %s: binary not run in a pane: %v", agent, ev, err)
			}
			if want := "hook\n" + agent + "\n" + ev + "\n"; string(got) != want {
				t.Fatalf("%s %s: args %q, want %q", agent, ev, got, want)
			}
		}
	}
	// The binary gone (moved, uninstalled): still exit 0, nothing on stdout.
	if err := os.Remove(exe); err != nil {
		t.Fatal(err)
	}
	if out, code := run(Command(exe, "claude", "SessionEnd"), "REPRISE_TERMINAL_ID=t_1"); code != 0 || out != "" {
		t.Fatalf("missing binary: exit %d, stdout %q", code, out)
	}
}
