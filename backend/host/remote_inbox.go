package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/reprise-dev/reprise/backend/inbox"
	"github.com/reprise-dev/reprise/backend/store"
)

// The remote inbox relay: hooks of agents on a remote host write to the
// remote home's inbox (durable there, as locally), and the host streams it
// over the host's ControlMaster with `reprise inbox drain --stdio`
// (docs/wire.md, "Remote inbox relay"). Each record is applied through the
// same path as a local hook event (handleHook), and acknowledged only
// after that committed; the remote deletes a record only on its ack. So a
// record survives a dropped link on the remote side, and is applied once:
// one whose ack was lost comes again and is recognised by its name, which
// the store wrote in the same transaction as the record's binding change
// (store.ApplyBindingMarked): also after a host restart, it is acked and
// not applied twice.

// relayRetry is the pause before a relay that ended is started again while
// the link stays up.
const relayRetry = 2 * time.Second

// relayLoop keeps one relay running while ctx (the link) lasts. caughtUp
// is called once the first relay has delivered everything that was
// waiting, or has failed (a relay that cannot run must not hold up the
// reconcile).
func (h *Host) relayLoop(ctx context.Context, e *remoteEP, caughtUp func()) {
	defer h.wg.Done()
	log := h.log.With("host", e.name, "component", "inbox-relay")
	for ctx.Err() == nil {
		err := h.relayRemoteInbox(ctx, e, caughtUp)
		caughtUp()
		if ctx.Err() != nil {
			return
		}
		log.Warn("remote inbox relay ended; restarting", "err", err, "retry", relayRetry)
		select {
		case <-ctx.Done():
			return
		case <-time.After(relayRetry):
		}
	}
}

// relayRemoteInbox runs one `reprise inbox drain --stdio` on the host and
// applies what it sends until it ends or ctx is done.
func (h *Host) relayRemoteInbox(ctx context.Context, e *remoteEP, caughtUp func()) error {
	cmd, err := e.target.Command(ctx, e.target.RelayCommand())
	if err != nil {
		return err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4096}
	// A channel of the host's master (remote.Target.Command started it if
	// none ran): it never logs in on its own.
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the remote inbox relay: %w", err)
	}
	runErr := h.relayStream(ctx, e, stdout, stdin, caughtUp)
	_ = stdin.Close()
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	if runErr != nil {
		return runErr
	}
	if waitErr != nil {
		return fmt.Errorf("remote inbox relay: %w: %s", waitErr, lastLineOf(stderr.String()))
	}
	return errors.New("remote inbox relay ended")
}

func (h *Host) relayStream(ctx context.Context, e *remoteEP, r io.Reader, w io.Writer, caughtUp func()) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	bw := bufio.NewWriter(w)
	for sc.Scan() {
		var m inbox.RelayMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return fmt.Errorf("remote inbox relay: bad line: %w", err)
		}
		if m.Idle {
			caughtUp()
			continue
		}
		reply, err := h.applyRemoteRecord(ctx, e, m)
		if err != nil {
			return err
		}
		b, _ := json.Marshal(reply)
		if _, err := bw.Write(append(b, '\n')); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// applyRemoteRecord applies one relayed hook record, tagged with its host:
// a record naming a terminal that is not on this host is refused (a
// remote must not move the bindings of terminals elsewhere).
func (h *Host) applyRemoteRecord(ctx context.Context, e *remoteEP, m inbox.RelayMsg) (inbox.RelayReply, error) {
	if m.Name == "" {
		return inbox.RelayReply{}, errors.New("remote inbox relay: a record without a name")
	}
	var rec HookRecord
	if err := json.Unmarshal(m.Record, &rec); err != nil || rec.TerminalID == "" {
		h.log.Warn("malformed remote hook record set aside", "host", e.name, "record", m.Name, "err", err)
		return inbox.RelayReply{Reject: m.Name}, nil
	}
	if host := h.hostOf(ctx, rec.TerminalID); host != e.name {
		h.log.Warn("remote hook record for a terminal not on that host set aside", "host", e.name, "record", m.Name, "terminal", rec.TerminalID, "terminal_host", host)
		return inbox.RelayReply{Reject: m.Name}, nil
	}
	mark := store.RelayMark{Host: e.name, Name: m.Name}
	h.drainMu.Lock()
	applied, err := h.store.RelayApplied(ctx, mark)
	if err == nil && !applied {
		err = h.handleHookMarked(ctx, rec, &mark)
	}
	h.drainMu.Unlock()
	if applied {
		// Applied before its ack was lost (the link dropped, or this host
		// stopped, in between).
		h.log.Info("remote hook record applied before; acknowledged again", "host", e.name, "record", m.Name)
		return inbox.RelayReply{Ack: m.Name}, nil
	}
	if errors.Is(err, store.ErrNotFound) {
		h.log.Warn("remote hook event for an unknown terminal set aside", "host", e.name, "record", m.Name, "terminal", rec.TerminalID)
		return inbox.RelayReply{Reject: m.Name}, nil
	}
	if err != nil {
		return inbox.RelayReply{}, err
	}
	return inbox.RelayReply{Ack: m.Name}, nil
}

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		q := p
		if len(q) > l.n {
			q = q[:l.n]
		}
		l.n -= len(q)
		_, _ = l.w.Write(q)
	}
	return len(p), nil
}

func lastLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
