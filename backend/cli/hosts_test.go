package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/reprise-dev/reprise/backend/remote"
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

// `reprise hosts check` with the real binary against a real sshd: it
// installs itself on the remote (the same bytes), starts the remote daemon
// detached and reports it; a second check finds the binary up to date and
// the same daemon still running after the first ssh link ended.
func TestHostsCheckOverSSH(t *testing.T) {
	s := testenv.StartSSHD(t)
	home, err := os.MkdirTemp("", "rc")
	if err != nil {
		t.Fatal(err)
	}
	rh, err := os.MkdirTemp("", "rr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		testenv.StopInstance(rh)
		tg := remote.ForHost(home, "box", s.Alias, rh, s.Config)
		if pid := tg.ControlPID(context.Background()); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		os.RemoveAll(rh)
		os.RemoveAll(home)
	})
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(reprise, append(args, "--home", home)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("hosts", "add", "box", "--ssh", s.Alias, "--ssh-config", s.Config, "--remote-home", rh)
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
