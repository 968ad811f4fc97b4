package host

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// ipIn runs ip in network namespace ns.
func ipIn(t *testing.T, ns string, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", append([]string{"-n", ns}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("ip -n %s %s: %v: %s", ns, strings.Join(args, " "), err, out)
	}
}

// An address added in the namespace the watcher watches is a change.
func TestNetChangesSeesAddressChange(t *testing.T) {
	ns := testenv.NetNS(t, "rlw")
	n, err := openNetChangesIn("/var/run/netns/" + ns)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan struct{}, 16)
	go n.run(ctx, func() { changed <- struct{}{} })
	ipIn(t, ns, "link", "set", "lo", "up")
	ipIn(t, ns, "addr", "add", "10.77.0.1/32", "dev", "lo")
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatal("no change reported for an interface going up and an address added")
	}
}

// A remote host whose link is down and whose reconnect failed waits out
// its backoff, unless the network changes: then it retries at once. Here
// the backoff is an hour, so only the network change can bring the link
// back within the test.
func TestNetworkChangeReconnectsAtOnce(t *testing.T) {
	ns := testenv.NetNS(t, "rlk")
	oldMin, oldMax, oldNS := linkRetryMin, linkRetryMax, netwatchNetns
	linkRetryMin, linkRetryMax, netwatchNetns = time.Hour, time.Hour, "/var/run/netns/"+ns
	// Registered before remoteHost's: restored after the host has stopped.
	t.Cleanup(func() { linkRetryMin, linkRetryMax, netwatchNetns = oldMin, oldMax, oldNS })
	h, s, _ := remoteHost(t)
	ctx := context.Background()
	term, err := h.createTerminal(ctx, newTerminal{host: "box", cwd: "/", argv: []string{"/bin/sh", "-c", "echo started; exec sleep 600"}})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the link up", 20*time.Second, func() bool { return h.HostStatus("box").State == "up" })

	// The network goes: the server is unreachable and the link drops; the
	// first reconnect fails and the supervisor waits out its backoff.
	s.Stop()
	dropLink(t, h)
	waitUntil(t, "a failed reconnect", 20*time.Second, func() bool {
		st := h.HostStatus("box")
		return st.State == "disconnected" && st.Message != "link lost"
	})
	// The network comes back; the kernel says so.
	s.Restart(t)
	ipIn(t, ns, "link", "set", "lo", "up")
	ipIn(t, ns, "addr", "add", "10.77.0.2/32", "dev", "lo")
	waitUntil(t, "the link back without waiting out the backoff", 30*time.Second, func() bool { return h.HostStatus("box").State == "up" })
	tm, err := h.Terminal(ctx, term.ID)
	if err != nil || tm.Status != api.StatusRunning || tm.PID != term.PID {
		t.Fatalf("after the reconnect the terminal is %+v (%v), want the same running pid %d", tm, err, term.PID)
	}
}
