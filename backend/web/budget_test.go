package web

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/hooks/payload"
	"github.com/reprise-dev/reprise/backend/host"
)

// Wire budgets: for fixed scenarios, count the messages and bytes that
// cross from the backend to the page, compare with the committed baseline
// (testdata/wire-budgets.json) and fail over a ceiling. UPDATE_BUDGETS=1
// rewrites the baseline (ceilings at +25 %).

type budget struct {
	Messages        int64 `json:"messages"`
	Bytes           int64 `json:"bytes"`
	CeilingMessages int64 `json:"ceilingMessages"`
	CeilingBytes    int64 `json:"ceilingBytes"`
}

const budgetFile = "testdata/wire-budgets.json"

func (p *page) measure(fn func()) (msgs, bytes int64) {
	time.Sleep(150 * time.Millisecond) // let earlier traffic settle
	m0, b0 := p.rxMsgs.Load(), p.rxBytes.Load()
	fn()
	time.Sleep(150 * time.Millisecond)
	return p.rxMsgs.Load() - m0, p.rxBytes.Load() - b0
}

func TestWireBudgets(t *testing.T) {
	s, h, home := startServerHost(t)
	ctx := context.Background()
	got := map[string]budget{}
	record := func(name string, m, b int64) { got[name] = budget{Messages: m, Bytes: b} }

	// 1. Cold open of a 10,000-line pane.
	setup := connect(t, s, "")
	_, h0 := firstTerminal(t, setup)
	setup.input(h0, "seq -f 'line %05g of the ten thousand lines' 1 10000\n")
	setup.waitText(h0, "line 10000 of the ten")
	setup.c.CloseNow()
	cold := connect(t, s, "")
	var hello helloResult
	m, b := cold.measure(func() {
		if err := cold.call("hello", nil, &hello); err != nil {
			t.Fatal(err)
		}
		var a attachResult
		if err := cold.call("attach", map[string]any{"terminalId": hello.Layout.Tabs[0].Root.TerminalID, "cols": 120, "rows": 40, "lines": 10000 + 40}, &a); err != nil {
			t.Fatal(err)
		}
		cold.waitText(a.Handle, "line 10000 of the ten")
	})
	record("cold open of a 10,000-line pane", m, b)

	// 2. Reattach of an idle pane.
	tab, err := h.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	idle := tab.Tabs[len(tab.Tabs)-1].Root.TerminalID
	m, b = cold.measure(func() {
		var a attachResult
		if err := cold.call("attach", map[string]any{"terminalId": idle, "cols": 120, "rows": 40}, &a); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	})
	record("reattach of an idle pane", m, b)

	// 3. The resume-candidate check, with one interrupted agent.
	res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Prompt: "budget turn", Cwd: home.Dir})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "prompted", func() bool { bd, err := h.Binding(ctx, res.TerminalID); return err == nil && bd.Prompted })
	h.Signal(ctx, res.TerminalID, "KILL")
	waitUntil(t, "candidate", func() bool { bd, err := h.Binding(ctx, res.TerminalID); return err == nil && bd.Candidate })
	m, b = cold.measure(func() {
		var cands []api.Binding
		if err := cold.call("bindings.list", map[string]any{"candidates": true}, &cands); err != nil || len(cands) != 1 {
			t.Fatalf("candidates %v %v", cands, err)
		}
	})
	record("resume-candidate check", m, b)

	// 4. Settings → Agents load.
	m, b = cold.measure(func() {
		var as []api.Agent
		if err := cold.call("agents.list", nil, &as); err != nil || len(as) < 13 {
			t.Fatalf("agents %d %v", len(as), err)
		}
	})
	record("Settings → Agents load", m, b)

	// 5. The sessions list with 1,000 sessions (written to the hook inbox
	// as an agent's hooks would, then drained).
	in := host.InboxOf(home.Dir)
	for i := 0; i < 1000; i++ {
		rec, _ := json.Marshal(host.HookRecord{TerminalID: idle, At: time.Now(), Event: payload.Event{
			Agent: "claude", Name: "UserPromptSubmit", Kind: payload.KindPrompt, Prompted: true,
			SessionID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Cwd: "/home/user/project",
		}})
		if err := in.Put(rec); err != nil {
			t.Fatal(err)
		}
	}
	h.DrainInbox(ctx)
	time.Sleep(500 * time.Millisecond) // binding events of the drain reach the page before we measure
	m, b = cold.measure(func() {
		var ss []api.Session
		if err := cold.call("sessions.list", map[string]any{"all": true}, &ss); err != nil || len(ss) < 1000 {
			t.Fatalf("sessions %d %v", len(ss), err)
		}
	})
	record("sessions list with 1,000 sessions", m, b)

	// 6. One agent turn streamed.
	res2, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Cwd: home.Dir})
	if err != nil {
		t.Fatal(err)
	}
	var a attachResult
	if err := cold.call("attach", map[string]any{"terminalId": res2.TerminalID, "cols": 120, "rows": 40}, &a); err != nil {
		t.Fatal(err)
	}
	cold.waitText(a.Handle, "? for shortcuts")
	m, b = cold.measure(func() {
		cold.input(a.Handle, "one streamed turn\r")
		cold.waitText(a.Handle, "ack: one streamed turn")
		waitUntil(t, "stop hook applied", func() bool { bd, err := h.Binding(ctx, res2.TerminalID); return err == nil && bd.LastEvent == "stop" })
	})
	record("one agent turn streamed", m, b)

	// 7. One agent state change as a pane's pill sees it: a permission
	// prompt is open (needs-input), then the turn's Stop (idle). The real
	// hook binary; what crosses is the binding event carrying agentState.
	bd, err := h.Binding(ctx, res2.TerminalID)
	if err != nil {
		t.Fatal(err)
	}
	w := watchAgentState(cold, res2.TerminalID)
	runHook(t, home, res2.TerminalID, "claude", "Notification", fmt.Sprintf(needsInputPayload, bd.SessionID))
	w.next(t, api.AgentNeedsInput)
	m, b = cold.measure(func() {
		runHook(t, home, res2.TerminalID, "claude", "Stop", fmt.Sprintf(stopPayload, bd.SessionID))
		w.next(t, api.AgentIdle)
	})
	record("one state change: needs-input → idle", m, b)

	checkBudgets(t, got)
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func checkBudgets(t *testing.T, got map[string]budget) {
	t.Helper()
	base := map[string]budget{}
	if b, err := os.ReadFile(budgetFile); err == nil {
		if err := json.Unmarshal(b, &base); err != nil {
			t.Fatalf("%s: %v", budgetFile, err)
		}
	}
	if os.Getenv("UPDATE_BUDGETS") != "" {
		for k, v := range got {
			v.CeilingMessages = v.Messages + v.Messages/4 + 2
			v.CeilingBytes = v.Bytes + v.Bytes/4 + 256
			got[k] = v
		}
		b, _ := json.MarshalIndent(got, "", "  ")
		os.MkdirAll(filepath.Dir(budgetFile), 0o755)
		if err := os.WriteFile(budgetFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		base = got
	}
	names := make([]string, 0, len(got))
	for k := range got {
		names = append(names, k)
	}
	sort.Strings(names)
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-36s %-9s %10s %10s %8s %10s\n", "scenario", "metric", "baseline", "now", "change", "ceiling")
	var over []string
	for _, n := range names {
		g, b := got[n], base[n]
		for _, row := range []struct {
			metric                 string
			baseline, now, ceiling int64
		}{{"messages", b.Messages, g.Messages, b.CeilingMessages}, {"bytes", b.Bytes, g.Bytes, b.CeilingBytes}} {
			change := "new"
			if row.baseline > 0 {
				change = fmt.Sprintf("%+.1f%%", 100*float64(row.now-row.baseline)/float64(row.baseline))
			}
			mark := ""
			if row.ceiling > 0 && row.now > row.ceiling {
				mark = "  OVER"
				over = append(over, n+" "+row.metric)
			}
			if row.ceiling == 0 {
				over = append(over, n+" (no baseline)")
			}
			fmt.Fprintf(&sb, "%-36s %-9s %10d %10d %8s %10d%s\n", n, row.metric, row.baseline, row.now, change, row.ceiling, mark)
		}
	}
	t.Log(sb.String())
	fmt.Print(sb.String())
	if len(over) > 0 {
		t.Fatalf("wire budget exceeded or missing (run with UPDATE_BUDGETS=1 to accept a deliberate change): %s", strings.Join(over, "; "))
	}
}
