package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/remote"
)

// askpassRemoteHost is remoteHost with a passphrase-protected key as the
// only one the client offers (no agent), and the host's askpass broker
// served on its local API socket as the desktop app does. setup runs
// before the broker is served (to set its fields).
func askpassRemoteHost(t *testing.T, pass string, setup func(h *Host)) *Host {
	t.Helper()
	h, s, _ := remoteHost(t)
	s.LockKey(t, pass)
	t.Setenv("SSH_AUTH_SOCK", "")
	if setup != nil {
		setup(h)
	}
	stop, err := remote.ServeAskpass(h.cfg.Home.HostSocket(), h.Askpass())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return h
}

// connectUntilPrompt starts the host's link to box (as a first tab on it
// does) and returns the prompt ssh opened. The tab under test comes after:
// it finds the prompt open, whatever the time the login took to ask.
func connectUntilPrompt(t *testing.T, h *Host) api.AskpassPrompt {
	t.Helper()
	if _, err := h.endpoint(context.Background(), "box"); err != nil {
		t.Fatal(err)
	}
	var p api.AskpassPrompt
	waitUntil(t, "the passphrase prompt", 60*time.Second, func() bool {
		ps := h.Askpass().Pending()
		if len(ps) == 1 {
			p = ps[0]
		}
		return len(ps) == 1
	})
	return p
}

// A new tab on a host whose passphrase prompt is open in the window does
// not give up at its wait for the link while the user types: it waits for
// the answer, then opens. Before, the tab failed at the fixed 60 s while
// the prompt was still open (here the wait is shortened to 300 ms, the
// prompt held open well past it).
func TestNewTabWaitsWhilePromptIsOpen(t *testing.T) {
	h := askpassRemoteHost(t, "open sesame", nil)
	h.newTabWait = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := connectUntilPrompt(t, h)
	done := make(chan error, 1)
	go func() {
		_, err := h.NewTabOn(ctx, "box", "")
		done <- err
	}()
	if p.Host != "box" || !strings.Contains(p.Prompt, "passphrase") {
		t.Fatalf("prompt %+v, want box's passphrase", p)
	}
	// The user takes their time: several times the tab's wait.
	select {
	case err := <-done:
		t.Fatalf("the new tab ended while the prompt was open: %v", err)
	case <-time.After(5 * h.newTabWait):
	}
	if err := h.Askpass().Answer(p.ID, []byte("open sesame"), false, false); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("new tab on box after the answer: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the new tab did not open after the answer")
	}
	terms, err := h.store.ListTerminals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	on := 0
	for _, tm := range terms {
		if tm.Host == "box" && tm.Status == api.StatusRunning {
			on++
		}
	}
	if on != 1 {
		t.Errorf("%d running terminals on box, want the new tab's 1", on)
	}
}

// A prompt left unanswered until its own limit ends the waiting tab then,
// with one line saying so — not at the tab's shorter wait, and not after
// the grace that follows an answer.
func TestNewTabPromptUnansweredFailsWithItsLine(t *testing.T) {
	h := askpassRemoteHost(t, "open sesame", func(h *Host) {
		h.Askpass().Timeout = 1500 * time.Millisecond
	})
	h.newTabWait = 300 * time.Millisecond
	h.promptGrace = 10 * time.Minute // only a status report may end the wait
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	connectUntilPrompt(t, h)
	done := make(chan error, 1)
	go func() {
		_, err := h.NewTabOn(ctx, "box", "")
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("the new tab still waits after the prompt timed out")
	}
	if err == nil {
		t.Fatal("a new tab opened with the prompt unanswered")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "box") || !strings.Contains(msg, "was not answered") {
		t.Errorf("error %q, want one line: box's prompt was not answered", msg)
	}
}
