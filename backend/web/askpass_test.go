package web

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/internal/testenv"
	"github.com/reprise-dev/reprise/internal/testenv/remotetest"
)

// askpassSetup: a host serving the page and its local API, a real sshd
// whose only accepted key has a passphrase (no agent), and host "box" on it.
func askpassSetup(t *testing.T) *page {
	t.Helper()
	s, h, home := startServerHost(t)
	lapi, err := localapi.Listen(h, home.HostSocket(), slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lapi.Close(context.Background()) })
	sshd := testenv.StartSSHD(t)
	sshd.LockKey(t, "open sesame")
	t.Setenv("SSH_AUTH_SOCK", "")
	rh := testenv.RemoteHome(t)
	t.Cleanup(func() { remotetest.KillMaster(home.Dir, sshd, rh) })
	if _, err := h.Store().AddHost(context.Background(), remotetest.Host(sshd, rh)); err != nil {
		t.Fatal(err)
	}
	return connect(t, s, "")
}

// The whole path: ssh's passphrase prompt for a locked key comes to the
// page as an "askpass" event (and is listed by askpass.pending), the page
// answers over askpass.answer, and the new tab on the host opens.
func TestAskpassPageAnswersAndTabOpens(t *testing.T) {
	p := askpassSetup(t)
	prompts := make(chan api.AskpassPrompt, 8)
	p.mu.Lock()
	p.onEvent = func(name string, data json.RawMessage) {
		if name == api.EventAskpass {
			var ap api.AskpassPrompt
			json.Unmarshal(data, &ap)
			prompts <- ap
		}
	}
	p.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- callLong(p, "layout.newTab", map[string]any{"host": "box"}, 90*time.Second) }()
	var ap api.AskpassPrompt
	select {
	case ap = <-prompts:
	case err := <-done:
		t.Fatalf("newTab ended without asking: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("no askpass event")
	}
	if !ap.Open || ap.Host != "box" || ap.Kind != "secret" || !strings.Contains(ap.Prompt, "passphrase") {
		t.Fatalf("prompt %+v, want an open passphrase prompt for box", ap)
	}
	var pending []api.AskpassPrompt
	if err := p.call("askpass.pending", nil, &pending); err != nil || len(pending) != 1 || pending[0].ID != ap.ID {
		t.Fatalf("askpass.pending = %+v, %v; want the open prompt", pending, err)
	}
	if err := p.call("askpass.answer", map[string]any{"id": ap.ID, "secret": "open sesame"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("newTab on box after the answer: %v", err)
	}
	waitHostUp(t, p)
	if closed := <-prompts; closed.ID != ap.ID || closed.Open || closed.Outcome != "answered" {
		t.Errorf("then %+v, want the prompt closed as answered", closed)
	}
}

// Cancel in the page: the new tab fails with one line naming the cancel,
// promptly (not at the 60 s wait for the link), and the host is not asked
// again behind the user's back.
func TestAskpassPageCancelFailsClearly(t *testing.T) {
	p := askpassSetup(t)
	opened := make(chan api.AskpassPrompt, 8)
	p.mu.Lock()
	p.onEvent = func(name string, data json.RawMessage) {
		var ap api.AskpassPrompt
		if name == api.EventAskpass && json.Unmarshal(data, &ap) == nil && ap.Open {
			opened <- ap
			go p.call("askpass.answer", map[string]any{"id": ap.ID, "cancel": true}, nil)
		}
	}
	p.mu.Unlock()
	start := time.Now()
	err := callLong(p, "layout.newTab", map[string]any{"host": "box"}, 50*time.Second)
	if err == nil {
		t.Fatal("newTab on box succeeded with the prompt cancelled")
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "was cancelled") || !strings.Contains(msg, "ssh to box") {
		t.Errorf("error %q, want one line: ssh to box: … was cancelled", msg)
	}
	if d := time.Since(start); d > 45*time.Second {
		t.Errorf("took %v", d)
	}
	<-opened
	select {
	case again := <-opened:
		t.Errorf("asked again after the cancel: %+v", again)
	case <-time.After(2 * time.Second):
	}
}

// callLong is page.call with a longer wait for the reply (a connect that
// waits for the user's answer).
func callLong(p *page, method string, params any, d time.Duration) error {
	return p.callWithin(method, params, nil, d)
}

func waitHostUp(t *testing.T, p *page) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var hs []HostInfo
		if err := p.call("hosts.list", nil, &hs); err == nil && len(hs) == 1 && hs[0].Status.State == "up" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("host box did not come up")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
