// Command fakenotifyd is the fake notification daemon (internal/fakenotify)
// on the session bus of $DBUS_SESSION_BUS_ADDRESS, for the desktop smoke
// test. It prints "ready" once it owns the name, then one JSON line per
// Notify call; a click is
//
//	dbus-send --session --dest=org.freedesktop.Notifications --type=method_call \
//	  /org/freedesktop/Notifications dev.reprise.FakeNotifications.Invoke uint32:ID string:default
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/godbus/dbus/v5"

	"github.com/reprise-dev/reprise/internal/fakenotify"
)

func main() {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakenotifyd: %v\n", err)
		os.Exit(1)
	}
	s, err := fakenotify.Serve(conn)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakenotifyd: %v\n", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	s.OnNotify = func(n fakenotify.Note) { _ = enc.Encode(n) }
	fmt.Println("ready")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}
