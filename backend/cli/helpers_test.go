package cli

import (
	"os"
	"os/exec"
	"testing"

	"github.com/reprise-dev/reprise/internal/testenv"
	"github.com/reprise-dev/reprise/internal/testenv/remotetest"
)

// sshBox starts a real sshd and host "box" on it, added with `reprise
// hosts add` to a fresh home (under the system temp dir: socket paths in
// it must stay short), with a remote home of its own. The remote instance
// and the ssh ControlMaster are stopped at the end.
func sshBox(t *testing.T, lockedPass string) (s *testenv.SSHD, home, rh string) {
	t.Helper()
	s = testenv.StartSSHD(t)
	if lockedPass != "" {
		s.LockKey(t, lockedPass)
	}
	home, err := os.MkdirTemp("", "rc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	rh = testenv.RemoteHome(t)
	t.Cleanup(func() { remotetest.KillMaster(home, s, rh) })
	runIn(t, home, "hosts", "add", remotetest.Name, "--ssh", s.Alias, "--ssh-config", s.Config, "--remote-home", rh)
	return s, home, rh
}

// runIn runs the real binary with args on home and returns its output; it
// fails the test if the command fails.
func runIn(t *testing.T, home string, args ...string) string {
	t.Helper()
	out, err := exec.Command(reprise, append(args, "--home", home)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}
