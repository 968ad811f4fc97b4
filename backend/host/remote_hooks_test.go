package host

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/hooks/payload"
	"github.com/reprise-dev/reprise/backend/inbox"
)

// remoteBinding is the stored binding of a remote terminal.
func remoteBinding(t *testing.T, h *Host, id string) bindings.Binding {
	t.Helper()
	b, err := h.store.GetBinding(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// remoteInboxFiles lists the records waiting in the remote home's inbox.
func remoteInboxFiles(t *testing.T, rh string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(rh, "inbox", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// startRemoteClaude runs the fake Claude on the remote host, prompted with
// a codeword, and waits until its hooks have reported the finished turn to
// this host's binding (through the remote inbox and the relay).
func startRemoteClaude(t *testing.T, h *Host, rh, codeword string) (api.CreateAgentResult, *Viewer, string) {
	t.Helper()
	ctx := context.Background()
	work := filepath.Join(rh, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	res, err := h.CreateAgent(ctx, api.CreateAgentRequest{Agent: "claude", Prompt: "remember " + codeword, Host: "box", Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	v := h.NewViewer()
	t.Cleanup(v.Close)
	scr := attach(t, v, res.TerminalID)
	waitUntil(t, "the agent's answer", 30*time.Second, func() bool { return strings.Contains(scr.String(), "ack: remember "+codeword) })
	// The Stop hook of the turn ran on the remote: the host learns it.
	waitUntil(t, "the remote agent's Stop hook at the host", 30*time.Second, func() bool {
		return remoteBinding(t, h, res.TerminalID).LastEvent == bindings.KindStop
	})
	// And its record is gone from the remote inbox: the host applies a
	// record before it acks it, so the binding can say Stop while the ack
	// is still on its way and the record still on the remote (a test that
	// then cuts the link would find it there, to be sent again).
	waitUntil(t, "the remote inbox emptied by the acks", 30*time.Second, func() bool { return len(remoteInboxFiles(t, rh)) == 0 })
	return res, v, work
}

// A remote Claude that says goodbye (/exit): its SessionEnd and the launch
// wrapper's exit status reach the host, so the binding ends as the goodbye
// (detached, no banner) and stays so when the pane's shell then exits —
// not terminal-exited, as a death would be.
func TestRemoteAgentGoodbyeReachesHost(t *testing.T) {
	h, _, rh := remoteHost(t)
	ctx := context.Background()
	res, v, _ := startRemoteClaude(t, h, rh, "PLUM-7")
	if err := v.Input(ctx, res.TerminalID, []byte("/exit\r")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the goodbye at the host", 30*time.Second, func() bool {
		b := remoteBinding(t, h, res.TerminalID)
		return b.EndReason == bindings.Detached && b.ExitStatus != nil
	})
	if b := remoteBinding(t, h, res.TerminalID); *b.ExitStatus != 0 || b.SessionID != res.SessionID {
		t.Fatalf("binding after /exit: %+v", b)
	}
	// Sessions say where the conversation lives.
	ss, err := h.Sessions(ctx, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(ss, func(s api.Session) bool { return s.SessionID == res.SessionID }); i < 0 || ss[i].Host != "box" {
		t.Fatalf("sessions %+v: want %s on host box", ss, res.SessionID)
	}
	// The pane fell back to the remote shell; ending it ends the terminal.
	if err := v.Input(ctx, res.TerminalID, []byte("exit\r")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the terminal ended", 30*time.Second, func() bool {
		tm, err := h.Terminal(ctx, res.TerminalID)
		return err == nil && tm.Status != api.StatusRunning
	})
	b, err := h.Binding(ctx, res.TerminalID)
	if err != nil {
		t.Fatal(err)
	}
	if b.EndReason != bindings.Detached || b.Candidate {
		t.Fatalf("binding after a clean quit and the shell's exit: reason %q candidate %v, want detached and no banner", b.EndReason, b.Candidate)
	}
	waitUntil(t, "the remote inbox emptied by the acks", 30*time.Second, func() bool { return len(remoteInboxFiles(t, rh)) == 0 })
}

// A hook event fired on the remote while the link is down (the
// ControlMaster killed with SIGKILL, the server not answering new
// connections) stays in the remote inbox, is not applied while down, and
// arrives once the link is back — once, and the remote copy is deleted
// after the host's ack.
func TestRemoteHookWhileLinkDownArrivesAfterReconnect(t *testing.T) {
	h, s, rh := remoteHost(t)
	ctx := context.Background()
	res, _, work := startRemoteClaude(t, h, rh, "FIG-9")

	// Keep the link down: sshd stopped takes no new connection (the
	// sessions it already forked are other processes).
	if err := syscall.Kill(s.Cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			_ = syscall.Kill(s.Cmd.Process.Pid, syscall.SIGCONT)
		}
	}()
	dropLink(t, h)
	waitUntil(t, "the host disconnected", 30*time.Second, func() bool { return h.HostStatus("box").State == "disconnected" })

	// The agent's hook command, as Claude runs it on the remote.
	hook := exec.Command(filepath.Join(rh, "bin", "reprise"), "hook", "claude", "SessionEnd")
	hook.Env = append(os.Environ(), "REPRISE_HOME="+rh, "REPRISE_TERMINAL_ID="+res.TerminalID)
	hook.Stdin = strings.NewReader(`{"session_id":"` + res.SessionID + `","hook_event_name":"SessionEnd","reason":"prompt_input_exit","cwd":"` + work + `"}`)
	if out, err := hook.CombinedOutput(); err != nil {
		t.Fatalf("remote hook: %v: %s", err, out)
	}
	if n := len(remoteInboxFiles(t, rh)); n != 1 {
		t.Fatalf("remote inbox holds %d records, want the 1 fired while down", n)
	}
	if b := remoteBinding(t, h, res.TerminalID); b.EndReason != bindings.Live {
		t.Fatalf("binding changed while the link was down: %+v", b)
	}

	if err := syscall.Kill(s.Cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopped = false
	back := time.Now()
	h.KickRemote("box")
	waitUntil(t, "the link back", 60*time.Second, func() bool { return h.HostStatus("box").State == "up" })
	up := time.Since(back)
	// The relay caught up before the link was offered: the event is
	// applied by the time the host says "up".
	if b := remoteBinding(t, h, res.TerminalID); b.EndReason != bindings.Detached {
		t.Fatalf("link up but the event from while down not applied: %+v", b)
	}
	t.Logf("link up %v after the server answered again, the event from while down applied", up.Round(time.Millisecond))
	waitUntil(t, "the remote record deleted after the ack", 30*time.Second, func() bool { return len(remoteInboxFiles(t, rh)) == 0 })
	if tm, err := h.Terminal(ctx, res.TerminalID); err != nil || tm.Status != api.StatusRunning {
		t.Fatalf("terminal %+v, %v: want still running (only the agent said goodbye)", tm, err)
	}
}

// A remote host's inbox may only speak for terminals on that host: a
// relayed record naming a terminal of this machine is set aside and its
// binding is untouched.
func TestRemoteRecordForLocalTerminalRefused(t *testing.T) {
	h := startHost(t, newHome(t))
	defer h.Close()
	ctx := context.Background()
	term, err := h.createTerminal(ctx, newTerminal{cwd: "/", argv: []string{"/bin/sh", "-c", "exec sleep 600"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.applyBinding(ctx, term.ID, bindings.Input{Kind: bindings.KindLaunch, AgentID: "claude", SessionID: "s-local", Cwd: "/", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	rec, err := json.Marshal(HookRecord{TerminalID: term.ID, At: time.Now(), Event: payload.Event{
		Agent: "claude", Kind: payload.KindSessionEnd, SessionID: "s-local", Reason: "prompt_input_exit"}})
	if err != nil {
		t.Fatal(err)
	}
	e := &remoteEP{name: "box"}
	reply, err := h.applyRemoteRecord(ctx, e, inbox.RelayMsg{Name: "00000000000000000001-aa.json", Record: rec})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Reject == "" || reply.Ack != "" {
		t.Fatalf("reply %+v, want a reject", reply)
	}
	if b := remoteBinding(t, h, term.ID); b.EndReason != bindings.Live {
		t.Fatalf("a remote record moved a local binding: %+v", b)
	}
}
