package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// lockedHost: a real sshd whose only key has a passphrase (no agent), host
// box on it in a fresh home.
func lockedHost(t *testing.T) (home string) {
	t.Helper()
	_, home, _ = sshBox(t, "open sesame")
	return home
}

// `reprise hosts check` from a terminal: ssh's passphrase prompt is asked
// on that terminal (echo off), and the answer connects.
func TestHostsCheckAsksOnTheTerminal(t *testing.T) {
	home := lockedHost(t)
	// A hang guard only: under load the remote login shell's rc file
	// (pyenv rehash here) can take most of a minute.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, reprise, "hosts", "check", "box", "--home", home)
	cmd.Env = append(os.Environ(), "SSH_AUTH_SOCK=")
	tty, err := pty.Start(cmd) // its controlling terminal
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	r := bufio.NewReader(tty)
	var seen strings.Builder
	readUntil := func(want string) {
		t.Helper()
		for !strings.Contains(seen.String(), want) {
			b, err := r.ReadByte()
			if err != nil {
				t.Fatalf("no %q on the terminal (%v); it showed %q", want, err, seen.String())
			}
			seen.WriteByte(b)
		}
	}
	readUntil("box asks: Enter passphrase for key")
	readUntil(": ")
	before := seen.Len()
	if _, err := tty.Write([]byte("open sesame\n")); err != nil {
		t.Fatal(err)
	}
	readUntil("box: ok (binary installed")
	if strings.Contains(seen.String()[before:], "open sesame") {
		t.Errorf("the passphrase was echoed: %q", seen.String())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("hosts check: %v\n%s", err, seen.String())
	}
}

// With no terminal (a script, cron) the prompt has nobody to ask: one line,
// at once.
func TestHostsCheckWithoutTerminalFailsClearly(t *testing.T) {
	home := lockedHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, reprise, "hosts", "check", "box", "--home", home)
	cmd.Env = append(os.Environ(), "SSH_AUTH_SOCK=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("hosts check = %v (ctx %v), want a failure before the deadline; %s", err, ctx.Err(), out.String())
	}
	msg := errb.String()
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "no terminal to ask on") || !strings.Contains(msg, "passphrase") {
		t.Errorf("stderr %q, want one line naming the prompt and that no terminal could be asked", msg)
	}
}
