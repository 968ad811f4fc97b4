package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/backend/lockfile"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// The suite runs only when asked: it needs the real CLIs (run.sh installs
// them) and takes minutes.
var enabled = os.Getenv("REPRISE_CONFORMANCE") == "1"

var (
	// exe is what Reprise is told its binary is: the hook spy
	// (hookspy/), which logs every `reprise hook` call and hands it to the
	// real binary beside it (exe + ".real").
	exe       string
	buildDir  string
	cacheDir  string // .cache/agents
	artifacts string // where failing tests leave screens and logs
)

// spec is one pinned CLI (pins.txt).
type spec struct {
	ID, Pkg, Version, Bin string
}

func (s spec) prefix() string { return filepath.Join(cacheDir, s.ID+"@"+s.Version) }
func (s spec) binDir() string { return filepath.Join(s.prefix(), "node_modules", ".bin") }

var specs = map[string]spec{}

func loadPins() error {
	b, err := os.ReadFile("pins.txt")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || strings.HasPrefix(f[0], "#") {
			continue
		}
		specs[f[0]] = spec{ID: f[0], Pkg: f[1], Version: f[2], Bin: f[3]}
	}
	return nil
}

func TestMain(m *testing.M) {
	if !enabled {
		fmt.Println("conformance: skipped; run conformance/run.sh (or set REPRISE_CONFORMANCE=1 after installing the CLIs)")
		os.Exit(m.Run())
	}
	if err := loadPins(); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
	cacheDir = os.Getenv("REPRISE_AGENTS_CACHE")
	if cacheDir == "" {
		cacheDir, _ = filepath.Abs(filepath.Join("..", ".cache", "agents"))
	}
	artifacts = os.Getenv("REPRISE_CONFORMANCE_ARTIFACTS")
	if artifacts == "" {
		artifacts, _ = filepath.Abs(filepath.Join("..", "test-artifacts", "conformance"))
	}
	var err error
	buildDir, err = os.MkdirTemp("", "reprise-conformance")
	if err != nil {
		panic(err)
	}
	exe = filepath.Join(buildDir, "reprise")
	for _, b := range [][]string{
		{"-o", exe + ".real", testenv.CLIPackage},
		{"-o", exe, "github.com/reprise-dev/reprise/conformance/hookspy"},
	} {
		out, err := exec.Command("go", append([]string{"build"}, b...)...).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", b[2], err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	if p := os.Getenv("REPRISE_CONFORMANCE_RESULTS"); p != "" {
		if err := writeResults(p); err != nil {
			fmt.Fprintln(os.Stderr, "conformance: write results:", err)
		}
	}
	os.RemoveAll(buildDir)
	os.Exit(code)
}

// ---------------------------------------------------------------------------
// The rig: one isolated Reprise (REPRISE_HOME), one isolated user HOME, one
// real CLI, one model stand-in.

type rig struct {
	t        *testing.T
	cli      spec
	root     string // REPRISE_HOME
	home     paths.Home
	userHome string
	work     string // the project directory the agent runs in
	model    *StandIn
	apiURL   string
	h        *host.Host
	api      *localapi.Server
	v        *host.Viewer
	res      *result
	opts     rigOptions

	mu      sync.Mutex
	screens map[string]*screen
}

type rigOptions struct {
	closedPort bool // the model API's port is closed: turns fail at once
	// askApproval: the CLI asks before it runs a shell command (Codex
	// runs commands in its sandbox unasked unless approval_policy says
	// otherwise; Claude and Gemini ask by default).
	askApproval bool
}

// requireCLI skips the test when the suite is off or the CLI could not be
// installed (the registry refused it): that is not a behaviour mismatch.
func requireCLI(t *testing.T, id string) spec {
	t.Helper()
	if !enabled {
		t.Skip("set REPRISE_CONFORMANCE=1 (conformance/run.sh)")
	}
	s, ok := specs[id]
	if !ok {
		t.Fatalf("%s is not pinned in pins.txt", id)
	}
	if _, err := os.Stat(filepath.Join(s.binDir(), s.Bin)); err != nil {
		why := "not installed"
		if b, err := os.ReadFile(filepath.Join(cacheDir, s.ID+"@"+s.Version+".failed.log")); err == nil {
			why = "npm install failed: " + npmError(string(b))
		}
		t.Skipf("%s@%s unavailable (%s); run conformance/install.sh", s.Pkg, s.Version, why)
	}
	return s
}

// npmError picks the telling line of a failed npm install's output.
func npmError(log string) string {
	lines := strings.Split(log, "\n")
	for _, pat := range []string{"npm error code", "npm error 404", "FetchError", "npm error"} {
		for _, l := range lines {
			if strings.Contains(l, pat) {
				return strings.TrimSpace(l)
			}
		}
	}
	return lastLine(log)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func newRig(t *testing.T, id, scenario string, o rigOptions) *rig {
	t.Helper()
	s := requireCLI(t, id)
	// Short: the daemon's Unix socket path must stay under 108 bytes.
	root, err := os.MkdirTemp("", "rc")
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, cli: s, root: root, home: paths.Home{Dir: root}, userHome: filepath.Join(root, "u"),
		work: filepath.Join(root, "work", "proj"), screens: map[string]*screen{}, opts: o}
	r.res = &result{CLI: id, Scenario: scenario, started: time.Now()}
	for _, d := range []string{r.userHome, r.work, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(r.cleanup)
	if o.closedPort {
		r.apiURL, err = ClosedPortURL()
		r.res.note("model API: closed port")
	} else {
		kind := map[string]string{"claude": "anthropic", "codex": "openai", "gemini": "gemini"}[id]
		r.model, err = StartStandIn(kind)
		if err == nil {
			r.apiURL = r.model.URL
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PATH=" + s.binDir() + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + r.userHome,
		"LANG=C.UTF-8",
		"PS1=$ ",
		"TMPDIR=" + filepath.Join(root, "tmp"),
		// Updaters off, always (Claude's runs `npm install --global`).
		"DISABLE_AUTOUPDATER=1", "DISABLE_UPDATES=1",
	}
	env = append(env, setups[id](r)...)
	logf, err := os.Create(filepath.Join(root, "host.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	logger := slog.New(slog.NewTextHandler(logf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r.h, err = host.Start(context.Background(), host.Config{
		Home: r.home, Exe: exe, Shell: []string{"/bin/bash"}, BaseEnv: env, Logger: logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	r.api, err = localapi.Listen(r.h, r.home.HostSocket(), logger)
	if err != nil {
		t.Fatal(err)
	}
	r.v = r.h.NewViewer()
	if a, ok := agentArgs[id]; ok {
		// What a user does in Settings → Agents.
		ag, err := r.h.Agent(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		ag.Args = a
		if _, err := r.h.SaveAgent(context.Background(), ag); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// setups prepare a CLI's first run (files under the user HOME) and return
// its environment; see AGENTS.md "Running the real CLIs offline".
var setups = map[string]func(r *rig) []string{}

// agentArgs are the extra root flags a CLI needs in tests, saved as the
// agent's args the way a user would in Settings.
var agentArgs = map[string][]string{}

func (r *rig) cleanup() {
	t := r.t
	r.res.finish(t)
	if t.Failed() {
		r.dumpArtifacts()
	}
	if r.v != nil {
		r.v.Close()
	}
	if r.api != nil {
		r.api.Close(context.Background())
	}
	if r.h != nil {
		r.h.Close()
	}
	if pid := lockfile.Holder(r.home.PtydLock()); pid > 0 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	// Anything this rig started that outlived its terminal (an agent that
	// ignored SIGHUP, a helper it spawned): found by its REPRISE_HOME.
	for _, pid := range processesOf(r.root) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if r.model != nil {
		r.model.Close()
	}
	if os.Getenv("REPRISE_CONFORMANCE_KEEP") == "" {
		os.RemoveAll(r.root)
	} else {
		t.Logf("kept %s", r.root)
	}
}

// processesOf lists live processes whose environment has REPRISE_HOME=root.
func processesOf(root string) []int {
	ents, _ := os.ReadDir("/proc")
	want := []byte("REPRISE_HOME=" + root + "\x00")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && bytes.Contains(b, want) {
			out = append(out, pid)
		}
	}
	return out
}

// dumpProcesses records, for every process of this home, which terminal
// its standard streams are on: evidence for the launch anomaly.
func (r *rig) dumpProcesses() {
	dir := filepath.Join(artifacts, strings.ReplaceAll(r.t.Name(), "/", "_"))
	os.MkdirAll(dir, 0o755)
	var sb strings.Builder
	for _, pid := range processesOf(r.root) {
		p := "/proc/" + strconv.Itoa(pid)
		comm, _ := os.ReadFile(p + "/comm")
		env, _ := os.ReadFile(p + "/environ")
		tid := ""
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte("REPRISE_TERMINAL_ID=")); ok {
				tid = string(v)
			}
		}
		stat, _ := os.ReadFile(p + "/stat")
		fds := []string{}
		for _, fd := range []string{"0", "1", "2"} {
			l, _ := os.Readlink(p + "/fd/" + fd)
			fds = append(fds, fd+"="+l)
		}
		fmt.Fprintf(&sb, "pid %d %s terminal %s fds %v stat %s\n", pid, strings.TrimSpace(string(comm)), tid, fds, strings.TrimSpace(string(stat)))
	}
	os.WriteFile(filepath.Join(dir, "processes.txt"), []byte(sb.String()), 0o644)
}

func (r *rig) dumpArtifacts() {
	dir := filepath.Join(artifacts, strings.ReplaceAll(r.t.Name(), "/", "_"))
	os.MkdirAll(dir, 0o755)
	r.mu.Lock()
	for id, s := range r.screens {
		os.WriteFile(filepath.Join(dir, id+".screen.txt"), []byte(s.Screen()), 0o644)
		os.WriteFile(filepath.Join(dir, id+".all.txt"), []byte(s.All()), 0o644)
		os.WriteFile(filepath.Join(dir, id+".raw"), s.Raw(), 0o644)
		r.t.Logf("screen of %s:\n%s", id, s.Screen())
	}
	r.mu.Unlock()
	// What each terminal printed, as the daemon logged it (independent of
	// the viewer stream).
	if ents, err := os.ReadDir(r.home.ScrollbackDir()); err == nil {
		for _, e := range ents {
			if b, err := os.ReadFile(filepath.Join(r.home.ScrollbackDir(), e.Name())); err == nil {
				os.WriteFile(filepath.Join(dir, "scrollback-"+e.Name()), b, 0o644)
			}
		}
	}
	for _, f := range []string{"host.log", "hookspy.jsonl", "logs/hooks.log", "logs/ptyd.log", "logs/ptyd.stderr.log"} {
		if b, err := os.ReadFile(filepath.Join(r.root, f)); err == nil {
			os.WriteFile(filepath.Join(dir, strings.ReplaceAll(f, "/", "_")), b, 0o644)
		}
	}
	if r.model != nil {
		b, _ := json.MarshalIndent(r.model.Requests(), "", "  ")
		os.WriteFile(filepath.Join(dir, "model-requests.json"), b, 0o644)
	}
	r.t.Logf("artifacts in %s", dir)
}

// ---------------------------------------------------------------------------
// Screens

type screen struct {
	mu  sync.Mutex
	vt  *vt
	raw bytes.Buffer
}

const cols, rows = 120, 40

func (s *screen) write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(p)
	s.vt.Write(p)
}

// Screen is what the pane shows now.
func (s *screen) Screen() string { s.mu.Lock(); defer s.mu.Unlock(); return s.vt.Screen() }

// All is everything that scrolled by plus the screen.
func (s *screen) All() string { s.mu.Lock(); defer s.mu.Unlock(); return s.vt.All() }

func (s *screen) Raw() []byte { s.mu.Lock(); defer s.mu.Unlock(); return bytes.Clone(s.raw.Bytes()) }

var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?<>=!:]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()*+#%].|\x1b[@-_]`)

func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// Shows reports whether text was ever on the pane: in the rendered lines,
// or (whitespace aside) anywhere in the output stream.
func (s *screen) Shows(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.Contains(s.vt.All(), text) {
		return true
	}
	return strings.Contains(squash(ansiRE.ReplaceAllString(s.raw.String(), "")), squash(text))
}

// screen attaches to a terminal once and returns its screen.
func (r *rig) screen(tid string) *screen {
	r.t.Helper()
	r.mu.Lock()
	if s, ok := r.screens[tid]; ok {
		r.mu.Unlock()
		return s
	}
	s := &screen{vt: newVT(cols, rows)}
	r.screens[tid] = s
	r.mu.Unlock()
	_, _, err := r.v.Attach(context.Background(), tid, cols, rows, host.Stream{OnData: func(p []byte) {
		s.write(p)
		_ = r.v.Ack(tid, int64(len(p)))
	}})
	if err != nil {
		r.t.Fatalf("attach %s: %v", tid, err)
	}
	return s
}

// ---------------------------------------------------------------------------
// Waiting

func (r *rig) waitFor(what string, d time.Duration, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitShows waits until one of texts was on the pane.
// tryShows is waitShows without failing: ok is false on timeout.
func (r *rig) tryShows(tid string, d time.Duration, texts ...string) (string, bool) {
	r.t.Helper()
	s := r.screen(tid)
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, x := range texts {
			if s.Shows(x) {
				return x, true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", false
}

func (r *rig) waitShows(tid string, d time.Duration, texts ...string) string {
	r.t.Helper()
	s := r.screen(tid)
	var found string
	deadline := time.Now().Add(d)
	for {
		for _, x := range texts {
			if s.Shows(x) {
				found = x
			}
		}
		if found != "" {
			return found
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("timed out after %s waiting for %q on %s; screen:\n%s", d, texts, tid, s.Screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (r *rig) binding(tid string) api.Binding {
	r.t.Helper()
	b, err := r.h.Binding(context.Background(), tid)
	if err != nil {
		r.t.Fatalf("binding of %s: %v", tid, err)
	}
	return b
}

func (r *rig) waitBinding(tid, what string, d time.Duration, cond func(api.Binding) bool) api.Binding {
	r.t.Helper()
	var last api.Binding
	deadline := time.Now().Add(d)
	for {
		b, err := r.h.Binding(context.Background(), tid)
		if err == nil {
			last = b
			if cond(b) {
				return b
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("timed out after %s waiting for %s; binding %s", d, what, fmtBinding(last))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func fmtBinding(b api.Binding) string {
	return fmt.Sprintf("{session %q prompted %v lastEvent %q endReason %q candidate %v unavailable %q}",
		b.SessionID, b.Prompted, b.LastEvent, b.EndReason, b.Candidate, b.Unavailable)
}

// ---------------------------------------------------------------------------
// Acting like a user

// run starts the agent through Reprise (RunAgent: Reprise's own argv and
// hook installation) and attaches to its pane.
func (r *rig) run(req api.CreateAgentRequest) api.CreateAgentResult {
	r.t.Helper()
	if req.Agent == "" {
		req.Agent = r.cli.ID
	}
	if req.Cwd == "" {
		req.Cwd = r.work
	}
	res, err := r.h.CreateAgent(context.Background(), req)
	if err != nil {
		r.t.Fatalf("run %s: %v", req.Agent, err)
	}
	r.screen(res.TerminalID)
	return res
}

// typeLine types text into a pane and presses Enter, as a person would
// (the pause keeps a TUI from taking Enter as part of a paste).
func (r *rig) typeLine(tid, text string) {
	r.t.Helper()
	ctx := context.Background()
	s := r.screen(tid)
	for try := 0; try < 3; try++ {
		for _, ch := range text {
			if err := r.v.Input(ctx, tid, []byte(string(ch))); err != nil {
				r.t.Fatalf("input: %v", err)
			}
			time.Sleep(8 * time.Millisecond)
		}
		// Enter only once the TUI has drawn what was typed (a loaded machine
		// can hold the keys back and hand them over in one burst, which a TUI
		// takes for a paste), then a pause.
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !s.Shows(text); {
			time.Sleep(50 * time.Millisecond)
		}
		if s.Shows(text) {
			break
		}
		// The box holds something else: Gemini's command menu, at load, once
		// completed the "/" of "/quit" to "/clear" and the box read
		// "/clearquit", which no Enter runs. As a person would: erase the
		// line and type it again.
		r.res.note("typed %q but the screen does not show it; erased the line and typed it again", text)
		r.keys(tid, strings.Repeat("\x7f", 64))
		time.Sleep(500 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if err := r.v.Input(ctx, tid, []byte("\r")); err != nil {
		r.t.Fatalf("input: %v", err)
	}
}

// submitLine types a line and presses Enter, then waits until done()
// says the CLI took it (its prompt hook ran, it exited). A TUI may take
// that Enter for something else on a loaded machine: Gemini's command
// menu kept "/quit" in its input box above the "quit  Exit the cli"
// suggestion, and its paste detection once took the Enter of a fast-typed
// prompt as a newline inside the box. As a person would, press Enter again
// while nothing happened (up to three times, 8 s apart). The caller still
// waits for what it needs, and fails if that never comes.
func (r *rig) submitLine(tid, text string, done func() bool) {
	r.t.Helper()
	r.typeLine(tid, text)
	for try := 0; try < 3; try++ {
		deadline := time.Now().Add(8 * time.Second)
		for time.Now().Before(deadline) {
			if done() {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		r.res.note("Enter pressed again: %q was not taken after 8 s", text)
		r.keys(tid, "\r")
	}
}

// exitAgent types the agent's exit command and waits for the wrapper's
// process-exit hook.
func (r *rig) exitAgent(tid, cmd string) {
	r.t.Helper()
	r.submitLine(tid, cmd, func() bool { return r.count(tid, "process-exit") > 0 })
	r.waitHook(tid, "process-exit", endTimeout)
}

func (r *rig) keys(tid string, p string) {
	r.t.Helper()
	if err := r.v.Input(context.Background(), tid, []byte(p)); err != nil {
		r.t.Fatalf("input: %v", err)
	}
}

// killTerminal is kill -9 of the terminal's process group: the agent and
// its shell.
func (r *rig) killTerminal(tid string) {
	r.t.Helper()
	if err := r.h.Signal(context.Background(), tid, "KILL"); err != nil {
		r.t.Fatalf("kill terminal: %v", err)
	}
}

// killDaemon is kill -9 of the pty daemon: every pty closes, and the
// kernel hangs up (SIGHUP) every process in them.
func (r *rig) killDaemon() {
	r.t.Helper()
	pid := r.h.DaemonStatus().PID
	if pid <= 0 {
		r.t.Fatal("no daemon pid")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) resume(tid string) api.ResumeResult {
	r.t.Helper()
	res, err := r.h.Resume(context.Background(), tid)
	if err != nil {
		r.t.Fatalf("resume %s: %v", tid, err)
	}
	r.screen(res.TerminalID)
	return res
}

// cli runs the reprise command line against this rig's host.
func (r *rig) cliOut(args ...string) string {
	r.t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "REPRISE_HOME="+r.root)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("reprise %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// sessionsAll is `reprise sessions list --all --json`.
func (r *rig) sessionsAll() []api.Session {
	r.t.Helper()
	var ss []api.Session
	out := r.cliOut("sessions", "list", "--all", "--json")
	if err := json.Unmarshal([]byte(out), &ss); err != nil {
		r.t.Fatalf("sessions list: %v\n%s", err, out)
	}
	return ss
}

// ---------------------------------------------------------------------------
// What the real CLI did: the hook spy's log.

type hookCall struct {
	At         time.Time       `json:"at"`
	PID        int             `json:"pid"`
	PPID       int             `json:"ppid"`
	TerminalID string          `json:"terminalId"`
	Args       []string        `json:"args"`
	Payload    json.RawMessage `json:"payload"`

	Event     string
	SessionID string
	Detail    string // source, reason, or exit status
	Status    *int
}

func (r *rig) calls(tids ...string) []hookCall {
	f, err := os.Open(filepath.Join(r.root, "hookspy.jsonl"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []hookCall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		var c hookCall
		if json.Unmarshal(sc.Bytes(), &c) != nil || len(c.Args) < 3 {
			continue
		}
		if len(tids) > 0 && !slices.Contains(tids, c.TerminalID) {
			continue
		}
		c.Event = c.Args[2]
		var p map[string]any
		_ = json.Unmarshal(c.Payload, &p)
		for _, k := range []string{"session_id", "sessionId", "thread-id"} {
			if s, ok := p[k].(string); ok && s != "" {
				c.SessionID = s
				break
			}
		}
		for _, k := range []string{"source", "reason", "trigger"} {
			if s, ok := p[k].(string); ok && s != "" {
				c.Detail = s
				break
			}
		}
		if c.Event == "process-exit" {
			for i, a := range c.Args {
				if a == "--status" && i+1 < len(c.Args) {
					if n, err := strconv.Atoi(c.Args[i+1]); err == nil {
						c.Status = &n
						c.Detail = "status " + c.Args[i+1]
					}
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// hookSummary is the hooks a terminal's agent ran, in order, e.g.
// "SessionStart(startup) UserPromptSubmit Stop SessionEnd(other) process-exit(status 129)".
func (r *rig) hookSummary(tid string) string {
	var parts []string
	for _, c := range r.calls(tid) {
		p := c.Event
		if c.Detail != "" {
			p += "(" + c.Detail + ")"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

func (r *rig) hookIDs(tid string) []string {
	var ids []string
	for _, c := range r.calls(tid) {
		if c.SessionID != "" && !slices.Contains(ids, c.SessionID) {
			ids = append(ids, c.SessionID)
		}
	}
	return ids
}

func (r *rig) exitStatus(tid string) *int {
	for _, c := range r.calls(tid) {
		if c.Status != nil {
			return c.Status
		}
	}
	return nil
}

func (r *rig) count(tid, event string) int {
	n := 0
	for _, c := range r.calls(tid) {
		if c.Event == event {
			n++
		}
	}
	return n
}

func (r *rig) waitHook(tid, event string, d time.Duration) hookCall {
	r.t.Helper()
	var got hookCall
	r.waitFor(fmt.Sprintf("%s hook from %s (seen: %s)", event, tid, r.hookSummary(tid)), d, func() bool {
		for _, c := range r.calls(tid) {
			if c.Event == event {
				got = c
				return true
			}
		}
		return false
	})
	return got
}

func (r *rig) terminal(tid string) api.Terminal {
	r.t.Helper()
	tm, err := r.h.Terminal(context.Background(), tid)
	if err != nil {
		r.t.Fatal(err)
	}
	return tm
}

func codeword(prefix string) string {
	if !slices.Contains(CodewordPrefixes, prefix) {
		panic("codeword prefix " + prefix + " is not in CodewordPrefixes")
	}
	return fmt.Sprintf("%s-%d", prefix, 1000+time.Now().UnixNano()%9000)
}

// signal sends a signal to a terminal's process group.
func (r *rig) signal(tid, sig string) {
	r.t.Helper()
	if err := r.h.Signal(context.Background(), tid, sig); err != nil {
		r.t.Fatalf("signal %s: %v", sig, err)
	}
}

// replies reports whether the model stand-in answers turns (not closed,
// not refusing).
func (r *rig) replies() bool { return r.model != nil && r.model.failTurns() == 0 }
