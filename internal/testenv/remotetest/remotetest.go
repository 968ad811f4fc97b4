// Package remotetest is the set-up the tests of several packages share for
// a remote host "box" on a test's own sshd (testenv.SSHD): the host entry
// and the ssh ControlMaster a test's host leaves running (the remote side's
// Reprise home is testenv.RemoteHome). It is apart from testenv because it
// needs backend/remote and backend/store, whose own tests import testenv.
package remotetest

import (
	"context"
	"syscall"

	"github.com/reprise-dev/reprise/backend/remote"
	"github.com/reprise-dev/reprise/backend/store"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// Name is the remote host's name in the tests.
const Name = "box"

// KillMaster kills the ssh ControlMaster that a host with home homeDir
// keeps to box (on s, remote home rh): the master outlives the host by
// design, so a test ends it itself.
func KillMaster(homeDir string, s *testenv.SSHD, rh string) {
	tg := remote.ForHost(homeDir, Name, s.Alias, rh, s.Config)
	if pid := tg.ControlPID(context.Background()); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// Host is the host entry for box on s with remote home rh.
func Host(s *testenv.SSHD, rh string) store.Host {
	return store.Host{Name: Name, SSH: s.Alias, RemoteHome: rh, SSHConfig: s.Config}
}
