package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/layout"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// A remote terminal its daemon lost comes back as a local one does: the
// pane gets a new shell on that host, in the same remote directory, under
// the old output (read from the log the terminal left on the remote disk)
// and the divider; an agent's pane offers Resume, which brings the
// conversation back there. A log longer than the restore budget shows its
// end with a label saying how much is not shown, never a silent cut.
func TestRemoteLostTerminalComesBack(t *testing.T) {
	t.Run("daemon killed", func(t *testing.T) { testRemoteLostComesBack(t, false) })
	t.Run("remote reboot", func(t *testing.T) { testRemoteLostComesBack(t, true) })
}

func paneTerminal(t *testing.T, h *Host, paneID string) string {
	t.Helper()
	l, err := h.store.LoadLayout(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range layout.Panes(l) {
		if p.PaneID == paneID {
			return p.TerminalID
		}
	}
	return ""
}

func testRemoteLostComesBack(t *testing.T, reboot bool) {
	h, _, rh := remoteHost(t)
	ctx := context.Background()
	work := filepath.Join(rh, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	res, v, _ := remoteAgent(t, h, work, "KIWI-7")

	// A shell tab on the host that prints more than the restore budget.
	if _, err := h.NewTabOn(ctx, "box", work); err != nil {
		t.Fatal(err)
	}
	var shell api.Terminal
	ts, err := h.Terminals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range ts {
		if tm.Host == "box" && tm.Status == api.StatusRunning && tm.ID != res.TerminalID {
			shell = tm
		}
	}
	if shell.ID == "" {
		t.Fatal("no remote shell tab")
	}
	if err := v.Input(ctx, shell.ID, []byte("echo BIG-$((1+1))-START; head -c 700000 /dev/zero | tr '\\0' x | fold -w 99; echo BIG-$((1+1))-END\n")); err != nil {
		t.Fatal(err)
	}
	shellLog := filepath.Join(rh, "scrollback", shell.ID+".log")
	waitUntil(t, "the shell's output in its remote log", 60*time.Second, func() bool {
		b, _ := os.ReadFile(shellLog)
		return strings.Contains(string(b), "BIG-2-END")
	})

	// "Remote reboot": the daemon and every other process of the remote
	// home at once. The daemon goes first: a daemon that outlived its
	// terminals by a moment would report their deaths (exited by SIGKILL,
	// an honest outcome too, but not this test's), where a reboot leaves
	// no one to tell.
	killRemoteDaemon(t, h)
	if reboot {
		testenv.StopInstance(rh)
	}
	var agentNew, shellNew string
	waitUntil(t, "both panes to get new terminals", 30*time.Second, func() bool {
		agentNew, shellNew = paneTerminal(t, h, res.PaneID), paneTerminal(t, h, shell.PaneID)
		return agentNew != res.TerminalID && shellNew != shell.ID && agentNew != "" && shellNew != ""
	})
	for _, c := range []struct{ old, now string }{{res.TerminalID, agentNew}, {shell.ID, shellNew}} {
		old, err := h.Terminal(ctx, c.old)
		if err != nil || old.Status != api.StatusLost {
			t.Fatalf("the lost terminal %+v, %v; want lost", old, err)
		}
		nt, err := h.Terminal(ctx, c.now)
		if err != nil || nt.Host != "box" || nt.Cwd != work || nt.Status != api.StatusRunning || nt.RestoredFrom != c.old {
			t.Fatalf("pane's new terminal %+v, %v; want running on box in %s, restored from %s", nt, err, work, c.old)
		}
		// The old log was restored into the new terminal's and goes.
		waitUntil(t, "the lost terminal's remote log to go", 20*time.Second, func() bool {
			_, err := os.Stat(filepath.Join(rh, "scrollback", c.old+".log"))
			return os.IsNotExist(err)
		})
	}

	// The agent's pane: its output, the divider, the banner's binding.
	as := attach(t, v, agentNew)
	waitUntil(t, "the agent's old output above the divider", 20*time.Second, func() bool {
		s := as.String()
		i, j := strings.Index(s, "ack: remember KIWI-7"), strings.Index(s, Divider)
		return i >= 0 && j > i
	})
	bs, err := h.store.GetBinding(ctx, res.TerminalID)
	if err != nil {
		t.Fatal(err)
	}
	if b := h.bindingToAPI(ctx, bs); b.EndReason != bindings.TerminalExited || !b.Candidate || b.PaneID != res.PaneID {
		t.Fatalf("binding of the lost agent %+v; want terminal-exited, a candidate, in pane %s", b, res.PaneID)
	}

	// The shell's pane: the end of its output, labelled as cut.
	ss := attach(t, v, shellNew)
	waitUntil(t, "the shell's old output, labelled, above the divider", 20*time.Second, func() bool {
		s := ss.String()
		l, e, d := strings.Index(s, "beyond the restore budget"), strings.Index(s, "BIG-2-END"), strings.Index(s, Divider)
		return l >= 0 && e > l && d > e
	})
	if s := ss.String(); strings.Contains(s[:strings.Index(s, Divider)], "BIG-2-START\r\n") {
		t.Fatalf("the restored tail holds the start of a 700 kB output: the budget was not applied")
	}

	shellAnswers(t, v, agentNew, as)
	shellAnswers(t, v, shellNew, ss)

	// Resume from the banner: on that host, in that pane, the conversation.
	r, err := h.Resume(ctx, res.TerminalID)
	if err != nil {
		t.Fatal(err)
	}
	codewordBack(t, v, r, res.PaneID, "KIWI-7")
}
