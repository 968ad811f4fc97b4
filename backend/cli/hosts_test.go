package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/backend/store"

	"github.com/reprise-dev/reprise/internal/testenv"
)

func TestHostsAddListRemove(t *testing.T) {
	home := t.TempDir()
	if code, out, errs := runCLI("hosts", "add", "box", "--ssh", "me@box.example:2222", "--home", home); code != 0 || !strings.Contains(out, "added host box") {
		t.Fatalf("add: %d %q %q", code, out, errs)
	}
	code, out, _ := runCLI("hosts", "list", "--home", home)
	if code != 0 || !strings.Contains(out, "box") || !strings.Contains(out, "me@box.example:2222") {
		t.Fatalf("list: %d %q", code, out)
	}
	// Bad input: one line, no crash.
	for _, args := range [][]string{
		{"hosts", "add", "box", "--ssh", "other"},              // duplicate
		{"hosts", "add", "b2", "--ssh", "-oProxyCommand=evil"}, // an option, not a destination
		{"hosts", "add", "b3"},                                 // no --ssh
		{"hosts", "add", "bad name", "--ssh", "x"},             // name
		{"hosts", "remove", "nope"},                            // unknown
	} {
		code, out, errs := runCLI(append(args, "--home", home)...)
		if code == 0 {
			t.Errorf("%v succeeded: %q", args, out)
		}
		oneErrorLine(t, args, out, errs)
	}
	if code, out, errs := runCLI("hosts", "remove", "box", "--home", home); code != 0 {
		t.Fatalf("remove: %d %q %q", code, out, errs)
	}
	if _, out, _ := runCLI("hosts", "list", "--json", "--home", home); strings.TrimSpace(out) != "[]" {
		t.Errorf("list after remove: %q", out)
	}
}

// TestHostsAddBadName: a bad host name is bad usage (exit 2) in one short
// line. Before, it exited 1, and a 5000-character name was echoed whole.
func TestHostsAddBadName(t *testing.T) {
	home := t.TempDir()
	for _, name := range []string{"bad name", "../../etc", "local", "", "-x", "a\nb", strings.Repeat("a", 5000)} {
		args := []string{"hosts", "add", name, "--ssh", "box", "--home", home}
		code, out, errs := runCLI(args...)
		if code != 2 || len(errs) > 300 {
			t.Errorf("hosts add %.20q: exit %d, %d bytes on stderr; want 2 and one short line", name, code, len(errs))
		}
		oneErrorLine(t, args, out, errs)
	}
	if code, out, errs := runCLI("hosts", "add", strings.Repeat("a", 63), "--ssh", "box", "--home", home); code != 0 {
		t.Errorf("a 63-character name: %d %q %q", code, out, errs)
	}
}

// TestHostsAddSSHConfigPath: --ssh-config is checked and kept absolute.
// Before, "--ssh-config /nonexistent" was added and every connection then
// failed, and a relative path was stored as given, so it named another
// file (or none) when the host or `hosts check` ran from another directory.
func TestHostsAddSSHConfigPath(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cfg"), []byte("Host box\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if code, out, errs := runCLI("hosts", "add", "box", "--ssh", "box", "--ssh-config", "cfg", "--home", home); code != 0 {
		t.Fatalf("add with a relative config: %d %q %q", code, out, errs)
	}
	_, out, _ := runCLI("hosts", "list", "--json", "--home", home)
	var rows []struct{ SSHConfig string }
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0].SSHConfig != filepath.Join(dir, "cfg") {
		t.Errorf("stored ssh config %q (%v), want %q", out, err, filepath.Join(dir, "cfg"))
	}
	for _, cfg := range []string{filepath.Join(dir, "missing"), dir} {
		args := []string{"hosts", "add", "b2", "--ssh", "box", "--ssh-config", cfg, "--home", home}
		code, out, errs := runCLI(args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (bad usage)", args, code)
		}
		oneErrorLine(t, args, out, errs)
	}
	if _, out, _ := runCLI("hosts", "list", "--home", home); strings.Contains(out, "b2") {
		t.Errorf("a refused host was stored:\n%s", out)
	}
}

// `reprise hosts check` with the real binary against a real sshd: it
// installs itself on the remote (the same bytes), starts the remote daemon
// detached and reports it; a second check finds the binary up to date and
// the same daemon still running after the first ssh link ended.
func TestHostsCheckOverSSH(t *testing.T) {
	_, home, rh := sshBox(t, "")
	run := func(args ...string) string { t.Helper(); return runIn(t, home, args...) }
	first := run("hosts", "check", "box")
	if !strings.Contains(first, "box: ok (binary installed; daemon pid ") {
		t.Fatalf("first check: %q", first)
	}
	want, _ := os.ReadFile(reprise)
	got, _ := os.ReadFile(filepath.Join(rh, "bin", "reprise"))
	if !bytes.Equal(got, want) {
		t.Fatalf("remote binary is %d bytes, want the same %d", len(got), len(want))
	}
	if st, err := os.Stat(filepath.Join(rh, "run", "ptyd.sock")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("remote daemon socket: %v %v, want mode 0600", st, err)
	}
	second := run("hosts", "check", "box")
	pid := func(s string) string {
		_, after, _ := strings.Cut(s, "daemon pid ")
		f, _, _ := strings.Cut(after, ",")
		return f
	}
	if !strings.Contains(second, "binary up to date") || pid(second) != pid(first) {
		t.Fatalf("second check %q after %q: want the binary up to date and the same daemon", second, first)
	}
}

// restore-check on a home with a pane on a remote host asks that host's
// running daemon (the real binary over the real sshd) and prints the host
// on the pane's line; with no daemon running there it says the host could
// not be asked, per pane, and starts none.
func TestRestoreCheckAsksEachHost(t *testing.T) {
	_, home, rh := sshBox(t, "")
	run := func(args ...string) string { t.Helper(); return runIn(t, home, args...) }
	run("hosts", "check", "box") // installs the binary, starts the remote daemon
	// A pane whose terminal ran on box (the daemon there does not have it).
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, "reprise.db"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	tid := "t_remote1"
	if _, err := st.CreateTerminal(ctx, store.Terminal{ID: tid, Cwd: "/", Argv: []string{"/bin/sh"}, Status: api.StatusRunning, CreatedAt: time.Now(), Host: "box"}); err != nil {
		t.Fatal(err)
	}
	l, err := st.LoadLayout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	l2, _, err := layout.New(func(p string) string { n++; return p + strconv.Itoa(n) }).AddTab(l, tid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveLayout(ctx, l2, l.Version); err != nil {
		t.Fatal(err)
	}
	st.Close()

	type line struct{ Host, Action, Reason, TerminalID string }
	check := func() line {
		t.Helper()
		var r struct{ Panes []line }
		if err := json.Unmarshal([]byte(run("restore-check", "--json")), &r); err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Panes {
			if p.TerminalID == tid {
				return p
			}
		}
		t.Fatalf("no line for the remote pane: %+v", r.Panes)
		return line{}
	}
	if p := check(); p.Host != "box" || p.Action != "fresh" {
		t.Fatalf("daemon running on box: %+v", p)
	}
	if out := run("restore-check"); !strings.Contains(out, "HOST") || !strings.Contains(out, " box ") {
		t.Fatalf("table without the host: %s", out)
	}
	// No daemon on box: one line says so, and restore-check starts none.
	testenv.StopInstance(rh)
	p := check()
	if p.Host != "box" || p.Action != "unknown" || !strings.HasPrefix(p.Reason, "cannot reach box: ") || !strings.Contains(p.Reason, "no pty daemon runs") {
		t.Fatalf("no daemon on box: %+v", p)
	}
	if c, err := net.Dial("unix", filepath.Join(rh, "run", "ptyd.sock")); err == nil {
		c.Close()
		t.Fatal("restore-check started a daemon on box")
	}
}
