package host

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/hooks/payload"
	"github.com/reprise-dev/reprise/backend/store"
)

// The truth paths of issue 14, each with the scenario that showed it wrong,
// driven through the fake agents.

// startWith is start with extra variables in the terminals' environment.
func (e agentEnv) startWith(t *testing.T, extra ...string) *Host {
	t.Helper()
	h, err := Start(context.Background(), Config{
		Home: e.home, Exe: reprise, Shell: []string{"/bin/sh"},
		BaseEnv: append([]string{"PATH=" + fakeBin + ":/usr/bin:/bin", "PS1=$ ", "HOME=" + e.userHome, "FAKE_AGENT_LOG=" + e.starts}, extra...),
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// cliEnv is the environment a user's `reprise …` runs with in these tests.
func (e agentEnv) cliEnv() []string {
	return []string{"PATH=" + fakeBin + ":/usr/bin:/bin", "HOME=" + e.userHome, "FAKE_AGENT_LOG=" + e.starts, "SHELL=/bin/sh", "PS1=$ "}
}

type startRecord struct {
	PID  int      `json:"pid"`
	Argv []string `json:"argv"`
	Cwd  string   `json:"cwd"`
}

func (e agentEnv) startRecords(t *testing.T) []startRecord {
	t.Helper()
	b, _ := os.ReadFile(e.starts)
	var out []startRecord
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var s startRecord
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("starts log: %v", err)
		}
		out = append(out, s)
	}
	return out
}

// pendingRecords reads the hook records waiting in the inbox, by name.
func pendingRecords(t *testing.T, e agentEnv) map[string][]byte {
	t.Helper()
	dir := filepath.Join(e.home.Dir, "inbox")
	ents, _ := os.ReadDir(dir)
	out := map[string][]byte{}
	for _, ent := range ents {
		n := ent.Name()
		if !ent.Type().IsRegular() || !strings.HasSuffix(n, ".json") || strings.HasPrefix(n, ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err == nil {
			out[n] = b
		}
	}
	return out
}

// pendingFor lists the pending hook records of one terminal, in order.
func pendingFor(t *testing.T, e agentEnv, tid string) []HookRecord {
	t.Helper()
	recs := pendingRecords(t, e)
	names := make([]string, 0, len(recs))
	for n := range recs {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []HookRecord
	for _, n := range names {
		var r HookRecord
		if json.Unmarshal(recs[n], &r) == nil && r.TerminalID == tid {
			out = append(out, r)
		}
	}
	return out
}

// waitQuiet waits until no process of the instance (terminals, agents,
// their hooks) is left, so nothing writes into the inbox any more.
func waitQuiet(t *testing.T, homeDir string) {
	t.Helper()
	mark := []byte("REPRISE_HOME=" + homeDir + "\x00")
	waitFor(t, "every process of the instance gone", func() bool {
		ents, _ := os.ReadDir("/proc")
		for _, ent := range ents {
			pid, err := strconv.Atoi(ent.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			if env, err := os.ReadFile("/proc/" + ent.Name() + "/environ"); err == nil && bytes.Contains(env, mark) {
				if st, err := os.ReadFile("/proc/" + ent.Name() + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
					continue // a zombie writes nothing
				}
				return false
			}
		}
		return true
	})
}

// Path 1: an agent that exits cleanly, whose terminal then dies within the
// death-gasp window, said goodbye: no banner.
func TestCleanExitThenTerminalDeathShowsNoBanner(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		agent, quit string
		daemon      bool // kill the daemon rather than the terminal
	}{
		{"claude", "/exit", false},
		{"codex", "/quit", false},
		{"claude", "/exit", true},
	} {
		t.Run(tc.agent+" "+tc.quit+map[bool]string{true: " then daemon death", false: " then shell killed"}[tc.daemon], func(t *testing.T) {
			res, s, v := runPrompted(t, h, e, tc.agent, "EXIT-"+tc.agent)
			v.Input(ctx, res.TerminalID, []byte(tc.quit+"\r"))
			waitBinding(t, h, res.TerminalID, "goodbye", func(b api.Binding) bool { return b.EndReason == bindings.Detached })
			// The wrapper reported the exit status before it exec'd the
			// shell that now answers.
			v.Input(ctx, res.TerminalID, []byte("echo SHELL-$((2+3))\r"))
			waitText(t, s, "SHELL-5")
			waitFor(t, "the exit status applied", func() bool { return len(pendingFor(t, e, res.TerminalID)) == 0 })
			if tc.daemon {
				syscall.Kill(h.DaemonStatus().PID, syscall.SIGKILL)
				waitFor(t, "terminal lost", func() bool { return terminal(t, h, res.TerminalID).Status == api.StatusLost })
			} else {
				killTerminal(t, h, res.TerminalID)
				waitFor(t, "terminal ended", func() bool { return terminal(t, h, res.TerminalID).Status != api.StatusRunning })
			}
			time.Sleep(300 * time.Millisecond) // the death's binding update, if any, lands
			b := binding(t, h, res.TerminalID)
			if b.EndReason != bindings.Detached || b.Candidate {
				t.Fatalf("a clean exit followed by the terminal's death: %s candidate=%v, want detached, no banner", b.EndReason, b.Candidate)
			}
		})
	}
}

// Path 2: resuming a known session on demand starts it in the session's
// own directory, whichever directory the command runs from.
func TestResumeSessionFromElsewhereUsesItsCwd(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	ctx := context.Background()
	res, _, v := runPrompted(t, h, e, "claude", "WALNUT-7")
	v.Input(ctx, res.TerminalID, []byte("/exit\r"))
	waitBinding(t, h, res.TerminalID, "goodbye", func(b api.Binding) bool { return b.EndReason == bindings.Detached })
	h.Close()

	elsewhere := filepath.Join(e.home.Dir, "elsewhere")
	os.Mkdir(elsewhere, 0o755)
	cmd := exec.Command(reprise, "agents", "create", "--home", e.home.Dir, "--agent", "claude", "--resume-session", res.SessionID, "--json")
	cmd.Dir, cmd.Env = elsewhere, e.cliEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agents create: %v: %s", err, stderr.String())
	}
	var r api.CreateAgentResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("agents create output %q: %v", out, err)
	}
	waitFor(t, "claude relaunched", func() bool { return len(e.startRecords(t)) == 2 })
	if got := e.startRecords(t)[1].Cwd; got != e.work {
		t.Errorf("resumed claude started in %s, want the session's directory %s", got, e.work)
	}
	h2 := e.start(t)
	defer h2.Close()
	waitOutcome(t, h2, r.TerminalID, OutcomeResumed)
}

// Path 4: a resume of a session Reprise never saw leaves no history entry
// unless the agent confirms it; and a known session's failed resume shows
// in its last outcome.
func TestResumeOfUnknownSessionLeavesNoPhantom(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	const unknown = "0badc0de-1111-4222-8333-444455556666"
	res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", ResumeSessionID: unknown, Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, h, res.TerminalID, OutcomeFailed)
	waitBinding(t, h, res.TerminalID, "ended", func(b api.Binding) bool { return b.EndReason != "" })
	ss, err := h.Sessions(ctx, true, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.SessionID == unknown {
			t.Fatalf("a session the agent never confirmed is in the history: %+v", s)
		}
	}

	known, _, v := runPrompted(t, h, e, "claude", "ELM-8")
	v.Input(ctx, known.TerminalID, []byte("/exit\r"))
	waitBinding(t, h, known.TerminalID, "goodbye", func(b api.Binding) bool { return b.EndReason == bindings.Detached })
	os.Rename(e.work, e.work+".moved")
	defer os.Rename(e.work+".moved", e.work)
	if _, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", ResumeSessionID: known.SessionID, Cwd: e.work}); err == nil {
		t.Fatal("resume into a vanished directory succeeded")
	}
	ss, _ = h.Sessions(ctx, true, known.SessionID)
	if len(ss) != 1 || ss[0].LastOutcome != OutcomeFailed || !strings.Contains(ss[0].LastOutcomeDetail, "No such directory") {
		t.Fatalf("a failed resume is not the session's last outcome: %+v", ss)
	}
}

// Path 5: Codex's rollouts are found by their literal names, whatever
// characters the path holds.
func TestCodexTranscriptMatchedLiterally(t *testing.T) {
	e := newAgentEnv(t)
	h := e.startWith(t, "CODEX_HOME="+filepath.Join(e.userHome, "co[x]*dex"))
	defer h.Close()
	res, _, _ := runPrompted(t, h, e, "codex", "GLOB-5")
	killTerminal(t, h, res.TerminalID)
	b := waitBinding(t, h, res.TerminalID, "ended", func(b api.Binding) bool { return b.EndReason == bindings.TerminalExited })
	if !b.Candidate {
		t.Fatalf("the saved rollout was not found: %+v", b)
	}
}

func TestTranscriptCheckLiteralSessionID(t *testing.T) {
	home := t.TempDir()
	const id = "ab[x]*cd"
	dir := filepath.Join(home, ".codex", "sessions", "2026", "11", "29")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "rollout-2026-11-29T12-00-00-abxyzcd.jsonl"), []byte("{}\n"), 0o600) // a name the glob would match
	env := []string{"HOME=" + home}
	if saved, known, _ := transcriptCheck(env, "codex", id, "/w", ""); saved || !known {
		t.Fatalf("another session's rollout counted for %q: saved=%v known=%v", id, saved, known)
	}
	want := filepath.Join(dir, "rollout-2026-11-29T12-00-00-"+id+".jsonl")
	os.WriteFile(want, []byte("{}\n"), 0o600)
	if saved, _, p := transcriptCheck(env, "codex", id, "/w", ""); !saved || p != want {
		t.Fatalf("rollout of %q not found: saved=%v path=%s", id, saved, p)
	}
}

// Path 6: after a daemon loss whose pane's directory is gone, the pane does
// not offer a Resume that cannot work, and says why.
func TestCwdGoneOffersNoResumeThatCannotWork(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	proj := filepath.Join(e.home.Dir, "proj", "sub")
	os.MkdirAll(proj, 0o755)
	res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Prompt: "remember GONE-6", Cwd: proj})
	if err != nil {
		t.Fatal(err)
	}
	v := h.NewViewer()
	defer v.Close()
	waitText(t, attach(t, v, res.TerminalID), "ack: remember GONE-6")
	waitBinding(t, h, res.TerminalID, "prompted", func(b api.Binding) bool { return b.Prompted })
	os.RemoveAll(filepath.Join(e.home.Dir, "proj"))
	syscall.Kill(h.DaemonStatus().PID, syscall.SIGKILL)
	b := waitBinding(t, h, res.TerminalID, "ended", func(b api.Binding) bool { return b.EndReason == bindings.TerminalExited })
	if b.Candidate {
		t.Fatalf("Resume offered although %s is gone: %+v", proj, b)
	}
	if !strings.Contains(b.Unavailable, proj) || !strings.Contains(b.Unavailable, "gone") {
		t.Fatalf("unavailable %q does not say the folder is gone", b.Unavailable)
	}
	if _, err := h.Resume(ctx, res.TerminalID); err == nil || strings.Contains(err.Error(), "No such directory") {
		t.Fatalf("resume: %v, want the reason it can't work", err)
	}
	if b := binding(t, h, res.TerminalID); b.EndReason != bindings.TerminalExited || b.RecreateCwd != proj || !strings.Contains(b.Unavailable, "not the files") {
		t.Fatalf("the refused resume changed the binding, or no way forward is offered: %+v", b)
	}
	if f := forecastOf(h, res.TerminalID); f.Action != ActionCannot || !strings.Contains(f.Reason, "cwd gone") {
		t.Fatalf("restore summary for the pane: %+v", f)
	}
	// The way forward: recreate the folder and resume there.
	r, err := h.ResumeWith(ctx, api.ResumeRequest{TerminalID: res.TerminalID, RecreateCwd: true})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(proj); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Fatalf("recreated folder: %v %v", st, err)
	}
	waitText(t, attach(t, v, r.TerminalID), "ack: remember GONE-6")
	waitOutcome(t, h, r.TerminalID, OutcomeResumed)

	// Codex too finds its conversation again in the recreated folder
	// (confirmed with the real CLI: conformance TestCodex/cwd-gone).
	cdir := filepath.Join(e.home.Dir, "cproj")
	os.Mkdir(cdir, 0o755)
	cres, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "codex", Prompt: "remember GONE-7", Cwd: cdir})
	if err != nil {
		t.Fatal(err)
	}
	waitText(t, attach(t, v, cres.TerminalID), "ack: remember GONE-7")
	waitBinding(t, h, cres.TerminalID, "prompted", func(b api.Binding) bool { return b.Prompted && b.SessionID != "" })
	os.RemoveAll(cdir)
	killTerminal(t, h, cres.TerminalID)
	cb := waitBinding(t, h, cres.TerminalID, "ended", func(b api.Binding) bool { return b.EndReason == bindings.TerminalExited })
	if cb.Candidate || cb.RecreateCwd != cdir || !strings.Contains(cb.Unavailable, "is gone") {
		t.Fatalf("codex with its folder gone: %+v", cb)
	}
	cr, err := h.ResumeWith(ctx, api.ResumeRequest{TerminalID: cres.TerminalID, RecreateCwd: true})
	if err != nil {
		t.Fatal(err)
	}
	waitText(t, attach(t, v, cr.TerminalID), "ack: remember GONE-7")
}

// Recreating a vanished folder is offered only for the agents whose real
// CLI was seen to find its conversation there again (conformance
// */cwd-gone); for the others the banner only says the folder is gone.
func TestRecreateOfferedOnlyWhereConfirmed(t *testing.T) {
	for id, want := range map[string]bool{"claude": true, "codex": true, "gemini": true, "amp": false, "opencode": false, "my-agent": false} {
		if got := recreateRestores(id); got != want {
			t.Errorf("recreateRestores(%q) = %v, want %v", id, got, want)
		}
	}
}

// forecastOf is the host's last restore forecast for a terminal's pane.
func forecastOf(h *Host, tid string) PaneForecast {
	for _, f := range h.LastRestore().Panes {
		if f.TerminalID == tid {
			return f
		}
		if t, err := h.store.GetTerminal(context.Background(), f.TerminalID); err == nil && t.RestoredFrom == tid {
			return f
		}
	}
	return PaneForecast{}
}

// Path 3: restore-check applies the hook events still waiting in the inbox,
// without changing anything, and forecasts what the host then does.
func TestRestoreCheckAppliesPendingInbox(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	ctx := context.Background()
	first, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	waitBinding(t, h, first.TerminalID, "started", func(b api.Binding) bool { return b.LastEvent == bindings.KindSessionStart })
	cleared, _, _ := runPrompted(t, h, e, "claude", "CLR-1")
	exited, _, _ := runPrompted(t, h, e, "claude", "EXT-2")
	killed, _, _ := runPrompted(t, h, e, "claude", "HUP-3")
	quit, _, _ := runPrompted(t, h, e, "codex", "CDX-4")
	pids := map[string]int{}
	for _, s := range e.startRecords(t) {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(s.PID) + "/environ"); err == nil {
			for _, kv := range bytes.Split(b, []byte{0}) {
				if v, ok := bytes.CutPrefix(kv, []byte("REPRISE_TERMINAL_ID=")); ok {
					pids[string(v)] = s.PID
				}
			}
		}
	}
	daemon := h.DaemonStatus().PID
	h.Close()

	// While no host runs: a first prompt, a /clear and a prompt, a clean
	// exit of each agent, and a kill.
	cl, err := dialDaemon(e.home)
	if err != nil {
		t.Fatal(err)
	}
	cl.Input(first.TerminalID, []byte("first while down FIG-9\r"))
	cl.Input(cleared.TerminalID, []byte("/clear\r"))
	cl.Input(cleared.TerminalID, []byte("after clear PEAR-5\r"))
	cl.Input(exited.TerminalID, []byte("/exit\r"))
	cl.Input(quit.TerminalID, []byte("/quit\r"))
	syscall.Kill(pids[killed.TerminalID], syscall.SIGHUP)
	has := func(tid string, ok func(HookRecord) bool) func() bool {
		return func() bool {
			for _, r := range pendingFor(t, e, tid) {
				if ok(r) {
					return true
				}
			}
			return false
		}
	}
	exitRecorded := func(r HookRecord) bool { return r.Event.Kind == bindings.KindProcessExit }
	waitFor(t, "first prompt recorded", has(first.TerminalID, func(r HookRecord) bool { return r.Event.Kind == bindings.KindStop }))
	waitFor(t, "prompt after /clear recorded", has(cleared.TerminalID, func(r HookRecord) bool {
		return r.Event.Kind == bindings.KindStop && r.Event.SessionID != cleared.SessionID
	}))
	waitFor(t, "claude exit recorded", has(exited.TerminalID, exitRecorded))
	waitFor(t, "codex exit recorded", has(quit.TerminalID, exitRecorded))
	waitFor(t, "kill recorded", has(killed.TerminalID, exitRecorded))
	cl.Close()
	syscall.Kill(daemon, syscall.SIGKILL)
	waitQuiet(t, e.home.Dir)

	snapshot := func() (map[string][]byte, []bindings.Binding) {
		st, err := store.Open(ctx, e.home.DB(), slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		bs, err := st.ListBindings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return pendingRecords(t, e), bs
	}
	inboxBefore, bindingsBefore := snapshot()
	cmd := exec.Command(reprise, "restore-check", "--home", e.home.Dir, "--json")
	cmd.Env = e.cliEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("restore-check: %v: %s", err, stderr.String())
	}
	var check struct {
		Panes []PaneForecast `json:"panes"`
	}
	if err := json.Unmarshal(out, &check); err != nil {
		t.Fatalf("restore-check output %q: %v", out, err)
	}
	inboxAfter, bindingsAfter := snapshot()
	if !reflect.DeepEqual(inboxBefore, inboxAfter) {
		t.Fatalf("restore-check changed the inbox: %d records before, %d after", len(inboxBefore), len(inboxAfter))
	}
	if !reflect.DeepEqual(bindingsBefore, bindingsAfter) {
		t.Fatalf("restore-check changed the store:\n%+v\n%+v", bindingsBefore, bindingsAfter)
	}

	h2 := e.start(t)
	defer h2.Close()
	hostSaid := h2.LastRestore().Panes
	byTerm := map[string]PaneForecast{}
	for _, f := range check.Panes {
		byTerm[f.TerminalID] = f
	}
	for _, want := range []struct {
		name   string
		tid    string
		action string
	}{
		{"first prompt while down", first.TerminalID, ActionResume},
		{"/clear while down", cleared.TerminalID, ActionResume},
		{"claude /exit while down", exited.TerminalID, ActionFresh},
		{"codex /quit while down", quit.TerminalID, ActionFresh},
		{"killed while down", killed.TerminalID, ActionResume},
	} {
		if f := byTerm[want.tid]; f.Action != want.action {
			t.Errorf("%s: restore-check says %s (%s), want %s", want.name, f.Action, f.Reason, want.action)
		}
	}
	if f := byTerm[cleared.TerminalID]; f.SessionID == cleared.SessionID {
		t.Errorf("after /clear the forecast resumes the old session %s", f.SessionID)
	}
	if !reflect.DeepEqual(check.Panes, hostSaid) {
		a, _ := json.MarshalIndent(check.Panes, "", " ")
		b, _ := json.MarshalIndent(hostSaid, "", " ")
		t.Fatalf("restore-check's forecast differs from the host's at start:\nrestore-check: %s\nhost: %s", a, b)
	}
	// And the host does what it forecast: the first-prompt pane offers Resume.
	waitBinding(t, h2, first.TerminalID, "candidate", func(b api.Binding) bool { return b.Candidate })
	if b := binding(t, h2, cleared.TerminalID); !b.Candidate || b.SessionID == cleared.SessionID {
		t.Fatalf("after /clear: %+v", b)
	}
}

// Path 4 as the issue ran it: `reprise agents create --resume-session` of
// an id the agent does not know, then `reprise sessions list --all`.
func TestCLIResumeOfUnknownSessionLeavesNoPhantom(t *testing.T) {
	e := newAgentEnv(t)
	const unknown = "0badc0de-2222-4333-8444-555566667777"
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(reprise, append(args, "--home", e.home.Dir)...)
		cmd.Dir, cmd.Env = e.work, e.cliEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("reprise %s: %v: %s", strings.Join(args, " "), err, stderr.String())
		}
		return out
	}
	var r api.CreateAgentResult
	if err := json.Unmarshal(run("agents", "create", "--agent", "claude", "--resume-session", unknown, "--json"), &r); err != nil {
		t.Fatal(err)
	}
	// The agent fails ("No conversation found"); its exit is in the inbox
	// or already applied.
	waitFor(t, "the failed agent's exit recorded", func() bool {
		for _, rec := range pendingFor(t, e, r.TerminalID) {
			if rec.Event.Kind == bindings.KindProcessExit {
				return true
			}
		}
		// Or the in-process host applied it before it closed.
		st, err := store.Open(context.Background(), e.home.DB(), slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			return false
		}
		defer st.Close()
		b, err := st.GetBinding(context.Background(), r.TerminalID)
		return err == nil && b.Ended()
	})
	var ss []api.Session
	if err := json.Unmarshal(run("sessions", "list", "--all", "--json"), &ss); err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.SessionID == unknown {
			t.Fatalf("sessions list --all has the unknown id: %+v", s)
		}
	}
}

// An agent started inside the agent Reprise launched (Claude's Bash tool
// running codex) inherits the pane's REPRISE_TERMINAL_ID, so its hooks name
// this terminal. Its events took the binding over and its goodbye ended it;
// then killing Claude marked the nested Codex session interrupted (a banner
// offering `codex resume <its id>`) and Claude's own conversation was gone
// from the pane.
func TestNestedAgentDoesNotTakeTheLaunchedAgentsBinding(t *testing.T) {
	e := newAgentEnv(t)
	h := e.start(t)
	defer h.Close()
	ctx := context.Background()
	res, _, _ := runPrompted(t, h, e, "claude", "NESTED")
	outer := binding(t, h, res.TerminalID)
	nestedID := "0192f3a4-7b2c-7d3e-8f4a-5b6c7d8e9f00"
	for _, ev := range []payload.Event{
		{Agent: "codex", Name: "SessionStart", Kind: payload.KindSessionStart, SessionID: nestedID, Source: "startup", Cwd: e.work},
		{Agent: "codex", Name: "UserPromptSubmit", Kind: payload.KindPrompt, SessionID: nestedID, Prompted: true, Cwd: e.work},
		{Agent: "codex", Name: "SessionEnd", Kind: payload.KindSessionEnd, SessionID: nestedID, Reason: "other", Cwd: e.work},
	} {
		if err := h.handleHook(ctx, HookRecord{TerminalID: res.TerminalID, Event: ev, At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if b := binding(t, h, res.TerminalID); b.AgentID != "claude" || b.SessionID != outer.SessionID || b.EndReason != bindings.Live {
		t.Fatalf("after the nested agent's events: %s %s %q, want claude %s live", b.AgentID, b.SessionID, b.EndReason, outer.SessionID)
	}
	// Kill Claude itself; its wrapper reports 137 and the shell stays.
	pid := 0
	for _, s := range e.startRecords(t) {
		if len(s.Argv) > 0 && filepath.Base(s.Argv[0]) == "claude" {
			pid = s.PID
		}
	}
	if pid == 0 {
		t.Fatal("no claude start recorded")
	}
	syscall.Kill(pid, syscall.SIGKILL)
	b := waitBinding(t, h, res.TerminalID, "the binding ended", func(b api.Binding) bool { return b.EndReason != bindings.Live })
	if b.AgentID != "claude" || b.SessionID != outer.SessionID || b.EndReason != bindings.TerminalExited || !b.Candidate {
		t.Fatalf("Claude killed: %s %s %q candidate=%v, want claude %s terminal-exited, a candidate", b.AgentID, b.SessionID, b.EndReason, b.Candidate, outer.SessionID)
	}
}
