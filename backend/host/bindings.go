package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/reprise-dev/reprise/backend/agents/catalog"
	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/hooks/payload"
	"github.com/reprise-dev/reprise/backend/inbox"
	"github.com/reprise-dev/reprise/backend/store"
)

// HookRecord is what `reprise hook` leaves in the inbox.
type HookRecord struct {
	TerminalID string        `json:"terminalId"`
	Event      payload.Event `json:"event"`
	At         time.Time     `json:"at"`
}

// Inbox is where hook processes leave their events for this home.
func (h *Host) Inbox() inbox.Inbox { return InboxOf(h.cfg.Home.Dir) }

// InboxOf is the inbox of a home directory.
func InboxOf(homeDir string) inbox.Inbox { return inbox.Inbox{Dir: filepath.Join(homeDir, "inbox")} }

// applyBinding runs the truth table on a terminal's binding and stores the
// result (compare-and-set); guard, when set, can veto the change after
// seeing the current row (the sweep uses it to skip bindings whose session
// changed meanwhile).
func (h *Host) applyBinding(ctx context.Context, terminalID string, in bindings.Input) (bindings.Binding, bool, error) {
	return h.applyBindingIf(ctx, terminalID, in, nil)
}

func (h *Host) applyBindingIf(ctx context.Context, terminalID string, in bindings.Input, guard func(cur *bindings.Binding) bool) (bindings.Binding, bool, error) {
	return h.applyBindingThen(ctx, terminalID, in, guard, nil)
}

// applyBindingThen is applyBindingIf with stored, when set, run after the
// binding is written and before the change is published (a hook records
// its activity there, so the pushed agent state includes it).
func (h *Host) applyBindingThen(ctx context.Context, terminalID string, in bindings.Input, guard func(cur *bindings.Binding) bool,
	stored func(b bindings.Binding, changed bool)) (bindings.Binding, bool, error) {
	return h.applyBindingMarked(ctx, terminalID, in, guard, nil, stored)
}

// applyBindingMarked is applyBindingThen for a relayed hook record: mark
// is stored in the binding change's own transaction (store.ApplyBindingMarked).
func (h *Host) applyBindingMarked(ctx context.Context, terminalID string, in bindings.Input, guard func(cur *bindings.Binding) bool,
	mark *store.RelayMark, stored func(b bindings.Binding, changed bool)) (bindings.Binding, bool, error) {
	var outcome bindings.Outcome
	b, changed, err := h.store.ApplyBindingMarked(ctx, terminalID, mark, func(cur *bindings.Binding) (bindings.Binding, bool) {
		if guard != nil && !guard(cur) {
			return bindings.Binding{}, false
		}
		next, out, changed := bindings.Decide(cur, in)
		outcome = out
		return next, changed
	})
	if err != nil {
		return b, false, err
	}
	if stored != nil {
		stored(b, changed)
	}
	if changed {
		h.log.Info("binding changed", "terminal", terminalID, "input", in.Kind, "outcome", outcome,
			"agent", b.AgentID, "session", b.SessionID, "endReason", b.EndReason, "prompted", b.Prompted)
		h.publishBinding(ctx, b)
	} else if outcome != "" && outcome != bindings.NoAgent {
		h.log.Debug("binding unchanged", "terminal", terminalID, "input", in.Kind, "outcome", outcome)
	}
	return b, changed, nil
}

func (h *Host) canResume(ctx context.Context, agentID string) (bool, string) {
	c, err := h.store.GetAgentConfig(ctx, agentID)
	if err != nil {
		return false, agentID
	}
	return len(c.ResumeArgs) > 0, c.Label
}

// candidate says whether a binding should offer Resume: the truth table's
// candidate, the agent saved the conversation where its resume looks (for
// agents whose storage Reprise knows), and the directory it resumes in is
// still there. reason explains a refusal that the truth table alone would
// have offered.
func (h *Host) candidate(ctx context.Context, b bindings.Binding) (bool, string) {
	ok, why, _ := h.candidateOr(ctx, b)
	return ok, why
}

// candidateOr is candidate, plus the way forward when there is one:
// recreate names the vanished directory whose recreation brings the
// conversation back (agents that keep conversations by directory).
func (h *Host) candidateOr(ctx context.Context, b bindings.Binding) (ok bool, why, recreate string) {
	can, label := h.canResume(ctx, b.AgentID)
	if !bindings.Candidate(&b, can) {
		return false, "", ""
	}
	stored, _ := h.store.Transcript(ctx, b.TerminalID)
	cwd := h.bindingCwd(ctx, b)
	where := ""
	var m machine = localMachine{h.cfg.BaseEnv}
	if name := h.hostOf(ctx, b.TerminalID); name != "" {
		// The transcript and the directory are on the remote: its daemon
		// answers. A host that cannot be asked now keeps the offer (the
		// resume itself says what it finds there).
		rm, err := h.remoteMachineFor(ctx, name)
		if err == nil {
			err = rm.prepare(ctx, "", b.AgentID, b.SessionID, cwd, stored)
		}
		if err != nil {
			h.log.Debug("resume check on remote host", "host", name, "terminal", b.TerminalID, "err", err)
			return true, "", ""
		}
		m, where = rm, onHost(name)
	}
	saved, known, path := m.transcript(b.AgentID, b.SessionID, cwd, stored)
	if known && !saved {
		return false, fmt.Sprintf("%s saved no conversation for this session (%s%s), so there is nothing to resume.", label, path, where), ""
	}
	if cwd != "" && !m.isDir(cwd) {
		// The relaunch would fail with "No such directory": never offer it.
		// Recreating is offered on a remote host too: ResumeWith makes the
		// folder where the pane runs (recreateDir).
		if recreateRestores(b.AgentID) && known && saved {
			return false, fmt.Sprintf("The folder %s%s is gone. Recreating the empty folder and resuming %s there brings the conversation back, but not the files that were in it.", cwd, where, label), cwd
		}
		return false, fmt.Sprintf("The folder %s%s is gone, so %s can't be resumed there.", cwd, where, label), ""
	}
	return true, "", ""
}

// recreateDir makes a vanished folder again, 0700, where the pane ran:
// here, or on remote host name over ssh (remote.Target.MkdirAll: the same
// mode, the remote user's own).
func (h *Host) recreateDir(ctx context.Context, name, dir string) error {
	if name == "" {
		return os.MkdirAll(dir, 0o700)
	}
	e, err := h.endpoint(ctx, name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return e.target.MkdirAll(ctx, dir)
}

// bindingCwd is the directory a binding's agent ran (and resumes) in.
func (h *Host) bindingCwd(ctx context.Context, b bindings.Binding) string {
	if b.Cwd != "" {
		return b.Cwd
	}
	if t, err := h.store.GetTerminal(ctx, b.TerminalID); err == nil {
		return t.Cwd
	}
	return ""
}

func (h *Host) bindingToAPI(ctx context.Context, b bindings.Binding) api.Binding {
	can, label := h.canResume(ctx, b.AgentID)
	cand, why, recreate := h.candidateOr(ctx, b)
	a := api.Binding{
		TerminalID: b.TerminalID, AgentID: b.AgentID, AgentLabel: label, SessionID: b.SessionID, Cwd: b.Cwd,
		StartedAt: b.StartedAt, LastEventAt: b.LastEventAt, LastEvent: b.LastEvent, Prompted: b.Prompted,
		EndedAt: b.EndedAt, EndReason: b.EndReason, CanResume: can,
		Resumable: bindings.Resumable(&b, can), Candidate: cand, Unavailable: why, RecreateCwd: recreate,
	}
	if b.EndReason == bindings.TerminalExited && !a.Candidate && a.Unavailable == "" {
		switch {
		case !can:
			a.Unavailable = fmt.Sprintf("%s has no resume args configured (Settings → Agents), so this session can't be resumed by id.", label)
		case b.SessionID == "":
			a.Unavailable = "No session id was captured for this session."
		case !b.Prompted:
			a.Unavailable = "The session was never prompted, so there is no conversation to resume."
		case b.Unconfirmed:
			a.Unavailable = fmt.Sprintf("%s never confirmed session %s, so Reprise can't tell it exists.", label, b.SessionID)
		}
	}
	a.PaneID = h.paneForResume(ctx, b.TerminalID)
	if a.Candidate {
		h.mu.Lock()
		a.ResumeError = h.resumeErr[b.TerminalID]
		h.mu.Unlock()
	}
	if o, err := h.store.GetOutcome(ctx, b.TerminalID); err == nil && o.Outcome != "" {
		a.ResumeOf, a.Outcome, a.OutcomeDetail, a.OutcomeAt = o.ResumeOf, o.Outcome, o.Detail, o.At
	}
	return a
}

func (h *Host) publishBinding(ctx context.Context, b bindings.Binding) {
	// Changes to one terminal's binding are pushed by several goroutines
	// (the inbox drain, the terminal's exit, a resume), each after its own
	// store write. Unserialized, a push built before the terminal died could
	// reach the page after the push of its death, and the pane would show
	// "working" for a dead process, or a live binding for an ended one. So
	// a terminal's pushes are one at a time, and each is built from the row
	// stored now: the last push is the latest truth. (The lock is per
	// terminal: building a push may ask a remote host over ssh.)
	unlock := h.publishes.lock(b.TerminalID)
	defer unlock()
	if cur, err := h.store.GetBinding(ctx, b.TerminalID); err == nil {
		b = cur
	} else {
		h.log.Warn("reread binding to push", "terminal", b.TerminalID, "err", err)
	}
	a := h.bindingToAPI(ctx, b)
	a.AgentState = h.agentStateNow(ctx, b)
	h.events.publish(Event{Kind: api.EventBinding, Data: a})
	if a.Candidate && a.PaneID != "" && h.setting(ctx, api.SettingOnInterrupt) == "auto" {
		key := b.TerminalID + "/" + b.SessionID
		h.mu.Lock()
		tried := h.autoResumed[key]
		h.autoResumed[key] = true
		h.mu.Unlock()
		if !tried { // exactly once per candidate; a failure leaves the banner with Retry
			go func() {
				if _, err := h.Resume(h.ctx, b.TerminalID); err != nil {
					h.log.Warn("automatic resume failed", "terminal", b.TerminalID, "err", err)
				}
			}()
		}
	}
}

func (h *Host) setting(ctx context.Context, key string) string {
	v, _, err := h.store.GetSetting(ctx, key)
	if err != nil {
		return ""
	}
	return v
}

// Binding returns a terminal's binding; ErrNotFound when no agent ran in it.
func (h *Host) Binding(ctx context.Context, terminalID string) (api.Binding, error) {
	b, err := h.store.GetBinding(ctx, terminalID)
	if err != nil {
		return api.Binding{}, err
	}
	return h.bindingToAPI(ctx, b), nil
}

// ResumeCandidates lists the terminals whose agent was interrupted and can
// be offered a resume (Bindings(ctx, true)).
func (h *Host) ResumeCandidates(ctx context.Context) ([]api.Binding, error) {
	return h.Bindings(ctx, true)
}

// Bindings lists every binding; with candidatesOnly, just the resume
// candidates.
func (h *Host) Bindings(ctx context.Context, candidatesOnly bool) ([]api.Binding, error) {
	var reasons []string
	if candidatesOnly {
		reasons = []string{bindings.TerminalExited}
	}
	bs, err := h.store.ListBindings(ctx, reasons...)
	if err != nil {
		return nil, err
	}
	out := []api.Binding{}
	for _, b := range bs {
		a := h.bindingToAPI(ctx, b)
		if candidatesOnly && !a.Candidate {
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

// Sessions lists agent sessions newest first: with all, every session ever
// seen; otherwise live ones and resume candidates.
func (h *Host) Sessions(ctx context.Context, all bool, query string) ([]api.Session, error) {
	rows, err := h.store.ListAgentSessions(ctx, query, 0)
	if err != nil {
		return nil, err
	}
	out := []api.Session{}
	for _, r := range rows {
		can, label := h.canResume(ctx, r.AgentID)
		s := api.Session{
			AgentID: r.AgentID, AgentLabel: label, SessionID: r.SessionID, Cwd: r.Cwd, TerminalID: r.TerminalID,
			FirstSeenAt: r.FirstSeenAt, FirstPromptAt: r.FirstPromptAt, LastActivityAt: r.LastActivityAt,
			EndedAt: r.EndedAt, EndReason: r.EndReason, Live: r.EndReason == bindings.Live,
			Resumable: can && r.FirstPromptAt != nil, LastOutcome: r.LastOutcome, LastOutcomeDetail: r.LastOutcomeDetail,
			FirstPrompt: r.FirstPrompt, Host: h.hostOf(ctx, r.TerminalID),
		}
		if b, err := h.store.GetBinding(ctx, r.TerminalID); err == nil && b.SessionID == r.SessionID {
			s.Candidate, _ = h.candidate(ctx, b)
		}
		if !all && !s.Live && !s.Candidate {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// hookInput is the truth-table input of one hook record; ok is false for
// events the host ignores. The drain and restore-check's simulation of it
// both go through here, so the forecast applies exactly what the host will.
func hookInput(rec HookRecord) (in bindings.Input, ok bool) {
	e := rec.Event
	if e.Subagent {
		return bindings.Input{}, false
	}
	in = bindings.Input{
		Kind: e.Kind, AgentID: e.Agent, SessionID: e.SessionID, Source: e.Source, Reason: e.Reason,
		Status: e.ExitStatus, Prompted: e.Prompted, Cwd: e.Cwd, At: rec.At,
	}
	if in.At.IsZero() {
		in.At = time.Now()
	}
	if e.Kind == payload.KindOther {
		// Any other hook still proves the agent is alive and may carry its id.
		in.Kind = bindings.KindOther
	}
	return in, true
}

// transcriptOf is the transcript path a hook record reports for binding b,
// if it reports one for b's session.
func transcriptOf(rec HookRecord, b bindings.Binding) (string, bool) {
	e := rec.Event
	return e.Transcript, e.Transcript != "" && (e.SessionID == "" || e.SessionID == b.SessionID)
}

// handleHook applies one hook event to its terminal's binding.
func (h *Host) handleHook(ctx context.Context, rec HookRecord) error {
	return h.handleHookMarked(ctx, rec, nil)
}

// handleHookMarked is handleHook for a record relayed from a remote inbox:
// mark is written with the binding change, or, when the binding does not
// change, after the record's other effects.
func (h *Host) handleHookMarked(ctx context.Context, rec HookRecord, mark *store.RelayMark) error {
	in, ok := hookInput(rec)
	if ok {
		if t, err := h.store.GetTerminal(ctx, rec.TerminalID); err == nil {
			in.Wrapped = wrappedAgent(t.Argv)
		}
	}
	if !ok {
		if mark != nil {
			return h.store.MarkRelayed(ctx, *mark)
		}
		return nil
	}
	b, changed, err := h.applyBindingMarked(ctx, rec.TerminalID, in, nil, mark, func(b bindings.Binding, changed bool) {
		// Before the binding is published: Sessions reloads on it.
		if p := rec.Event.Prompt; p != "" && b.SessionID != "" && b.AgentID != "" {
			if err := h.store.SetFirstPrompt(ctx, b.AgentID, b.SessionID, p); err != nil {
				h.log.Warn("record first prompt", "terminal", rec.TerminalID, "session", b.SessionID, "err", err)
			}
		}
		h.recordActivity(ctx, rec, b, changed)
	})
	if err != nil {
		return err
	}
	if p, ok := transcriptOf(rec, b); ok {
		if err := h.store.SetTranscript(ctx, rec.TerminalID, p); err != nil {
			h.log.Warn("record transcript path", "terminal", rec.TerminalID, "err", err)
		}
	}
	h.noteOutcome(ctx, b, rec.Event)
	if mark != nil && !changed {
		return h.store.MarkRelayed(ctx, *mark)
	}
	return nil
}

// PendingHooks reads the hook records waiting in a home's inbox, in
// arrival order, without draining or changing anything. Records that could
// not be decoded (the drain would set them aside) are left out.
func PendingHooks(homeDir string) ([]HookRecord, error) {
	recs, err := InboxOf(homeDir).Pending()
	if err != nil {
		return nil, err
	}
	out := make([]HookRecord, 0, len(recs))
	for _, r := range recs {
		var rec HookRecord
		if err := json.Unmarshal(r.Data, &rec); err != nil || rec.TerminalID == "" {
			continue
		}
		out = append(out, rec)
	}
	return out, nil
}

// DrainInbox applies every queued hook event, in order.
func (h *Host) DrainInbox(ctx context.Context) {
	h.drainMu.Lock()
	defer h.drainMu.Unlock()
	n, err := h.Inbox().Drain(func(name string, raw []byte) error {
		var rec HookRecord
		if err := json.Unmarshal(raw, &rec); err != nil || rec.TerminalID == "" {
			h.log.Warn("malformed hook record set aside", "record", name, "err", err)
			return fmt.Errorf("%w: %v", inbox.ErrReject, err)
		}
		err := h.handleHook(ctx, rec)
		if errors.Is(err, store.ErrNotFound) {
			h.log.Warn("hook event for an unknown terminal set aside", "record", name, "terminal", rec.TerminalID)
			return fmt.Errorf("%w: %v", inbox.ErrReject, err)
		}
		return err
	})
	if err != nil {
		h.log.Warn("hook inbox drain stopped; will retry", "drained", n, "err", err)
	}
}

// NotifyInbox asks the drainer to run soon (a hook just wrote).
func (h *Host) NotifyInbox() {
	select {
	case h.inboxKick <- struct{}{}:
	default:
	}
}

func (h *Host) drainLoop() {
	defer h.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		case <-h.inboxKick:
		}
		h.DrainInbox(h.ctx)
	}
}

// endBindings applies a terminal death to the bindings of the given
// terminals. snapshot, when given, holds the session id each binding had
// when the death was noticed: a binding whose session changed meanwhile (a
// new agent session started) is skipped.
func (h *Host) endBindings(ctx context.Context, ids []string, at time.Time, snapshot map[string]string) {
	for _, id := range ids {
		var guard func(*bindings.Binding) bool
		if snapshot != nil {
			want, ok := snapshot[id]
			guard = func(cur *bindings.Binding) bool { return !ok || cur == nil || cur.SessionID == want }
		}
		b, _, err := h.applyBindingIf(ctx, id, bindings.Input{Kind: bindings.KindTerminalExit, At: at}, guard)
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				h.log.Warn("end binding", "terminal", id, "err", err)
			}
			continue
		}
		if o, err := h.store.GetOutcome(ctx, id); err == nil && pending(o.Outcome) {
			h.finishOutcome(ctx, b, o, store.Outcome{Outcome: OutcomeFailed, Detail: "the terminal ended before the agent confirmed the resume"})
		}
	}
}

// liveSnapshot records the session id of every binding a terminal death
// could still end: live ones, and goodbyes within the death-gasp window.
func (h *Host) liveSnapshot(ctx context.Context) map[string]string {
	bs, err := h.store.ListBindings(ctx, bindings.Live, bindings.Detached)
	if err != nil {
		h.log.Warn("snapshot bindings", "err", err)
		return nil
	}
	snap := map[string]string{}
	for _, b := range bs {
		if b.EndReason == bindings.Detached && (b.EndedAt == nil || time.Since(*b.EndedAt) > bindings.Window) {
			continue
		}
		snap[b.TerminalID] = b.SessionID
	}
	return snap
}

// resumeCalls coalesces concurrent resumes of one terminal into one launch.
type resumeCalls struct {
	mu    sync.Mutex
	calls map[string]*resumeCall
}

type resumeCall struct {
	done chan struct{}
	res  api.ResumeResult
	err  error
}

// Resume brings an interrupted conversation back in the same pane: it
// claims the candidate (one atomic update; exactly one caller wins),
// relaunches the agent with its resume args and session id in the
// session's own directory in a new terminal that takes the dead one's
// place, and disposes the dead terminal. A failed launch un-claims, so the
// session id is never lost. Concurrent calls share one launch; a repeat
// after success returns the terminal it runs in.
func (h *Host) Resume(ctx context.Context, terminalID string) (api.ResumeResult, error) {
	return h.ResumeWith(ctx, api.ResumeRequest{TerminalID: terminalID})
}

// ResumeWith is Resume with options: RecreateCwd first recreates the
// session's vanished directory (0700, as the user) when the binding names
// that as the way forward (RecreateCwd), then resumes there.
func (h *Host) ResumeWith(ctx context.Context, req api.ResumeRequest) (api.ResumeResult, error) {
	terminalID := req.TerminalID
	h.resumes.mu.Lock()
	if c, ok := h.resumes.calls[terminalID]; ok {
		h.resumes.mu.Unlock()
		<-c.done
		r := c.res
		r.AlreadyResumed = true
		return r, c.err
	}
	c := &resumeCall{done: make(chan struct{})}
	h.resumes.calls[terminalID] = c
	h.resumes.mu.Unlock()
	c.res, c.err = h.resume(ctx, req)
	close(c.done)
	h.resumes.mu.Lock()
	delete(h.resumes.calls, terminalID)
	h.resumes.mu.Unlock()
	return c.res, c.err
}

func (h *Host) resume(ctx context.Context, rreq api.ResumeRequest) (api.ResumeResult, error) {
	terminalID := rreq.TerminalID
	b, err := h.store.GetBinding(ctx, terminalID)
	if errors.Is(err, store.ErrNotFound) {
		return api.ResumeResult{}, notFound(fmt.Sprintf("no agent ran in terminal %s", terminalID))
	}
	if err != nil {
		return api.ResumeResult{}, err
	}
	can, label := h.canResume(ctx, b.AgentID)
	if b.EndReason == bindings.Resumed {
		if r, ok := h.findResumed(ctx, b); ok {
			return r, nil
		}
		return api.ResumeResult{}, fmt.Errorf("%s session %s was already resumed", label, b.SessionID)
	}
	ok, _, recreate := h.candidateOr(ctx, b)
	if !ok && rreq.RecreateCwd && recreate != "" {
		where := h.hostOf(ctx, terminalID)
		if err := h.recreateDir(ctx, where, recreate); err != nil {
			h.log.Warn("recreate a vanished folder to resume in it", "terminal", terminalID, "host", where, "dir", recreate, "err", err)
			return api.ResumeResult{}, fmt.Errorf("couldn't recreate the folder %s%s: %w", recreate, onHost(where), err)
		}
		h.log.Info("recreated a vanished folder to resume in it", "terminal", terminalID, "host", where, "dir", recreate, "agent", b.AgentID, "session", b.SessionID)
		ok, _ = h.candidate(ctx, b)
	}
	if !ok {
		ab := h.bindingToAPI(ctx, b)
		if ab.Unavailable != "" {
			return api.ResumeResult{}, errors.New(ab.Unavailable)
		}
		return api.ResumeResult{}, fmt.Errorf("terminal %s has no interrupted %s session to resume (%s)", terminalID, label, describeEnd(b.EndReason))
	}
	claimed, changed, err := h.applyBinding(ctx, terminalID, bindings.Input{Kind: bindings.KindClaim, CanResume: can, At: time.Now()})
	if err != nil {
		return api.ResumeResult{}, err
	}
	if !changed {
		// Another process claimed it first.
		if r, ok := h.findResumed(ctx, b); ok {
			r.AlreadyResumed = true
			return r, nil
		}
		return api.ResumeResult{}, fmt.Errorf("%s session %s is being resumed elsewhere", label, b.SessionID)
	}
	paneID := h.paneForResume(ctx, terminalID)
	cwd := claimed.Cwd
	if cwd == "" {
		if t, err := h.store.GetTerminal(ctx, terminalID); err == nil {
			cwd = t.Cwd
		}
	}
	req := api.CreateAgentRequest{Agent: b.AgentID, ResumeSessionID: b.SessionID, Cwd: cwd, PaneID: paneID, Host: h.hostOf(ctx, terminalID)}
	var res api.CreateAgentResult
	if req.Host != "" {
		// On the host where the conversation lives, in its remote cwd.
		res, err = h.createRemoteAgent(ctx, req)
	} else {
		var c store.AgentConfig
		var l catalog.Launch
		var lcwd string
		c, l, lcwd, err = h.launch(ctx, req)
		if err == nil {
			res, err = h.runLaunch(ctx, req, c, l, lcwd)
		}
	}
	if err != nil {
		err = fmt.Errorf("couldn't resume %s: %w", label, err)
		h.mu.Lock()
		h.resumeErr[terminalID] = err.Error()
		h.mu.Unlock()
		if _, _, uerr := h.applyBinding(context.WithoutCancel(ctx), terminalID, bindings.Input{Kind: bindings.KindUnclaim, At: time.Now()}); uerr != nil {
			h.log.Error("un-claim after failed resume", "terminal", terminalID, "err", uerr)
		}
		h.setSessionOutcome(context.WithoutCancel(ctx), b.AgentID, b.SessionID, OutcomeFailed, err.Error())
		return api.ResumeResult{}, err
	}
	h.mu.Lock()
	delete(h.resumeErr, terminalID)
	h.mu.Unlock()
	h.log.Info("session resumed", "agent", b.AgentID, "session", b.SessionID, "from", terminalID, "terminal", res.TerminalID, "pane", res.PaneID)
	return api.ResumeResult{TerminalID: res.TerminalID, PaneID: res.PaneID, AgentID: b.AgentID, SessionID: b.SessionID, Argv: res.Argv, FromTerminal: terminalID}, nil
}

// findResumed finds the terminal a claimed session was relaunched in.
func (h *Host) findResumed(ctx context.Context, b bindings.Binding) (api.ResumeResult, bool) {
	bs, err := h.store.ListBindings(ctx)
	if err != nil {
		return api.ResumeResult{}, false
	}
	for i := len(bs) - 1; i >= 0; i-- {
		nb := bs[i]
		if nb.TerminalID != b.TerminalID && nb.AgentID == b.AgentID && nb.SessionID == b.SessionID && !nb.StartedAt.Before(b.StartedAt) {
			p, _ := h.store.PaneIDForTerminal(ctx, nb.TerminalID)
			return api.ResumeResult{TerminalID: nb.TerminalID, PaneID: p, AgentID: nb.AgentID, SessionID: nb.SessionID, FromTerminal: b.TerminalID, AlreadyResumed: true}, true
		}
	}
	return api.ResumeResult{}, false
}

func describeEnd(reason string) string {
	switch reason {
	case bindings.Live:
		return "it is still running"
	case bindings.Detached:
		return "it ended cleanly; resume it from the sessions list"
	case bindings.Disposed:
		return "its pane was closed"
	}
	return reason
}
