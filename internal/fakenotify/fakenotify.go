// Package fakenotify is a freedesktop notification server for tests: it
// owns org.freedesktop.Notifications on a (private) session bus, records
// every Notify call, and invokes a notification's action on request, as a
// desktop's notification daemon does when the user clicks it.
package fakenotify

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
)

const (
	busName    = "org.freedesktop.Notifications"
	objectPath = dbus.ObjectPath("/org/freedesktop/Notifications")
	iface      = "org.freedesktop.Notifications"
	// TestIface is the server's own interface for tests: Invoke(id, action).
	TestIface = "dev.reprise.FakeNotifications"
)

// Note is one Notify call.
type Note struct {
	ID      uint32   `json:"id"`
	AppName string   `json:"appName"`
	Summary string   `json:"summary"`
	Body    string   `json:"body"`
	Actions []string `json:"actions"`
}

// Server is the fake notification daemon.
type Server struct {
	conn *dbus.Conn
	// OnNotify, when set, is called with each note (after it is recorded).
	OnNotify func(Note)

	mu    sync.Mutex // guards notes
	notes []Note
}

// Serve owns the notification name on conn and answers on it.
func Serve(conn *dbus.Conn) (*Server, error) {
	s := &Server{conn: conn}
	if err := conn.Export(notifications{s}, objectPath, iface); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := conn.Export(tester{s}, objectPath, TestIface); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	reply, err := conn.RequestName(busName, dbus.NameFlagDoNotQueue)
	if err != nil {
		return nil, fmt.Errorf("request name: %w", err)
	}
	if reply != dbus.RequestNameReplyPrimaryOwner {
		return nil, errors.New("request name: " + busName + " is taken")
	}
	return s, nil
}

// Notes returns the notes so far.
func (s *Server) Notes() []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Note(nil), s.notes...)
}

// Invoke emits ActionInvoked(id, action), as a click does.
func (s *Server) Invoke(id uint32, action string) error {
	return s.conn.Emit(objectPath, iface+".ActionInvoked", id, action)
}

type notifications struct{ s *Server }

func (n notifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.s.mu.Lock()
	id := replaces
	if id == 0 {
		id = uint32(len(n.s.notes) + 1)
	}
	note := Note{ID: id, AppName: app, Summary: summary, Body: body, Actions: actions}
	n.s.notes = append(n.s.notes, note)
	n.s.mu.Unlock()
	if n.s.OnNotify != nil {
		n.s.OnNotify(note)
	}
	return id, nil
}

func (n notifications) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"actions", "body"}, nil
}

func (n notifications) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "fakenotify", "reprise", "1", "1.2", nil
}

func (n notifications) CloseNotification(id uint32) *dbus.Error {
	if err := n.s.conn.Emit(objectPath, iface+".NotificationClosed", id, uint32(3)); err != nil {
		return dbus.MakeFailedError(err)
	}
	return nil
}

type tester struct{ s *Server }

// Invoke is the test interface's method: dbus-send … dev.reprise.FakeNotifications.Invoke uint32:ID string:default.
func (t tester) Invoke(id uint32, action string) *dbus.Error {
	if err := t.s.Invoke(id, action); err != nil {
		return dbus.MakeFailedError(err)
	}
	return nil
}

// Bus is a private session bus (dbus-daemon --session) for one test.
type Bus struct {
	Address string
	cmd     *exec.Cmd
}

// StartBus starts a dbus-daemon on a private session bus.
func StartBus() (*Bus, error) {
	exe, err := exec.LookPath("dbus-daemon")
	if err != nil {
		return nil, fmt.Errorf("dbus-daemon: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "--session", "--nofork", "--nopidfile", "--print-address=3")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("start dbus-daemon: %w", err)
	}
	w.Close()
	buf := make([]byte, 4096)
	var got strings.Builder
	for !strings.Contains(got.String(), "\n") {
		k, err := r.Read(buf)
		if err != nil {
			r.Close()
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil, fmt.Errorf("dbus-daemon address: %w", err)
		}
		got.Write(buf[:k])
	}
	r.Close()
	return &Bus{Address: strings.TrimSpace(got.String()), cmd: cmd}, nil
}

// Dial connects to the bus (authenticated, Hello sent).
func (b *Bus) Dial() (*dbus.Conn, error) {
	conn, err := dbus.Dial(b.Address)
	if err != nil {
		return nil, err
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// Stop ends the daemon.
func (b *Bus) Stop() {
	_ = b.cmd.Process.Kill()
	_ = b.cmd.Wait()
}
