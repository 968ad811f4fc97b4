package fakeagents_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
)

// binDir holds the fake claude, codex and gemini, built once.
var binDir string

// buildFlags are extra `go build` flags for the fakes, agentEnv extra
// variables for every start.
var buildFlags, agentEnv []string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakeagents-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, name := range []string{"claude", "codex", "gemini"} {
		args := append(append([]string{"build"}, buildFlags...), "-o", filepath.Join(dir, name), "./cmd/"+name)
		out, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", name, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// hookCommand logs each payload as one line: the id and project variables
// the agent put in the hook's environment, then the payload.
const hookCommand = `p=$(cat); printf '%s\t%s\t%s\t%s\n' "$CLAUDE_CODE_SESSION_ID" "$CODEX_THREAD_ID" "$CLAUDE_PROJECT_DIR" "$p" >> "$HOOKLOG"`

// hookConfig registers hookCommand for every event the fakes fire.
func hookConfig(cmd string) string {
	h := []fake.MatcherGroup{{Hooks: []fake.Handler{{Type: "command", Command: cmd, Timeout: 5}}}}
	data, _ := json.Marshal(map[string]any{"hooks": fake.HookConfig{
		fake.SessionStart: h, fake.UserPromptSubmit: h, fake.Stop: h, fake.SessionEnd: h,
	}})
	return string(data)
}

// world is one isolated HOME and project directory.
type world struct {
	t        *testing.T
	home     string
	cwd      string
	hookLog  string
	startLog string
	env      []string // extra variables
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{
		t:        t,
		home:     filepath.Join(root, "home"),
		cwd:      filepath.Join(root, "project.dir"),
		hookLog:  filepath.Join(root, "hooks.log"),
		startLog: filepath.Join(root, "starts.log"),
	}
	for _, d := range []string{w.home, w.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *world) write(path, content string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	cmd.Args[0] = name // as a shell would start it from PATH
	cmd.Dir = w.cwd
	cmd.Env = append([]string{
		"HOME=" + w.home,
		"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOOKLOG=" + w.hookLog,
		fake.StartLogEnv + "=" + w.startLog,
	}, append(agentEnv, w.env...)...)
	return cmd
}

// run starts an agent without a terminal, for paths that end before the
// REPL.
func (w *world) run(name string, args ...string) (int, string) {
	w.t.Helper()
	out, err := w.command(name, args...).CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		w.t.Fatal(err)
	}
	if ee != nil {
		return ee.ExitCode(), string(out)
	}
	return 0, string(out)
}

// agent is a fake agent running in a real pty.
type agent struct {
	t    *testing.T
	cmd  *exec.Cmd
	ptmx *os.File

	mu  sync.Mutex // guards out and pos
	out []byte
	pos int // expect searches from here

	readDone chan struct{}
	exited   chan struct{}
	code     int // valid once exited is closed; 128+n for a signal
}

func (w *world) start(name string, args ...string) *agent {
	w.t.Helper()
	a := &agent{t: w.t, cmd: w.command(name, args...), readDone: make(chan struct{}), exited: make(chan struct{})}
	ptmx, err := pty.Start(a.cmd)
	if err != nil {
		w.t.Fatal(err)
	}
	ptmx, err = pollable(ptmx)
	if err != nil {
		w.t.Fatal(err)
	}
	a.ptmx = ptmx
	go func() {
		defer close(a.readDone)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			a.mu.Lock()
			a.out = append(a.out, buf[:n]...)
			a.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		err := a.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				a.code = 128 + int(ws.Signal())
			} else {
				a.code = ee.ExitCode()
			}
		}
		close(a.exited)
	}()
	w.t.Cleanup(func() {
		_ = a.cmd.Process.Kill()
		<-a.exited
		ptmx.Close()
	})
	return a
}

// pollable returns the pty master in non-blocking mode, under Go's poller:
// creack/pty leaves it blocking, and then Close waits for the pending Read,
// so the pty would never really close (and never hang up the agent).
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

const patience = 5 * time.Second

// expect waits for s to appear in the output after the last match.
func (a *agent) expect(s string) {
	a.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		a.mu.Lock()
		i := bytes.Index(a.out[a.pos:], []byte(s))
		if i >= 0 {
			a.pos += i + len(s)
		}
		a.mu.Unlock()
		if i >= 0 {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("no %q on screen; got:\n%s", s, a.output())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (a *agent) output() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return string(a.out)
}

// send types a line and Enter.
func (a *agent) send(line string) {
	a.t.Helper()
	if _, err := a.ptmx.Write([]byte(line + "\r")); err != nil {
		a.t.Fatal(err)
	}
}

func (a *agent) signal(sig syscall.Signal) {
	a.t.Helper()
	if err := a.cmd.Process.Signal(sig); err != nil {
		a.t.Fatal(err)
	}
}

// wait returns the exit status once the process is gone and its output
// drained.
func (a *agent) wait() int {
	a.t.Helper()
	select {
	case <-a.exited:
	case <-time.After(patience):
		a.t.Fatalf("agent did not exit; screen:\n%s", a.output())
	}
	select {
	case <-a.readDone:
	case <-time.After(time.Second):
	}
	return a.code
}

// event is one hook run, as hookCommand logged it.
type event struct {
	EnvSessionID string // CLAUDE_CODE_SESSION_ID
	EnvThreadID  string // CODEX_THREAD_ID
	EnvProject   string // CLAUDE_PROJECT_DIR
	Payload      map[string]any
}

func (e event) name() string { return e.str("hook_event_name") }
func (e event) id() string   { return e.str("session_id") }
func (e event) str(k string) string {
	s, _ := e.Payload[k].(string)
	return s
}

func (w *world) events() []event {
	w.t.Helper()
	data, err := os.ReadFile(w.hookLog)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		w.t.Fatal(err)
	}
	var evs []event
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 4)
		if len(f) != 4 {
			w.t.Fatalf("bad hook log line %q", sc.Text())
		}
		e := event{EnvSessionID: f[0], EnvThreadID: f[1], EnvProject: f[2]}
		if err := json.Unmarshal([]byte(f[3]), &e.Payload); err != nil {
			w.t.Fatalf("hook payload %q: %v", f[3], err)
		}
		evs = append(evs, e)
	}
	return evs
}

// names lists events as "Event" or "Event:source/reason".
func names(evs []event) []string {
	var out []string
	for _, e := range evs {
		n := e.name()
		if s := e.str("source") + e.str("reason"); s != "" {
			n += ":" + s
		}
		out = append(out, n)
	}
	return out
}

func equal(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }
