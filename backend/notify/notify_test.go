package notify

import (
	"io"
	"log/slog"
	"os/exec"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/reprise-dev/reprise/internal/fakenotify"
)

// A real dbus-daemon on a private bus, the fake notification daemon on it:
// Notify reaches the server with the title and body, and the server's
// default action comes back as the pane it was about; other actions and
// unknown ids do not.
func TestNotifyAndDefaultAction(t *testing.T) {
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("dbus-daemon not installed")
	}
	bus, err := fakenotify.StartBus()
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Stop()
	sconn, err := bus.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer sconn.Close()
	srv, err := fakenotify.Serve(sconn)
	if err != nil {
		t.Fatal(err)
	}

	clicked := make(chan string, 4)
	n := New("Reprise", slog.New(slog.NewTextHandler(io.Discard, nil)), func(p string) { clicked <- p })
	n.connect = func() (*dbus.Conn, error) { return bus.Dial() }
	defer n.Close()

	id, err := n.Notify("Claude Code needs your input", "in proj", "p_1")
	if err != nil {
		t.Fatal(err)
	}
	id2, err := n.Notify("Codex finished its turn", "in other", "p_2")
	if err != nil {
		t.Fatal(err)
	}
	notes := srv.Notes()
	if len(notes) != 2 || notes[0].Summary != "Claude Code needs your input" || notes[0].Body != "in proj" || notes[0].AppName != "Reprise" {
		t.Fatalf("server got %+v", notes)
	}
	if len(notes[0].Actions) < 2 || notes[0].Actions[0] != DefaultAction {
		t.Fatalf("actions %v: the default action must be offered", notes[0].Actions)
	}

	if err := srv.Invoke(999, DefaultAction); err != nil { // not ours
		t.Fatal(err)
	}
	if err := srv.Invoke(id, "snooze"); err != nil { // not a click
		t.Fatal(err)
	}
	if err := srv.Invoke(id2, DefaultAction); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-clicked:
		if p != "p_2" {
			t.Fatalf("clicked pane %q, want p_2 (unknown ids and other actions must be ignored)", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the default action did not come back")
	}
}

// No notification server on the bus: Notify fails with an error, no hang.
func TestNotifyWithoutServer(t *testing.T) {
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("dbus-daemon not installed")
	}
	bus, err := fakenotify.StartBus()
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Stop()
	n := New("Reprise", slog.New(slog.NewTextHandler(io.Discard, nil)), func(string) {})
	n.connect = func() (*dbus.Conn, error) { return bus.Dial() }
	defer n.Close()
	if _, err := n.Notify("t", "b", "p"); err == nil {
		t.Fatal("Notify without a server succeeded")
	}
}
