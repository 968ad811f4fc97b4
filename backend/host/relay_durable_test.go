package host

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/hooks/payload"
	"github.com/reprise-dev/reprise/backend/inbox"
	"github.com/reprise-dev/reprise/backend/store"
)

// A relayed hook record applied just before the host stopped, its ack
// never sent (so the remote keeps it and sends it again), is acknowledged
// by the restarted host without being applied a second time: the name of
// an applied record is stored with its binding change, not in memory. A
// new record after the restart is applied as usual.
func TestRelayedRecordAppliedOnceAcrossHostRestart(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	ctx := context.Background()
	// A terminal on remote host "box" (its supervisor is not needed: the
	// records are handed to the relay's apply step as the stream would).
	now := time.Now()
	if _, err := h.store.CreateTerminal(ctx, store.Terminal{ID: "t_onbox", Host: "box", Cwd: "/", Argv: []string{"/bin/sh"}, Status: api.StatusRunning, CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.applyBinding(ctx, "t_onbox", bindings.Input{Kind: bindings.KindLaunch, AgentID: "claude", SessionID: "s-once", Cwd: "/", At: now}); err != nil {
		t.Fatal(err)
	}
	record := func(kind string, at time.Time) []byte {
		b, err := json.Marshal(HookRecord{TerminalID: "t_onbox", At: at, Event: payload.Event{Agent: "claude", Kind: kind, SessionID: "s-once", Prompt: "hello"}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	e := &remoteEP{name: "box"}
	first := inbox.RelayMsg{Name: "00000000000000000001-aa.json", Record: record(payload.KindPrompt, now.Add(time.Second))}
	if r, err := h.applyRemoteRecord(ctx, e, first); err != nil || r.Ack != first.Name {
		t.Fatalf("first delivery: %+v, %v", r, err)
	}
	applied := remoteBinding(t, h, "t_onbox")
	if applied.LastEvent != bindings.KindPrompt {
		t.Fatalf("record not applied: %+v", applied)
	}
	// The host stops before the ack reaches the remote.
	h.Close()

	h2 := startHost(t, home)
	defer h2.Close()
	e2 := &remoteEP{name: "box"}
	if r, err := h2.applyRemoteRecord(ctx, e2, first); err != nil || r.Ack != first.Name {
		t.Fatalf("second delivery: %+v, %v; want an ack", r, err)
	}
	if b := remoteBinding(t, h2, "t_onbox"); b.Version != applied.Version || !b.LastEventAt.Equal(applied.LastEventAt) {
		t.Fatalf("the record was applied again after the restart: binding version %d (was %d)", b.Version, applied.Version)
	}
	next := inbox.RelayMsg{Name: "00000000000000000002-bb.json", Record: record(payload.KindStop, now.Add(2*time.Second))}
	if r, err := h2.applyRemoteRecord(ctx, e2, next); err != nil || r.Ack != next.Name {
		t.Fatalf("a new record: %+v, %v", r, err)
	}
	if b := remoteBinding(t, h2, "t_onbox"); b.LastEvent != bindings.KindStop || b.Version != applied.Version+1 {
		t.Fatalf("a new record after the restart: %+v, want applied once", b)
	}
}
