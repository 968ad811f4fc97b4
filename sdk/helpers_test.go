package sdk_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// reprise is the real binary (the daemon and the hooks), fakeBin the fake
// claude and codex; built once for the tests and the examples.
var reprise, fakeBin string

func TestMain(m *testing.M) {
	cleanup, err := buildBinaries()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// testHost is a throwaway Reprise: a host in this process serving its
// local API on a temp home, with the fake agents on its terminals' PATH.
type testHost struct {
	home     paths.Home
	userHome string
	work     string // a directory to run agents in
	starts   string // the fake agents' start log
	h        *host.Host
	srv      *localapi.Server
}

func startTestHost() (*testHost, error) {
	dir, err := os.MkdirTemp("", "rs") // short: socket paths are limited to 107 bytes
	if err != nil {
		return nil, err
	}
	th := &testHost{home: paths.Home{Dir: dir}, userHome: filepath.Join(dir, "u"), work: filepath.Join(dir, "work"), starts: filepath.Join(dir, "starts.log")}
	for _, d := range []string{th.userHome, th.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	th.h, err = host.Start(context.Background(), host.Config{
		Home: th.home, Exe: reprise, Shell: []string{"/bin/sh"}, Logger: logger,
		BaseEnv: []string{"PATH=" + fakeBin + ":/usr/bin:/bin", "PS1=$ ", "HOME=" + th.userHome, fake.StartLogEnv + "=" + th.starts},
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if th.srv, err = localapi.Listen(th.h, th.home.HostSocket(), logger); err != nil {
		th.stop()
		return nil, err
	}
	return th, nil
}

// stop closes the host, kills its daemon and removes the home.
func (th *testHost) stop() {
	if th.srv != nil {
		th.srv.Close(context.Background())
	}
	th.h.Close()
	stopInstance(th.home)
	os.RemoveAll(th.home.Dir)
}

// stopInstance kills every process started for a home — terminals, agents,
// the hooks they run, the daemon — so that nothing writes into it (an
// agent's goodbye hook, say) after the test removes it.
func stopInstance(home paths.Home) { testenv.StopInstance(home.Dir) }

// until polls cond for up to 15 s.
func until(cond func() bool) bool {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func buildBinaries() (cleanup func(), err error) {
	b, err := testenv.Build()
	if err != nil {
		return nil, err
	}
	reprise, fakeBin = b.Reprise, b.FakeBin
	return func() { os.RemoveAll(b.Dir) }, nil
}
