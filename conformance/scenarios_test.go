package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/hooks/install"
	"github.com/reprise-dev/reprise/sdk"
)

// profile is what the scenarios need to know about one CLI's TUI and
// hooks (AGENTS.md).
type profile struct {
	id         string
	ready      []string // on screen once the prompt accepts input
	exit       string   // the slash command that ends the session cleanly
	lazyID     bool     // the session id arrives only with the first prompt (Codex)
	promptHook string   // the hook that says a prompt was submitted
	transcript string   // where under HOME the CLI keeps its conversations
}

var profiles = map[string]profile{
	"claude": {id: "claude", ready: []string{"shift+tab to cycle", "? for shortcuts"}, exit: "/exit", promptHook: "UserPromptSubmit", transcript: ".claude/projects"},
	"codex":  {id: "codex", ready: []string{"Ask Codex to do anything"}, exit: "/quit", lazyID: true, promptHook: "UserPromptSubmit", transcript: ".codex/sessions"},
	"gemini": {id: "gemini", ready: []string{"Type your message"}, exit: "/quit", promptHook: "BeforeAgent", transcript: ".gemini/tmp"},
}

// Timeouts: generous for the real CLIs on a 2-core machine.
const (
	startTimeout = 60 * time.Second // a CLI shows its prompt
	turnTimeout  = 60 * time.Second // a turn completes against the stand-in
	hookTimeout  = 30 * time.Second // a hook reaches the binding
	endTimeout   = 45 * time.Second // a death reaches the binding (daemon restart + sweep)
)

// session is one agent launched through Reprise and prompted.
type session struct {
	p        profile
	run      api.CreateAgentResult
	tid      string
	id       string // the agent's session id as Reprise recorded it
	codeword string
	since    time.Time // hooks before this belong to an earlier session (/clear)
	disk     *diskWatch
}

// launch starts the CLI in a new pane and waits for its prompt. It checks
// what Reprise knows before any prompt: Claude and Gemini report their
// (pre-assigned) id through SessionStart at once; Codex reports nothing.
func launch(r *rig, p profile) session {
	r.t.Helper()
	res := r.run(api.CreateAgentRequest{})
	s := session{p: p, run: res, tid: res.TerminalID}
	checkHookInstall(r, res)
	if _, ok := r.tryShows(s.tid, startTimeout/2, p.ready...); !ok {
		// Seen about once in ten full runs (Codex, Gemini): the CLI's first
		// screen never reaches its own pane — once it was found in the
		// scrollback of the home's other (shell) pane. Not understood yet;
		// logged loudly, the evidence kept, and the launch tried once more.
		r.dumpArtifacts()
		r.dumpProcesses()
		r.t.Logf("ANOMALY: %s drew nothing in its pane %s within %s; artifacts saved; relaunching once", p.id, s.tid, startTimeout/2)
		r.res.note("first launch drew nothing in its pane (anomaly, relaunched)")
		_ = r.h.CloseTerminal(context.Background(), s.tid)
		res = r.run(api.CreateAgentRequest{})
		s = session{p: p, run: res, tid: res.TerminalID}
		checkHookInstall(r, res)
		r.waitShows(s.tid, startTimeout, p.ready...)
	}
	if p.lazyID {
		time.Sleep(1500 * time.Millisecond) // a SessionStart, if one were coming, would have run by now
		if b := r.binding(s.tid); b.SessionID != "" {
			r.t.Errorf("%s: session id %q known before the first prompt", p.id, b.SessionID)
		}
		if n := len(r.calls(s.tid)); n != 0 {
			r.t.Errorf("%s ran hooks before the first prompt: %s", p.id, r.hookSummary(s.tid))
		}
		r.res.note("before the first prompt: no hook, no session id")
	} else {
		b := r.waitBinding(s.tid, "SessionStart", hookTimeout, func(b api.Binding) bool { return b.SessionID != "" && b.LastEvent == bindings.KindSessionStart })
		if res.SessionID != "" && b.SessionID != res.SessionID {
			r.t.Errorf("%s: SessionStart reported %s, not the id Reprise pre-assigned (%s)", p.id, b.SessionID, res.SessionID)
		}
		if res.SessionID != "" {
			r.res.note("pre-assigned id honoured")
		}
		s.id = b.SessionID
	}
	time.Sleep(500 * time.Millisecond) // the prompt box takes keys a moment after it is drawn
	return s
}

// checkHookInstall: the hooks the CLI runs are the ones Reprise put in
// place itself — Claude's per-launch --settings file, Codex's and Gemini's
// own config — each holding Reprise's guarded command.
func checkHookInstall(r *rig, res api.CreateAgentResult) {
	r.t.Helper()
	var path string
	switch r.cli.ID {
	case "claude":
		i := slices.Index(res.Argv, "--settings")
		if i < 0 || i+1 >= len(res.Argv) {
			r.t.Fatalf("claude launched without --settings: %q", res.Argv)
		}
		path = res.Argv[i+1]
	default:
		a, err := r.h.Agent(context.Background(), r.cli.ID)
		if err != nil {
			r.t.Fatal(err)
		}
		if a.Hooks == nil || !a.Hooks.Installed {
			r.t.Fatalf("%s hooks not installed by Reprise: %+v", r.cli.ID, a.Hooks)
		}
		path = a.Hooks.Path
	}
	b, err := os.ReadFile(path)
	if err != nil {
		r.t.Fatalf("hook config: %v", err)
	}
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	e.Encode(install.Command(exe, r.cli.ID, "SessionStart"))
	want := strings.TrimSpace(enc.String())
	if !strings.Contains(string(b), want) {
		r.t.Fatalf("%s holds no Reprise SessionStart hook %s", path, want)
	}
	if r.res.hookConfig == "" {
		where := path
		if rel, ok := strings.CutPrefix(path, r.userHome+"/"); ok {
			where = "~/" + rel
		} else if rel, ok := strings.CutPrefix(path, r.root+"/"); ok {
			where = "$REPRISE_HOME/" + rel
		}
		r.res.hookConfig = where
		r.res.note("hooks installed by Reprise: %s", where)
	}
}

// prompt types a prompt with a codeword and waits for the turn: a reply
// from the stand-in, or (closed port) the prompt hook.
func prompt(r *rig, s *session, prefix string) {
	r.t.Helper()
	s.codeword = codeword(prefix)
	before := r.binding(s.tid).SessionID
	s.disk = watchDisk(r, s.p.transcript, s.codeword)
	seen := r.count(s.tid, s.p.promptHook)
	r.submitLine(s.tid, "Please remember the codeword "+s.codeword+".", func() bool { return r.count(s.tid, s.p.promptHook) > seen })
	if r.replies() {
		r.waitShows(s.tid, turnTimeout, ReplyMarker+": I will remember "+s.codeword)
		if !r.model.SawPrompt(s.codeword) {
			r.t.Errorf("the stand-in never got a turn with %s", s.codeword)
		}
	}
	r.waitHook(s.tid, s.p.promptHook, hookTimeout)
	b := r.waitBinding(s.tid, "prompted", hookTimeout, func(b api.Binding) bool { return b.Prompted && b.SessionID != "" })
	if s.p.lazyID && before == "" {
		r.res.note("session id arrived with the first prompt")
	}
	if s.id != "" && b.SessionID != s.id {
		r.t.Errorf("session id changed with the prompt: %s → %s", s.id, b.SessionID)
	}
	s.id = b.SessionID
	checkHookIDs(r, s.tid, s.id, s.since)
}

// onDisk waits until the CLI has the turn (the prompt, and the reply when
// a stand-in answered) in its own transcript — a person reads the reply
// before anything kills the terminal — and notes how long after the prompt
// hook each reached the disk: a kill inside that window loses it (see
// scenarioKillAtOnce).
func onDisk(r *rig, s session) {
	r.t.Helper()
	hook := r.waitHook(s.tid, s.p.promptHook, hookTimeout)
	r.waitFor("the turn in the CLI's transcript", turnTimeout, func() bool {
		p, rep := s.disk.seen()
		return !p.IsZero() && (!r.replies() || !rep.IsZero())
	})
	p, rep := s.disk.seen()
	msg := fmt.Sprintf("prompt on disk %+.1fs after the prompt hook", p.Sub(hook.At).Seconds())
	if r.replies() {
		msg += fmt.Sprintf(", reply %+.1fs", rep.Sub(hook.At).Seconds())
	}
	r.res.note("%s", msg)
}

// diskWatch notes when a codeword, and the stand-in's reply to it, first
// appear in a file under a CLI's transcript directory.
type diskWatch struct {
	mu            sync.Mutex
	prompt, reply time.Time
}

func watchDisk(r *rig, dir, codeword string) *diskWatch {
	w := &diskWatch{}
	stop := make(chan struct{})
	r.t.Cleanup(func() { close(stop) })
	reply := ReplyMarker + ": I will remember " + codeword
	go func() {
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			filepath.WalkDir(filepath.Join(r.userHome, dir), func(path string, d os.DirEntry, err error) error {
				// Gemini's logs.json is its input history, not the conversation.
				if err != nil || d.IsDir() || d.Name() == "logs.json" {
					return nil
				}
				b, err := os.ReadFile(path)
				if err != nil || len(b) > 16<<20 {
					return nil
				}
				now := time.Now()
				w.mu.Lock()
				if w.prompt.IsZero() && strings.Contains(string(b), codeword) {
					w.prompt = now
				}
				if w.reply.IsZero() && strings.Contains(string(b), reply) {
					w.reply = now
				}
				w.mu.Unlock()
				return nil
			})
			if p, rep := w.seen(); !p.IsZero() && !rep.IsZero() {
				return
			}
		}
	}()
	return w
}

func (w *diskWatch) seen() (prompt, reply time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.prompt, w.reply
}

// checkHookIDs: every hook the agent ran in the terminal (since a time)
// carried the id Reprise recorded.
func checkHookIDs(r *rig, tid, id string, since time.Time) {
	r.t.Helper()
	for _, c := range r.calls(tid) {
		if c.At.Before(since) {
			continue
		}
		if c.SessionID != "" && c.SessionID != id {
			r.t.Errorf("hook %s carried session %s, Reprise recorded %s", c.Event, c.SessionID, id)
		}
	}
}

// record fills the result row from what the spy and the store saw.
func record(r *rig, tids ...string) {
	var hooks, ids, exits []string
	for _, tid := range tids {
		hooks = append(hooks, r.hookSummary(tid))
		for _, id := range r.hookIDs(tid) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		if st := r.exitStatus(tid); st != nil {
			exits = append(exits, fmt.Sprint(*st))
		} else if tm, err := r.h.Terminal(context.Background(), tid); err == nil && tm.Status != api.StatusRunning {
			switch {
			case tm.ExitSignal != "":
				exits = append(exits, "not reported (terminal killed by "+tm.ExitSignal+")")
			case tm.Status == api.StatusLost:
				exits = append(exits, "not reported (terminal lost with the daemon)")
			default:
				exits = append(exits, "not reported")
			}
		} else {
			exits = append(exits, "(running)")
		}
	}
	r.res.Hooks = strings.Join(hooks, " ⟶ ")
	r.res.Sessions = strings.Join(ids, ", ")
	r.res.Exit = strings.Join(exits, " ⟶ ")
}

func recordBinding(r *rig, b api.Binding) {
	r.res.Recorded = b.SessionID
	r.res.EndReason = b.EndReason
	if b.EndReason == "" {
		r.res.EndReason = "live"
	}
	r.res.Candidate = "no"
	if b.Candidate {
		r.res.Candidate = "yes"
	} else if b.Unavailable != "" {
		r.res.Candidate = "no: " + b.Unavailable
	}
}

// waitEnded waits until the binding has an end reason, then a little more
// so late hooks (a death gasp) are applied, and returns it.
func waitEnded(r *rig, tid string) api.Binding {
	r.t.Helper()
	r.waitBinding(tid, "an end reason", endTimeout, func(b api.Binding) bool { return b.EndReason != "" })
	time.Sleep(2 * time.Second)
	return r.binding(tid)
}

func expectCandidate(r *rig, s session, b api.Binding) {
	r.t.Helper()
	if b.EndReason != bindings.TerminalExited || !b.Candidate {
		r.t.Fatalf("want a resume candidate (terminal-exited), got %s", fmtBinding(b))
	}
	if b.SessionID != s.id {
		r.t.Fatalf("candidate has session %s, the CLI's was %s", b.SessionID, s.id)
	}
}

// resumeAndCheck presses Resume and checks the real CLI brings the
// conversation back in the same pane: the codeword (and, with a stand-in,
// the model's reply) on screen, the session id unchanged.
func resumeAndCheck(r *rig, s session, samePane bool) api.ResumeResult {
	r.t.Helper()
	return checkResumed(r, s, samePane, r.resume(s.tid))
}

func checkResumed(r *rig, s session, samePane bool, res api.ResumeResult) api.ResumeResult {
	r.t.Helper()
	r.screen(res.TerminalID)
	nb := r.binding(res.TerminalID)
	// Bound at once, before any hook: Reprise launched it with the id.
	if nb.SessionID != s.id || !nb.Prompted {
		r.t.Errorf("the resumed terminal's binding right after launch: %s, want session %s", fmtBinding(nb), s.id)
	} else if n := len(r.calls(res.TerminalID)); n == 0 {
		r.res.note("resumed terminal bound to the id at launch, before any hook")
	}
	if res.SessionID != s.id {
		r.t.Errorf("resumed session %s, want %s", res.SessionID, s.id)
	}
	if !slices.Contains(res.Argv, s.id) {
		r.t.Errorf("resume argv %q lacks the session id", res.Argv)
	}
	want := []string{s.codeword}
	if r.replies() {
		want = append(want, ReplyMarker+": I will remember "+s.codeword)
	}
	for _, w := range want {
		r.waitShows(res.TerminalID, startTimeout, w)
	}
	r.res.AfterResume = "codeword on screen"
	if r.replies() {
		r.res.AfterResume = "codeword and reply on screen"
	}
	if samePane && res.PaneID != s.run.PaneID {
		r.res.AfterResume += ", but in another pane"
		r.t.Errorf("resumed into pane %s, want the interrupted pane %s", res.PaneID, s.run.PaneID)
	} else if samePane {
		r.res.AfterResume += ", same pane"
	}
	if old := r.binding(s.tid); old.EndReason != bindings.Resumed || old.Candidate {
		r.t.Errorf("the interrupted binding after resume: %s, want resumed", fmtBinding(old))
	}
	// The resumed CLI keeps the session: still live under the same id once
	// its hooks ran.
	time.Sleep(1 * time.Second)
	if b := r.binding(res.TerminalID); b.SessionID != s.id || b.EndReason != "" {
		r.t.Errorf("resumed binding: %s, want live session %s", fmtBinding(b), s.id)
	}
	checkHookIDs(r, res.TerminalID, s.id, time.Time{})
	noteOutcome(r, res.TerminalID, "after resume")
	return res
}

// noteOutcome records the resume outcome Reprise shows in the pane
// (resuming / resumed / fresh / failed / unconfirmed). "resumed" needs the
// agent's own confirmation (SessionStart source resume, same id).
func noteOutcome(r *rig, tid, when string) string {
	b := r.binding(tid)
	o := b.Outcome
	if o == "" {
		o = "none"
	}
	r.res.note("outcome %s: %s", when, o)
	return o
}

// followUp prompts the resumed CLI again and checks the model got the old
// turn as context: the conversation itself came back, not just the screen.
func followUp(r *rig, s session, tid string) {
	r.t.Helper()
	if !r.replies() {
		return
	}
	r.waitShows(tid, startTimeout, s.p.ready...)
	time.Sleep(500 * time.Millisecond)
	next := codeword("FOLLOW")
	r.typeLine(tid, "And now "+next+".")
	r.waitShows(tid, turnTimeout, ReplyMarker+": I will remember "+next)
	for _, q := range r.model.Turns() {
		if strings.Contains(q.Prompt, next) {
			if !strings.Contains(q.History, s.codeword) {
				r.t.Errorf("the turn after resume did not carry the old conversation (no %s in what the model got)", s.codeword)
			} else {
				r.res.AfterResume += "; the next turn carried the old one"
			}
			time.Sleep(time.Second)
			noteOutcome(r, tid, "after the next prompt")
			return
		}
	}
	r.t.Errorf("the stand-in never got the follow-up turn")
}

// ---------------------------------------------------------------------------
// Scenarios shared by the three CLIs.

// killTerminal: prompt with a codeword → kill -9 agent and shell →
// candidate → Resume → the codeword in the same pane.
func scenarioKillTerminal(t *testing.T, id string) {
	p := profiles[id]
	r := newRig(t, id, "kill -9 agent and shell → Resume", rigOptions{})
	s := launch(r, p)
	prompt(r, &s, "PAPAYA")
	onDisk(r, s)
	r.killTerminal(s.tid)
	b := waitEnded(r, s.tid)
	record(r, s.tid)
	recordBinding(r, b)
	expectCandidate(r, s, b)
	res := resumeAndCheck(r, s, true)
	followUp(r, s, res.TerminalID)
	record(r, s.tid, res.TerminalID)
}

// killDaemon: kill -9 the pty daemon → every pty hangs up. Claude and
// Gemini say goodbye (SessionEnd) on SIGHUP; Codex says nothing. Either
// way the binding must be a candidate.
func scenarioKillDaemon(t *testing.T, id string) {
	p := profiles[id]
	r := newRig(t, id, "kill -9 the daemon → Resume (local API)", rigOptions{})
	s := launch(r, p)
	prompt(r, &s, "KIWI")
	onDisk(r, s)
	r.killDaemon()
	b := waitEnded(r, s.tid)
	record(r, s.tid)
	recordBinding(r, b)
	if n := r.count(s.tid, "SessionEnd"); n > 0 {
		r.res.note("death gasp: %d SessionEnd on the hang-up", n)
	} else {
		r.res.note("no SessionEnd on the hang-up")
	}
	r.res.note("exit status unknown: the wrapper shell died of the same hang-up")
	expectCandidate(r, s, b)
	// This time through the local API, as the app's banner and the CLI do.
	c, err := sdk.Connect(context.Background(), r.root)
	if err != nil {
		t.Fatal(err)
	}
	cands, err := c.ResumeCandidates(context.Background())
	if err != nil || !slices.ContainsFunc(cands, func(x api.Binding) bool { return x.TerminalID == s.tid && x.SessionID == s.id }) {
		t.Fatalf("candidates over the local API: %+v %v", cands, err)
	}
	rr, err := c.Resume(context.Background(), s.tid)
	if err != nil {
		t.Fatalf("resume over the local API: %v", err)
	}
	res := checkResumed(r, s, true, rr)
	record(r, s.tid, res.TerminalID)
}

// exitCleanly: /exit (/quit) → no candidate; the session is still listed
// as resumable on demand, and resuming it from the list brings it back,
// bound to its id at once.
func scenarioExit(t *testing.T, id string) *rig {
	p := profiles[id]
	r := newRig(t, id, p.exit+" → no banner; resumable on demand", rigOptions{})
	s := launch(r, p)
	prompt(r, &s, "PEAR")
	onDisk(r, s)
	r.exitAgent(s.tid, p.exit)
	r.waitBinding(s.tid, "detached", endTimeout, func(b api.Binding) bool { return b.EndReason != "" })
	time.Sleep(2 * time.Second) // stragglers (Gemini's repeated SessionEnd) arrive
	b := r.binding(s.tid)
	record(r, s.tid)
	recordBinding(r, b)
	if b.EndReason != bindings.Detached || b.Candidate {
		r.t.Fatalf("after %s: %s, want detached without a banner", p.exit, fmtBinding(b))
	}
	if st := r.exitStatus(s.tid); st == nil || *st != 0 {
		r.t.Errorf("exit status after %s: %v, want 0", p.exit, st)
	}
	res := resumeOnDemand(r, s)
	record(r, s.tid, res.TerminalID)
	return r
}

// resumeOnDemand: a session that ended with a goodbye is listed by
// `reprise sessions list --all` as resumable (no banner), and resuming it
// from there, in its own pane, brings the codeword back.
func resumeOnDemand(r *rig, s session) api.CreateAgentResult {
	r.t.Helper()
	// `reprise sessions list --all` offers it.
	var found *api.Session
	for _, x := range r.sessionsAll() {
		if x.SessionID == s.id {
			found = &x
			break
		}
	}
	if found == nil || !found.Resumable || found.Live || found.Candidate {
		r.t.Fatalf("sessions list --all: %+v, want session %s resumable, not live, no banner", found, s.id)
	}
	r.res.note("`sessions list --all`: resumable")
	// Resume on demand, in the same pane (Sessions → Resume here).
	res := r.run(api.CreateAgentRequest{ResumeSessionID: s.id, PaneID: s.run.PaneID})
	if nb := r.binding(res.TerminalID); nb.SessionID != s.id || !nb.Prompted {
		r.t.Errorf("binding right after launching resume %s: %s", s.id, fmtBinding(nb))
	} else {
		r.res.note("resumed on demand: bound to %s at launch", shortID(s.id))
	}
	r.waitShows(res.TerminalID, startTimeout, s.codeword)
	r.waitShows(res.TerminalID, startTimeout, ReplyMarker+": I will remember "+s.codeword)
	r.res.AfterResume = "on demand: codeword and reply on screen"
	return res
}

// neverPrompted: start, kill -9 before any prompt → no banner, and Resume
// refuses.
func scenarioNeverPrompted(t *testing.T, id string) {
	p := profiles[id]
	r := newRig(t, id, "never prompted, kill -9 → no banner", rigOptions{})
	s := launch(r, p)
	r.killTerminal(s.tid)
	b := waitEnded(r, s.tid)
	record(r, s.tid)
	recordBinding(r, b)
	if b.Candidate {
		r.t.Fatalf("a never-prompted session shows the banner: %s", fmtBinding(b))
	}
	if b.EndReason != bindings.TerminalExited {
		r.t.Errorf("end reason %q, want terminal-exited", b.EndReason)
	}
	if _, err := r.h.Resume(context.Background(), s.tid); err == nil {
		r.t.Errorf("Resume of a never-prompted session was accepted")
	} else {
		r.res.note("Resume refused: %s", err)
	}
}

// closedPort: the model API's port is closed, so the turn fails (or, for
// Gemini, keeps retrying), but the prompt is recorded: kill -9 →
// candidate → Resume shows the prompt.
func scenarioClosedPort(t *testing.T, id string, settle func(r *rig, s session)) {
	p := profiles[id]
	r := newRig(t, id, "model API port closed: kill -9 → Resume", rigOptions{closedPort: true})
	s := launch(r, p)
	prompt(r, &s, "LIME")
	if settle != nil {
		settle(r, s)
	}
	r.killTerminal(s.tid)
	b := waitEnded(r, s.tid)
	record(r, s.tid)
	recordBinding(r, b)
	expectCandidate(r, s, b)
	res := resumeAndCheck(r, s, true)
	record(r, s.tid, res.TerminalID)
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}

// killAtOnce: kill -9 the moment the turn's last hook ran, before the CLI
// may have written the turn to disk (Claude Code writes its transcript
// about 1.5 s after the prompt). Reprise cannot see that from the hooks;
// what it must do is tell the truth afterwards: if the CLI does not bring
// the conversation back, the resume outcome says so (failed or fresh),
// never "resumed".
func scenarioKillAtOnce(t *testing.T, id, doneHook string) {
	p := profiles[id]
	r := newRig(t, id, "kill -9 right after the reply → Resume", rigOptions{})
	s := launch(r, p)
	prompt(r, &s, "FIG")
	r.waitHook(s.tid, doneHook, hookTimeout)
	pr, rep := s.disk.seen()
	saved := !pr.IsZero() && !rep.IsZero()
	r.killTerminal(s.tid)
	r.res.note("on disk at the kill: prompt %v, reply %v", !pr.IsZero(), !rep.IsZero())
	b := waitEnded(r, s.tid)
	record(r, s.tid)
	recordBinding(r, b)
	if !b.Candidate {
		r.res.note("no banner")
		return
	}
	res := r.resume(s.tid)
	sc := r.screen(res.TerminalID)
	var o api.Binding
	r.waitFor("the codeword back, or the resume failed", startTimeout, func() bool {
		o = r.binding(res.TerminalID)
		return sc.Shows(s.codeword) || o.Outcome == "failed" || o.Outcome == "fresh"
	})
	time.Sleep(2 * time.Second)
	o = r.binding(res.TerminalID)
	record(r, s.tid, res.TerminalID)
	promptBack := sc.Shows(s.codeword)
	replyBack := sc.Shows(ReplyMarker + ": I will remember " + s.codeword)
	switch {
	case replyBack:
		r.res.AfterResume = "codeword and reply on screen"
	case promptBack:
		r.res.AfterResume = "the prompt came back, the reply was lost"
	default:
		r.res.AfterResume = "conversation lost"
	}
	r.res.AfterResume += fmt.Sprintf("; outcome %s", o.Outcome)
	if o.Outcome != "resumed" && o.OutcomeDetail != "" {
		r.res.AfterResume += ": " + lastLine(o.OutcomeDetail)
	}
	// Reprise tells the truth: "resumed" only with the conversation back.
	if o.Outcome == "resumed" && !promptBack {
		r.t.Errorf("outcome resumed, but the conversation is not on screen")
	}
	if saved && !replyBack {
		r.t.Errorf("the turn was on disk at the kill, yet the resume did not bring it back (outcome %s %s)", o.Outcome, o.OutcomeDetail)
	}
}

// agentHangup: SIGHUP to the agent's processes alone; its shell survives
// and the launch wrapper reports the exit status. Claude says goodbye and
// exits 129, Codex exits 129 silently: a kill by status (≥ 128), so a
// candidate at once. Gemini says goodbye three times and exits 0: a clean
// exit by status, so the binding is detached — until the terminal dies
// within the death-gasp window, which makes that goodbye a kill.
func scenarioAgentHangup(t *testing.T, id string) {
	p := profiles[id]
	r := newRig(t, id, "SIGHUP to the agent alone (shell survives) → Resume", rigOptions{})
	s := launch(r, p)
	prompt(r, &s, "MANGO")
	onDisk(r, s)
	shell := r.terminal(s.tid).PID
	kids := descendants(shell)
	if len(kids) == 0 {
		t.Fatalf("no agent process under the shell %d", shell)
	}
	for _, pid := range kids {
		syscall.Kill(pid, syscall.SIGHUP)
	}
	exit := r.waitHook(s.tid, "process-exit", endTimeout)
	b := waitEnded(r, s.tid)
	r.res.note("SIGHUP: %d SessionEnd, exit %s → %s", r.count(s.tid, "SessionEnd"), strings.TrimPrefix(exit.Detail, "status "), b.EndReason)
	if tm := r.terminal(s.tid); tm.Status != api.StatusRunning {
		t.Errorf("the shell did not survive the agent: %s", tm.Status)
	}
	if st := r.exitStatus(s.tid); st != nil && *st < 128 {
		// Gemini exits 0 on SIGHUP, with the same SessionEnd(exit) as /quit:
		// nothing tells this kill from a goodbye, and the exit status is the
		// ground truth (docs/decisions.md), so no banner — the conversation
		// is not lost: it stays resumable on demand from Sessions. (A real
		// hang-up kills the wrapper shell too, which then reports no status:
		// kill-daemon and hangup, a candidate.)
		record(r, s.tid)
		recordBinding(r, b)
		if b.EndReason != bindings.Detached || b.Candidate {
			t.Fatalf("exit status %d after SIGHUP: %s, want a goodbye (detached, no banner)", *st, fmtBinding(b))
		}
		r.res.note("exit status %d: a goodbye by status (indistinguishable from %s), no banner", *st, p.exit)
		res := resumeOnDemand(r, s)
		record(r, s.tid, res.TerminalID)
		return
	}
	record(r, s.tid)
	recordBinding(r, b)
	expectCandidate(r, s, b)
	res := resumeAndCheck(r, s, true)
	record(r, s.tid, res.TerminalID)
}

// descendants lists the processes below pid, children first.
func descendants(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], n)
			}
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			out = append(out, c)
			walk(c)
		}
	}
	walk(pid)
	return out
}

// cwdGone: prompt with a codeword → kill -9 agent and shell → the project
// folder is deleted. Reprise must not offer a Resume that fails ("No such
// directory"); where the agent keeps its conversation by folder path and
// finds it again in a recreated empty folder, it offers "Recreate folder
// and resume", and that brings the codeword back in the same pane. Whether
// the CLI really does find it again is checked here, with the real CLI,
// for every agent: one Reprise does not offer it for is tried by hand
// (folder recreated, then Resume), and a conversation that comes back
// there is reported as a missed offer.
func scenarioCwdGone(t *testing.T, id string) {
	p := profiles[id]
	r := newRig(t, id, "folder deleted → no Resume that fails; recreate folder → conversation back", rigOptions{})
	s := launch(r, p)
	prompt(r, &s, "FIG")
	onDisk(r, s)
	r.killTerminal(s.tid)
	waitEnded(r, s.tid)
	if err := os.RemoveAll(r.work); err != nil {
		t.Fatal(err)
	}
	b := r.binding(s.tid)
	record(r, s.tid)
	recordBinding(r, b)
	if b.Candidate || b.Unavailable == "" {
		t.Fatalf("folder gone: %s (unavailable %q), want no Resume offer and a reason", fmtBinding(b), b.Unavailable)
	}
	r.res.note("folder gone: no Resume; banner says %q", b.Unavailable)
	if b.RecreateCwd != "" {
		if b.RecreateCwd != r.work {
			t.Errorf("recreate offers %s, want %s", b.RecreateCwd, r.work)
		}
		rr, err := r.h.ResumeWith(context.Background(), api.ResumeRequest{TerminalID: s.tid, RecreateCwd: true})
		if err != nil {
			t.Fatalf("recreate folder and resume: %v", err)
		}
		if st, err := os.Stat(r.work); err != nil || !st.IsDir() {
			t.Fatalf("folder not recreated: %v", err)
		}
		res := checkResumed(r, s, true, rr)
		r.res.note("recreate folder and resume: conversation back")
		record(r, s.tid, res.TerminalID)
		return
	}
	// Not offered: recreate the folder by hand and resume, to learn whether
	// the offer was wrongly withheld.
	if err := os.MkdirAll(r.work, 0o700); err != nil {
		t.Fatal(err)
	}
	b = r.binding(s.tid)
	if !b.Candidate {
		t.Fatalf("folder recreated by hand: %s, want a candidate again", fmtBinding(b))
	}
	rr := r.resume(s.tid)
	r.screen(rr.TerminalID)
	if _, back := r.tryShows(rr.TerminalID, startTimeout, s.codeword); back {
		t.Errorf("%s brought the conversation back in a recreated folder, but Reprise offered no 'Recreate folder and resume'", id)
	} else {
		r.res.note("folder recreated by hand: the conversation did not come back (no offer is right)")
	}
	record(r, s.tid, rr.TerminalID)
}
