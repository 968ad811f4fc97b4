// Package notify shows desktop notifications for the window over D-Bus
// (the freedesktop Desktop Notifications spec, org.freedesktop.Notifications
// on the session bus) and reports when the user clicks one. The page decides
// when to notify (frontend/src/attention); this package only delivers, and
// maps a notification's default action back to the pane it was about.
package notify

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/godbus/dbus/v5"
)

// The spec's names.
const (
	busName    = "org.freedesktop.Notifications"
	objectPath = dbus.ObjectPath("/org/freedesktop/Notifications")
	iface      = "org.freedesktop.Notifications"
	// DefaultAction is the action a server invokes when the notification
	// itself is clicked.
	DefaultAction = "default"
)

// maxTracked bounds the notification id → pane map: servers that never
// send NotificationClosed must not make it grow forever.
const maxTracked = 256

// Notifier sends notifications on one session bus connection, made on the
// first Notify (a window without a notification server still runs).
type Notifier struct {
	appName  string
	log      *slog.Logger
	activate func(paneID string)
	connect  func() (*dbus.Conn, error)

	mu    sync.Mutex // guards the fields below
	conn  *dbus.Conn
	panes map[uint32]string // notification id → pane id, until closed
	order []uint32          // ids in panes, oldest first
	done  chan struct{}     // closed by Close
}

// New returns a Notifier for the session bus ($DBUS_SESSION_BUS_ADDRESS);
// activate is called (on its own goroutine) with the pane of a notification
// whose default action was invoked.
func New(appName string, logger *slog.Logger, activate func(paneID string)) *Notifier {
	return &Notifier{
		appName: appName, log: logger.With("component", "notify"), activate: activate,
		connect: func() (*dbus.Conn, error) { return dbus.ConnectSessionBus() },
		panes:   map[uint32]string{}, done: make(chan struct{}),
	}
}

// Notify shows one notification about paneID and returns its id.
func (n *Notifier) Notify(title, body, paneID string) (uint32, error) {
	conn, err := n.bus()
	if err != nil {
		return 0, err
	}
	hints := map[string]dbus.Variant{
		"desktop-entry": dbus.MakeVariant("reprise"),
		"category":      dbus.MakeVariant("im.received"),
	}
	var id uint32
	call := conn.Object(busName, objectPath).Call(iface+".Notify", 0,
		n.appName, uint32(0), "", title, body, []string{DefaultAction, "Show"}, hints, int32(-1))
	if err := call.Store(&id); err != nil {
		return 0, fmt.Errorf("notify: %w", err)
	}
	n.mu.Lock()
	n.panes[id] = paneID
	n.order = append(n.order, id)
	if len(n.order) > maxTracked {
		delete(n.panes, n.order[0])
		n.order = n.order[1:]
	}
	n.mu.Unlock()
	n.log.Info("notification shown", "id", id, "pane", paneID)
	return id, nil
}

// Close drops the bus connection.
func (n *Notifier) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	select {
	case <-n.done:
		return nil
	default:
		close(n.done)
	}
	if n.conn != nil {
		return n.conn.Close()
	}
	return nil
}

// bus is the connection, made (and subscribed to the server's signals) on
// first use.
func (n *Notifier) bus() (*dbus.Conn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	select {
	case <-n.done:
		return nil, errors.New("notify: closed")
	default:
	}
	if n.conn != nil && n.conn.Connected() {
		return n.conn, nil
	}
	conn, err := n.connect()
	if err != nil {
		return nil, fmt.Errorf("notify: session bus: %w", err)
	}
	for _, member := range []string{"ActionInvoked", "NotificationClosed"} {
		if err := conn.AddMatchSignal(dbus.WithMatchInterface(iface), dbus.WithMatchMember(member), dbus.WithMatchObjectPath(objectPath)); err != nil {
			conn.Close()
			return nil, fmt.Errorf("notify: subscribe to %s: %w", member, err)
		}
	}
	ch := make(chan *dbus.Signal, 16)
	conn.Signal(ch)
	n.conn = conn
	go n.listen(ch)
	return conn, nil
}

func (n *Notifier) listen(ch <-chan *dbus.Signal) {
	defer func() {
		if r := recover(); r != nil {
			n.log.Error("notification signals", "panic", r)
		}
	}()
	for sig := range ch {
		if len(sig.Body) < 1 {
			continue
		}
		id, ok := sig.Body[0].(uint32)
		if !ok {
			continue
		}
		switch sig.Name {
		case iface + ".ActionInvoked":
			if len(sig.Body) < 2 {
				continue
			}
			action, _ := sig.Body[1].(string)
			n.mu.Lock()
			pane, known := n.panes[id]
			n.mu.Unlock()
			if !known || action != DefaultAction && action != "Show" {
				continue
			}
			n.log.Info("notification clicked", "id", id, "pane", pane, "action", action)
			n.activate(pane)
		case iface + ".NotificationClosed":
			n.mu.Lock()
			delete(n.panes, id)
			n.mu.Unlock()
		}
	}
}
