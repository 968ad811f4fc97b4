package store

import (
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/bindings"
)

func catalogV(resume string) []AgentConfig {
	return []AgentConfig{
		{ID: "claude", Label: "Claude Code", Command: "claude", ResumeArgs: []string{resume}, PromptTransport: "argv", Tracking: "hooks"},
		{ID: "codex", Label: "Codex", Command: "codex", ResumeArgs: []string{"resume"}, PromptTransport: "argv", Tracking: "hooks"},
	}
}

// The backfill rule, from a database made by an older catalog that has
// both kinds of rows: an untouched builtin follows the new default, an
// edited one keeps the user's value.
func TestSyncBuiltinsBackfill(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	if err := s.SyncBuiltins(ctx, catalogV("--resume-old")); err != nil {
		t.Fatal(err)
	}
	// The user edits codex's resume args (claude stays untouched).
	codex, _ := s.GetAgentConfig(ctx, "codex")
	codex.ResumeArgs = []string{"resume", "--mine"}
	if _, err := s.SaveAgentConfig(ctx, codex); err != nil {
		t.Fatal(err)
	}
	// A new catalog changes both agents' resume args.
	next := catalogV("--resume")
	next[1].ResumeArgs = []string{"resume2"}
	next = append(next, AgentConfig{ID: "gemini", Label: "Gemini CLI", Command: "gemini", ResumeArgs: []string{"--resume"}, PromptTransport: "argv"})
	if err := s.SyncBuiltins(ctx, next); err != nil {
		t.Fatal(err)
	}
	claude, _ := s.GetAgentConfig(ctx, "claude")
	if !slices.Equal(claude.ResumeArgs, []string{"--resume"}) || claude.Edited() {
		t.Fatalf("untouched builtin did not follow the catalog: %v edited=%v", claude.ResumeArgs, claude.Edited())
	}
	codex, _ = s.GetAgentConfig(ctx, "codex")
	if !slices.Equal(codex.ResumeArgs, []string{"resume", "--mine"}) || !codex.Edited() {
		t.Fatalf("edited builtin was overwritten: %v", codex.ResumeArgs)
	}
	if _, err := s.GetAgentConfig(ctx, "gemini"); err != nil {
		t.Fatalf("new builtin not seeded: %v", err)
	}
	// Reset puts the edited row back to the current catalog default.
	codex, err := s.ResetAgentConfig(ctx, "codex")
	if err != nil || !slices.Equal(codex.ResumeArgs, []string{"resume2"}) {
		t.Fatalf("reset: %v %v", codex.ResumeArgs, err)
	}
	var d AgentDefaults
	json.Unmarshal([]byte(codex.Defaults), &d)
	if d.Label != "Codex" {
		t.Fatalf("defaults snapshot: %+v", d)
	}
	if err := s.DeleteAgentConfig(ctx, "claude"); err == nil {
		t.Fatal("deleting a builtin succeeded")
	}
	mine, err := s.SaveAgentConfig(ctx, AgentConfig{ID: "mine", Label: "Mine", Command: "mine", PromptTransport: "argv"})
	if err != nil || mine.Builtin || mine.Position != 3 {
		t.Fatalf("custom agent: %+v %v", mine, err)
	}
	if err := s.ReorderAgentConfigs(ctx, []string{"mine", "gemini"}); err != nil {
		t.Fatal(err)
	}
	all, _ := s.ListAgentConfigs(ctx)
	var ids []string
	for _, c := range all {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, []string{"mine", "gemini", "claude", "codex"}) {
		t.Fatalf("order %v", ids)
	}
	if err := s.DeleteAgentConfig(ctx, "mine"); err != nil {
		t.Fatal(err)
	}
}

func TestApplyBindingCASAndHistory(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	if _, err := s.CreateTerminal(ctx, Terminal{ID: "t1", Cwd: "/w", Argv: []string{"sh"}}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	apply := func(in bindings.Input) (bindings.Binding, bool) {
		b, changed, err := s.ApplyBinding(ctx, "t1", func(cur *bindings.Binding) (bindings.Binding, bool) {
			next, _, changed := bindings.Decide(cur, in)
			return next, changed
		})
		if err != nil {
			t.Fatal(err)
		}
		return b, changed
	}
	apply(bindings.Input{Kind: bindings.KindSessionStart, AgentID: "claude", SessionID: "S1", Source: "startup", Cwd: "/w", At: now})
	apply(bindings.Input{Kind: bindings.KindPrompt, SessionID: "S1", At: now.Add(time.Second)})
	b, _ := apply(bindings.Input{Kind: bindings.KindTerminalExit, At: now.Add(2 * time.Second)})
	if !bindings.Candidate(&b, true) {
		t.Fatalf("not a candidate: %+v", b)
	}
	// 20 racing claims: exactly one wins.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, changed := apply(bindings.Input{Kind: bindings.KindClaim, CanResume: true, At: time.Now()}); changed {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d claims won", wins.Load())
	}
	got, _ := s.GetBinding(ctx, "t1")
	if got.EndReason != bindings.Resumed || got.Version != 4 {
		t.Fatalf("after claim: %+v", got)
	}
	hist, err := s.ListAgentSessions(ctx, "claude", 0)
	if err != nil || len(hist) != 1 || hist[0].SessionID != "S1" || hist[0].FirstPromptAt == nil || hist[0].Cwd != "/w" {
		t.Fatalf("history: %+v %v", hist, err)
	}
	// A hook for a terminal that does not exist changes nothing.
	if _, _, err := s.ApplyBinding(ctx, "t_nope", func(cur *bindings.Binding) (bindings.Binding, bool) {
		return bindings.Binding{AgentID: "claude", SessionID: "x"}, true
	}); err == nil {
		t.Fatal("binding for a missing terminal accepted")
	}
}
