package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/remote"
)

// errNoTerminal: the CLI was run with no controlling terminal (a script,
// cron), so ssh's prompt has nobody to ask.
var errNoTerminal = errors.New("no terminal to ask on (load the key into ssh-agent, or connect from the app)")

// cliAskpass serves ssh's prompts for a command the CLI runs itself (`hosts
// check`): on a private socket in the home's run directory, answered on
// the controlling terminal, or refused at once when there is none. The
// returned target is t with its prompts routed there.
func cliAskpass(t remote.Target, runDir, exe string) (remote.Target, func(), error) {
	sock := filepath.Join(runDir, fmt.Sprintf("askpass-%d.sock", os.Getpid()))
	stop, err := remote.ServeAskpass(sock, &remote.Broker{Respond: ttyRespond})
	if err != nil {
		return t, nil, err
	}
	t.Askpass = &remote.Askpass{Exe: exe, Sock: sock}
	return t, stop, nil
}

// ttyRespond asks on /dev/tty: a secret with echo off, a yes/no question
// as a typed word.
func ttyRespond(ctx context.Context, p api.AskpassPrompt) ([]byte, bool, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, false, errNoTerminal
	}
	type result struct {
		line []byte
		err  error
	}
	fd := int(tty.Fd())
	var restore *unix.Termios
	if p.Kind == remote.KindSecret {
		if old, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			noEcho := *old
			noEcho.Lflag &^= unix.ECHO
			noEcho.Lflag |= unix.ICANON
			if unix.IoctlSetTermios(fd, unix.TCSETS, &noEcho) == nil {
				restore = old
			}
		}
	}
	done := func() {
		if restore != nil {
			_ = unix.IoctlSetTermios(fd, unix.TCSETS, restore)
			fmt.Fprintln(tty) // the Enter the user typed was not echoed
		}
		tty.Close()
	}
	q := p.Prompt
	if p.Kind == remote.KindConfirm && !strings.Contains(q, "(yes/no") {
		q += " (yes/no)"
	}
	fmt.Fprintf(tty, "%s asks: %s ", p.Host, q)
	ch := make(chan result, 1)
	go func() {
		line, err := bufio.NewReaderSize(tty, remote.MaxAnswerBytes+2).ReadSlice('\n')
		// ReadSlice's buffer is the reader's: copy, so the caller owns it.
		ch <- result{append([]byte(nil), line...), err}
		remote.Zero(line)
	}()
	select {
	case r := <-ch:
		done()
		if r.err != nil {
			remote.Zero(r.line)
			return nil, false, remote.ErrAskCancelled
		}
		ans := []byte(strings.TrimRight(string(r.line), "\r\n"))
		remote.Zero(r.line)
		if p.Kind == remote.KindConfirm {
			return nil, string(ans) == "yes", nil
		}
		return ans, false, nil
	case <-ctx.Done():
		done()
		return nil, false, remote.ErrAskTimeout
	}
}
