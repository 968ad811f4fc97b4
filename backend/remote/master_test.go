package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// logins is how many ssh logins the test's sshd accepted.
func logins(t *testing.T, s *testenv.SSHD) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Dir, "sshd.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "Accepted publickey for ")
}

// childSpec is what a child process of the test needs to reach the host:
// another Reprise process (the CLI beside the desktop host) racing this one.
type childSpec struct {
	Name, Dest, SSHConfig, ControlDir, RemoteHome, AskSock string
	N                                                      int
}

const masterChildEnv = "REPRISE_TEST_MASTER_CHILD"

// TestMasterChildProcess is the child: it waits for a line on stdin (the
// start signal, so every process starts at once), runs N commands on the
// host in parallel and prints "ok" or the error for each.
func TestMasterChildProcess(t *testing.T) {
	spec := os.Getenv(masterChildEnv)
	if spec == "" {
		t.Skip("the child of TestOneMasterForParallelConnections")
	}
	var c childSpec
	if err := json.Unmarshal([]byte(spec), &c); err != nil {
		t.Fatal(err)
	}
	tg := Target{Name: c.Name, Dest: c.Dest, SSHConfig: c.SSHConfig, ControlDir: c.ControlDir, RemoteHome: c.RemoteHome}
	if c.AskSock != "" {
		tg.Askpass = &Askpass{Exe: reprise, Sock: c.AskSock}
	}
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range c.N {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := tg.Run(ctx, fmt.Sprintf("echo child-%d", i), nil)
			mu.Lock()
			defer mu.Unlock()
			if err != nil || strings.TrimSpace(string(out)) != fmt.Sprintf("child-%d", i) {
				fmt.Printf("CHILD-FAIL %q %v\n", out, err)
				return
			}
			fmt.Println("CHILD-OK")
		}()
	}
	wg.Wait()
}

// startChildren starts n child processes of the test binary, each about
// to run per commands on tg's host; go() releases them all at once, and
// wait() checks that every command of theirs worked.
func startChildren(t *testing.T, tg Target, n, per int) (release func(), wait func()) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := childSpec{Name: tg.Name, Dest: tg.Dest, SSHConfig: tg.SSHConfig, ControlDir: tg.ControlDir, RemoteHome: tg.RemoteHome, N: per}
	if tg.Askpass != nil {
		c.AskSock = tg.Askpass.Sock
	}
	spec, _ := json.Marshal(c)
	type child struct {
		cmd *exec.Cmd
		in  *os.File
		out *strings.Builder
	}
	var kids []child
	for range n {
		cmd := exec.Command(self, "-test.run=^TestMasterChildProcess$", "-test.v")
		cmd.Env = append(os.Environ(), masterChildEnv+"="+string(spec), testenv.BinEnv+"="+reprise)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		out := &strings.Builder{}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = r, out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		kids = append(kids, child{cmd, w, out})
	}
	release = func() {
		for _, k := range kids {
			k.in.WriteString("go\n")
			k.in.Close()
		}
	}
	wait = func() {
		t.Helper()
		for _, k := range kids {
			err := k.cmd.Wait()
			if got := strings.Count(k.out.String(), "CHILD-OK"); err != nil || got != per {
				t.Errorf("child process: %d of %d commands worked (%v):\n%s", got, per, err, k.out.String())
			}
		}
	}
	return release, wait
}

// runParallel runs n commands on tg's host at once in this process.
func runParallel(ctx context.Context, tg Target, n int) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := tg.Run(ctx, fmt.Sprintf("echo here-%d", i), nil)
			if err == nil && strings.TrimSpace(string(out)) != fmt.Sprintf("here-%d", i) {
				err = fmt.Errorf("output %q", out)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return errs
}

// Many connections to one host at once with no master running — in this
// process and in two others (the CLI beside the desktop host) — log in
// once: one master, everything else its channels. After the master is
// killed (its socket left behind, stale), the same again logs in once
// more, not once per connection. Before the fix every ssh that found no
// master logged in on its own (ControlMaster=auto).
func TestOneMasterForParallelConnections(t *testing.T) {
	s := testenv.StartSSHD(t)
	tg := target(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	release, wait := startChildren(t, tg, 2, 3)
	release()
	errs := runParallel(ctx, tg, 6)
	wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("command %d: %v", i, err)
		}
	}
	if n := logins(t, s); n != 1 {
		t.Fatalf("%d logins for 12 connections started at once, want 1 (one master)", n)
	}
	pid := tg.ControlPID(ctx)
	if pid <= 0 {
		t.Fatal("no master runs")
	}

	// A link drop: the master dies, its socket stays.
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	if _, err := os.Stat(tg.ControlPath()); err != nil {
		t.Fatalf("the killed master's socket: %v (the test wants it stale)", err)
	}
	release, wait = startChildren(t, tg, 1, 3)
	release()
	errs = runParallel(ctx, tg, 4)
	wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("after the drop, command %d: %v", i, err)
		}
	}
	if n := logins(t, s); n != 2 {
		t.Errorf("%d logins in all after the master was killed, want 2 (one new master)", n)
	}
	if p2 := tg.ControlPID(ctx); p2 <= 0 || p2 == pid {
		t.Errorf("master pid %d after the drop (was %d), want a new one", p2, pid)
	}
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		// A zombie until its parent (init, after -f) reaps it.
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(b), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs after SIGKILL", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A channel started over a master that is gone (kill -9 just before)
// neither logs in on its own nor fails: a new master comes up, once.
func TestChannelAfterMasterDiedLogsInOnce(t *testing.T) {
	s := testenv.StartSSHD(t)
	tg := target(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := tg.Run(ctx, "true", nil); err != nil {
		t.Fatal(err)
	}
	pid := tg.ControlPID(ctx)
	if pid <= 0 {
		t.Fatal("no master runs")
	}
	// The channel's own ssh, run directly (no EnsureMaster first): with the
	// master dead it must fail without a connection of its own.
	_ = syscall.Kill(pid, syscall.SIGKILL)
	waitGone(t, pid)
	cmd, err := tg.channelCmd(ctx, "echo should-not-run")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), noMasterMarker) || strings.Contains(string(out), "should-not-run") {
		t.Fatalf("channel with no master: %v %q, want a failure from the guard", err, out)
	}
	if n := logins(t, s); n != 1 {
		t.Fatalf("%d logins after a channel found no master, want still 1", n)
	}
	// Dial, whose EnsureMaster starts the new master.
	if _, _, err := tg.Bootstrap(ctx, reprise); err != nil {
		t.Fatal(err)
	}
	c, _, err := tg.Dial(ctx, ptyclient.Options{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if n := logins(t, s); n != 2 {
		t.Errorf("%d logins, want 2", n)
	}
}

// With a passphrase key, connections started at once — here and in
// another process — ask once: one prompt, held open while the others
// start, and all of them run over the one master it unlocked. Before the
// fix each ssh asked, and the broker refused the second prompt of the
// host ("another prompt for this host is already open"): those failed.
func TestOnePromptForParallelConnections(t *testing.T) {
	s := testenv.StartSSHD(t)
	lockedKey(t, s, "open sesame")
	var mu sync.Mutex
	var opened []api.AskpassPrompt
	all := make(chan struct{})
	b := &Broker{}
	b.Publish = func(p api.AskpassPrompt) {
		if !p.Open {
			return
		}
		mu.Lock()
		opened = append(opened, p)
		mu.Unlock()
		go func() {
			// Held open until every connection has been started, and a
			// moment more, so that they all come while it is open.
			<-all
			time.Sleep(time.Second)
			if err := b.Answer(p.ID, []byte("open sesame"), false, false); err != nil {
				t.Errorf("answer: %v", err)
			}
		}()
	}
	tg := askpassTarget(t, target(t, s), b)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	release, wait := startChildren(t, tg, 1, 3)
	release()
	errc := make(chan []error, 1)
	go func() { errc <- runParallel(ctx, tg, 4) }()
	close(all)
	errs := <-errc
	wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("command %d: %v", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(opened) != 1 {
		t.Errorf("%d prompts, want 1: %+v", len(opened), opened)
	}
	if n := logins(t, s); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
}

// A master that logged in but could not listen on its socket would stay up
// unseen: killStrayMasters ends the processes started as that socket's
// master, and no other.
func TestKillStrayMasters(t *testing.T) {
	dir := t.TempDir()
	start := func(path string) chan error {
		// The argv of a master (sh ignores the words after $0; "; :" keeps
		// sh itself, with those words, running instead of exec'ing sleep).
		cmd := exec.Command("/bin/sh", "-c", "sleep 60; :", "ssh", "-o", "ControlPath="+path, "-o", "ControlMaster=yes", "-N", "-f", "--", "box")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		exited := make(chan struct{})
		go func() {
			done <- cmd.Wait()
			close(exited)
		}()
		pgid := cmd.Process.Pid
		t.Cleanup(func() {
			_ = syscall.Kill(-pgid, syscall.SIGKILL) // sh and its sleep
			<-exited
		})
		return done
	}
	stray := start(filepath.Join(dir, "m-1"))
	other := start(filepath.Join(dir, "m-2"))
	killStrayMasters(filepath.Join(dir, "m-1"))
	select {
	case <-stray:
	case <-time.After(30 * time.Second):
		t.Fatal("the stray master still runs")
	}
	select {
	case err := <-other:
		t.Errorf("the master of another socket was killed: %v", err)
	default:
	}
}
