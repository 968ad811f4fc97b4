package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/backend/store"
	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
)

// paneOf is the pane showing terminal id.
func paneOf(t *testing.T, h *Host, id string) string {
	t.Helper()
	p, err := h.store.PaneIDForTerminal(context.Background(), id)
	if err != nil || p == "" {
		t.Fatalf("pane of %s: %q, %v", id, p, err)
	}
	return p
}

// newTerminals is the terminals of l that are not in before.
func newTerminals(l *api.Layout, before map[string]bool) []string {
	var out []string
	for _, p := range layout.Panes(l) {
		if !before[p.TerminalID] {
			out = append(out, p.TerminalID)
		}
	}
	return out
}

func layoutTerminals(t *testing.T, h *Host) map[string]bool {
	t.Helper()
	l, err := h.Layout(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]bool{}
	for _, p := range layout.Panes(l) {
		m[p.TerminalID] = true
	}
	return m
}

// Splitting a remote pane, or a new tab while it has the focus, opens the
// new shell on the same host in the directory the pane's shell is in now —
// which only that host's daemon can tell. (It used to open a shell on this
// machine, with the directory read from this machine's /proc by the remote
// process's pid.)
func TestRemoteSplitAndNewTabStartWhereThePaneIs(t *testing.T) {
	h, _, _ := remoteHost(t)
	ctx := context.Background()
	before := layoutTerminals(t, h)
	l, err := h.NewTabOn(ctx, "box", "")
	if err != nil {
		t.Fatal(err)
	}
	ids := newTerminals(l, before)
	if len(ids) != 1 {
		t.Fatalf("new tab on box: terminals %v", ids)
	}
	rid := ids[0]
	v := h.NewViewer()
	defer v.Close()
	scr := attach(t, v, rid)
	dir := t.TempDir()
	if err := v.Input(ctx, rid, []byte("cd '"+dir+"' && echo cd-done-$((6*7))\n")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the cd", 20*time.Second, func() bool { return strings.Contains(scr.String(), "cd-done-42") })

	check := func(what string, l *api.Layout, before map[string]bool) {
		t.Helper()
		ids := newTerminals(l, before)
		if len(ids) != 1 {
			t.Fatalf("%s: new terminals %v", what, ids)
		}
		nt, err := h.store.GetTerminal(ctx, ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if nt.Host != "box" || nt.Cwd != dir {
			t.Fatalf("%s: new terminal on host %q in %q; want box, %q", what, nt.Host, nt.Cwd, dir)
		}
	}
	before = layoutTerminals(t, h)
	l, err = h.Split(ctx, paneOf(t, h, rid), api.DirRow)
	if err != nil {
		t.Fatal(err)
	}
	check("split", l, before)

	if _, err := h.Focus(ctx, paneOf(t, h, rid)); err != nil {
		t.Fatal(err)
	}
	before = layoutTerminals(t, h)
	if l, err = h.NewTab(ctx, ""); err != nil {
		t.Fatal(err)
	}
	check("new tab here", l, before)

	// The host's poll records the remote directory too (pane titles, a
	// restore after a crash).
	waitUntil(t, "the remote cwd recorded", 20*time.Second, func() bool {
		tm, err := h.store.GetTerminal(ctx, rid)
		return err == nil && tm.Cwd == dir
	})
}

// The resume check of a remote binding looks for the transcript on the
// remote (its daemon stats it): no conversation saved there, no banner;
// saved there, the banner — and the restore forecast says the same per
// host, with the host on its line. A host that cannot be reached is
// "unknown", with why, within the bound; never a guess.
func TestRemoteResumeCheckAndForecastAskTheRemote(t *testing.T) {
	h, s, rh := remoteHost(t)
	ctx := context.Background()
	work := t.TempDir()
	const sid = "0b6f3c2e-remote-check"
	term, b := endedRemoteBinding(t, h, "claude", sid, work)
	line := func() PaneForecast { t.Helper(); return forecastLine(t, h, term.ID) }

	ok, why := h.candidate(ctx, b)
	if ok || !strings.Contains(why, "saved no conversation") || !strings.Contains(why, "on box") {
		t.Fatalf("no transcript on the remote: candidate %v, %q", ok, why)
	}
	f := line()
	if f.Host != "box" || f.Action != ActionCannot || !strings.Contains(f.Reason, "transcript missing") || !strings.Contains(f.Reason, "on box") {
		t.Fatalf("forecast without a transcript: %+v", f)
	}

	// Claude saved it, on the remote (CLAUDE_CONFIG_DIR of the ssh session there).
	tp := filepath.Join(rh, "claude-config", "projects", nonAlnum.ReplaceAllString(work, "-"), sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(tp), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tp, []byte(`{"type":"user"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, why := h.candidate(ctx, b); !ok {
		t.Fatalf("transcript on the remote: no candidate (%q)", why)
	}
	f = line()
	if f.Host != "box" || f.Action != ActionResume || f.Transcript != tp || len(f.Argv) == 0 || f.Argv[0] != filepath.Join(fakeBin, "claude") {
		t.Fatalf("forecast with the transcript: %+v", f)
	}

	// restore-check's way (no host running it): the running daemon of each
	// host, never started; one host unreachable says so, per pane.
	dead := addDeadHost(t, h, s, "/")
	fs, d := restoreCheck(t, h)
	if d > 30*time.Second {
		t.Fatalf("restore-check's remote part took %s", d)
	}
	var sawBox, sawDead bool
	for _, f := range fs {
		switch f.TerminalID {
		case term.ID:
			sawBox = true
			if f.Host != "box" || f.Action != ActionResume {
				t.Errorf("restore-check, box: %+v", f)
			}
		case dead.ID:
			sawDead = true
			if f.Host != "dead" || f.Action != ActionUnknown || !strings.HasPrefix(f.Reason, "cannot reach dead: ") {
				t.Errorf("restore-check, unreachable host: %+v", f)
			}
		}
	}
	if !sawBox || !sawDead {
		t.Fatalf("lines: %+v", fs)
	}
	if sum := Summary(fs); !strings.Contains(sum, "1 unknown") {
		t.Errorf("summary %q", sum)
	}
}

// At a host start the remote links are not up yet: the start's forecast
// lines of a remote host are replaced by that host's daemon's answers when
// it first connects (a terminal still running there: attach), and a host
// whose first connect fails says why — never a guess, never left at
// "connecting".
func TestRemoteForecastAtStartAsksEachHostWhenItConnects(t *testing.T) {
	h, s, rh := remoteHost(t)
	ctx := context.Background()
	term, err := h.createTerminal(ctx, newTerminal{host: "box", cwd: "/", argv: []string{"/bin/sh", "-c", "exec sleep 600"}})
	if err != nil {
		t.Fatal(err)
	}
	addTab(t, h, term.ID)
	dead := addDeadHost(t, h, s, "/")
	h2 := restartHost(t, h, s, rh)
	lineOf := func(r RestoreReport, id string) PaneForecast {
		for _, f := range r.Panes {
			if f.TerminalID == id {
				return f
			}
		}
		return PaneForecast{}
	}
	waitUntil(t, "both hosts' lines answered", 60*time.Second, func() bool {
		r := h2.LastRestore()
		b, d := lineOf(r, term.ID), lineOf(r, dead.ID)
		return b.Action == ActionAttach && d.Action == ActionUnknown && d.Reason != unreachable("dead", linkConnecting)
	})
	r := h2.LastRestore()
	b, d := lineOf(r, term.ID), lineOf(r, dead.ID)
	if b.Host != "box" || d.Host != "dead" || !strings.HasPrefix(d.Reason, "cannot reach dead: ssh to dead: ") {
		t.Fatalf("lines: box %+v, dead %+v", b, d)
	}
	if !strings.Contains(r.Summary, "running") || !strings.Contains(r.Summary, "1 unknown") || !r.Recovered {
		t.Fatalf("report %q recovered=%v", r.Summary, r.Recovered)
	}
}

// A remote Codex's conversation is its rollout file, a dated glob under
// CODEX_HOME on the remote: the resume check and the forecasts find it
// through the remote daemon's bounded glob (they said "unknown" before,
// whatever was there). Rollout there → resume; deleted → missing; host
// unreachable → unknown, with why.
func TestRemoteCodexTranscriptFoundByGlob(t *testing.T) {
	h, s, rh := remoteHost(t)
	ctx := context.Background()
	work := t.TempDir()
	const sid = "0192f3a4-7b2c-7d3e-8f4a-5b6c7d8e9f00"
	term, b := endedRemoteBinding(t, h, "codex", sid, work)
	line := func() PaneForecast { t.Helper(); return forecastLine(t, h, term.ID) }
	missing := func(when string) {
		t.Helper()
		ok, why := h.candidate(ctx, b)
		if ok || !strings.Contains(why, "saved no conversation") || !strings.Contains(why, "rollout-*-"+sid) || !strings.Contains(why, "on box") {
			t.Fatalf("%s: candidate %v, %q; want no offer, the rollout missing on box", when, ok, why)
		}
		f := line()
		if f.Host != "box" || f.Action != ActionCannot || !strings.Contains(f.Reason, "transcript missing") || !strings.Contains(f.Reason, "on box") {
			t.Fatalf("%s: forecast %+v", when, f)
		}
	}
	missing("no rollout yet")

	// Codex saved it, on the remote (CODEX_HOME of the ssh session there;
	// a local ~/.codex is not where it looks).
	tp := filepath.Join(rh, "codex-home", "sessions", "2026", "12", "02", "rollout-2026-12-02T07-00-00-"+sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(tp), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tp, []byte(`{"type":"session_meta"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, why := h.candidate(ctx, b); !ok {
		t.Fatalf("rollout on the remote: no candidate (%q)", why)
	}
	f := line()
	if f.Host != "box" || f.Action != ActionResume || f.Transcript != tp || strings.Contains(f.Reason, "unknown") {
		t.Fatalf("forecast with the rollout: %+v", f)
	}
	// restore-check's way (the running daemon, no host): the same answer.
	fs, _ := restoreCheck(t, h)
	seen := false
	for _, f := range fs {
		if f.TerminalID == term.ID {
			seen = true
			if f.Action != ActionResume || f.Transcript != tp || strings.Contains(f.Reason, "unknown") {
				t.Fatalf("restore-check with the rollout: %+v", f)
			}
		}
	}
	if !seen {
		t.Fatalf("restore-check: no line for the remote pane: %+v", fs)
	}

	if err := os.Remove(tp); err != nil {
		t.Fatal(err)
	}
	missing("rollout deleted")

	// A host that cannot be reached: unknown, never "missing".
	dead := addDeadHost(t, h, s, work)
	if _, _, err := h.applyBinding(ctx, dead.ID, bindings.Input{Kind: bindings.KindLaunch, AgentID: "codex", SessionID: sid, Cwd: work, Prompted: true, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	fs, _ = restoreCheck(t, h)
	var sawDead bool
	for _, f := range fs {
		switch f.TerminalID {
		case term.ID:
			if f.Action != ActionCannot || !strings.Contains(f.Reason, "transcript missing") {
				t.Errorf("restore-check, rollout deleted: %+v", f)
			}
		case dead.ID:
			sawDead = true
			if f.Host != "dead" || f.Action != ActionUnknown || !strings.HasPrefix(f.Reason, "cannot reach dead: ") {
				t.Errorf("restore-check, unreachable host: %+v", f)
			}
		}
	}
	if !sawDead {
		t.Fatalf("no line for the unreachable host: %+v", fs)
	}
}

// A remote Gemini's conversation is a model reply in its chat file there
// (Gemini cannot resume a session without one): the remote daemon scans
// the file (facts "contains", the same bounded scan as on this machine),
// so the resume check and restore-check answer as they do locally — they
// said "unknown" for any chat file that existed there. A chat file with
// the model's reply → resume; one with only the user's prompt → missing;
// one outside the remote user's home and the agents' directories (a hook
// payload names the path) → unknown, with why, and nothing read.
func TestRemoteGeminiChatScannedThere(t *testing.T) {
	h, rh, userHome, work := remoteHostOwnHome(t)
	ctx := context.Background()
	// Chat files as the fake Gemini writes them (its turn: the prompt, then
	// the reply), in the remote user's ~/.gemini.
	chat := func(home, sid string, msgs ...fake.Message) string {
		t.Helper()
		p := fake.GeminiChatPath(home, work, time.Now(), sid)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		c := &fake.GeminiChat{Path: p, SessionID: sid, Cwd: work}
		if err := c.Append(msgs...); err != nil {
			t.Fatal(err)
		}
		return p
	}
	prompt := fake.Message{Role: "user", Text: "remember PEAR-6"}
	answer := fake.Message{Role: "assistant", Text: "ack: remember PEAR-6"}
	type pane struct {
		term store.Terminal
		b    bindings.Binding
		chat string
	}
	var panes []pane
	for i, c := range []struct {
		home string
		msgs []fake.Message
	}{
		{userHome, []fake.Message{prompt, answer}},
		{userHome, []fake.Message{prompt}},
		{filepath.Join(rh, "elsewhere"), []fake.Message{prompt, answer}}, // outside the daemon's roots
	} {
		sid := fmt.Sprintf("5c0e1d2%d-7b2c-4d3e-8f4a-5b6c7d8e9f00", i)
		term, b := endedRemoteBinding(t, h, "gemini", sid, work)
		p := chat(c.home, sid, c.msgs...)
		if err := h.store.SetTranscript(ctx, term.ID, p); err != nil {
			t.Fatal(err)
		}
		panes = append(panes, pane{term, b, p})
	}
	replied, promptOnly, outside := panes[0], panes[1], panes[2]

	if ok, why := h.candidate(ctx, replied.b); !ok {
		t.Fatalf("chat file with a reply: no resume offered (%q)", why)
	}
	if ok, why := h.candidate(ctx, promptOnly.b); ok || !strings.Contains(why, "saved no conversation") || !strings.Contains(why, promptOnly.chat) || !strings.Contains(why, "on box") {
		t.Fatalf("chat file with only the prompt: candidate %v, %q; want no offer, the chat file on box named", ok, why)
	}
	if ok, _ := h.candidate(ctx, outside.b); !ok {
		t.Fatal("chat file outside the daemon's roots: the offer was withdrawn (unknown keeps it)")
	}
	check := func(what string, fs []PaneForecast) {
		t.Helper()
		lines := map[string]PaneForecast{}
		for _, f := range fs {
			lines[f.TerminalID] = f
		}
		if f := lines[replied.term.ID]; f.Host != "box" || f.Action != ActionResume || f.Transcript != replied.chat || strings.Contains(f.Reason, "unknown") {
			t.Errorf("%s, chat file with a reply: %+v; want resume", what, f)
		}
		if f := lines[promptOnly.term.ID]; f.Host != "box" || f.Action != ActionCannot || !strings.Contains(f.Reason, "transcript missing: "+promptOnly.chat) || !strings.Contains(f.Reason, "on box") {
			t.Errorf("%s, chat file with only the prompt: %+v; want transcript missing", what, f)
		}
		if f := lines[outside.term.ID]; f.Action != ActionResume || !strings.Contains(f.Reason, "(transcript: unknown)") || !strings.Contains(f.Transcript, "outside the home directory") {
			t.Errorf("%s, chat file outside the daemon's roots: %+v; want unknown, why", what, f)
		}
	}
	h.recordForecast(ctx, true)
	check("forecast", h.LastRestore().Panes)
	fs, _ := restoreCheck(t, h) // `reprise restore-check`: the running daemon, no host
	check("restore-check", fs)

	// The model replies later in the same session: now it resumes.
	c := &fake.GeminiChat{Path: promptOnly.chat, SessionID: promptOnly.b.SessionID, Cwd: work}
	if err := c.Append(answer); err != nil {
		t.Fatal(err)
	}
	if ok, why := h.candidate(ctx, promptOnly.b); !ok {
		t.Fatalf("after the reply: no resume offered (%q)", why)
	}
}
