package host

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Acknowledgements of a subscription's first bytes that arrive before
// Attach has stored the subscription are held and sent, not dropped: the
// daemon streams the replay as soon as it has the request, so an ack made
// in OnData (as here, and as a fast page's can be) may come first. Dropped,
// they left the replay counted in flight for good, and a replay over three
// quarters of the daemon's window (a 32 KiB start) stopped the terminal:
// a remote pane restored under a 512 KiB log never answered again (a CI
// run). Each attach, with a replay of ~200 KB, must answer.
func TestEarlyAcksOfTheReplayAreNotLost(t *testing.T) {
	home := newHome(t)
	h := startHost(t, home)
	defer h.Close()
	ctx := context.Background()
	id := panes(t, h)[0].TerminalID
	v := h.NewViewer()
	s := attach(t, v, id)
	v.Input(ctx, id, []byte("head -c 200000 /dev/zero | tr '\\0' y | fold -w 100; echo FILL''ED\n"))
	waitUntil(t, "the replay's output", 60*time.Second, func() bool { return strings.Contains(s.String(), "FILLED") })
	v.Close()
	for i := 0; i < 3; i++ {
		v := h.NewViewer()
		// The replay's acks all come before the viewer has stored the
		// subscription (on a loaded machine this happened on its own).
		v.testHookSubscribed = func() { time.Sleep(300 * time.Millisecond) }
		s := attach(t, v, id) // acknowledges each chunk from OnData, the replay's first
		mark := fmt.Sprintf("again-%d", i)
		v.Input(ctx, id, []byte("echo "+mark+"-$((1+1))\n"))
		waitUntil(t, "attach "+mark+" to answer", 30*time.Second, func() bool { return strings.Contains(s.String(), mark+"-2") })
		v.Close()
	}
}
