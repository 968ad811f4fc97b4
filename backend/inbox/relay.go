package inbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// RelayMsg is one line the relay writes (docs/wire.md, "Remote inbox
// relay"): a record to apply, or Idle once it has sent everything that
// was waiting.
type RelayMsg struct {
	Name   string          `json:"name,omitempty"`
	Record json.RawMessage `json:"record,omitempty"`
	Idle   bool            `json:"idle,omitempty"`
}

// RelayReply is one line the consumer writes back for a record: Ack once
// it has committed the record (the relay deletes it then), Reject when it
// can never accept it (the relay moves it to rejected/).
type RelayReply struct {
	Ack    string `json:"ack,omitempty"`
	Reject string `json:"reject,omitempty"`
}

// errProtocol: the consumer replied to something other than the record in
// flight; the record stays for the next relay.
var errProtocol = errors.New("inbox relay: reply does not name the record in flight")

// Relay streams the inbox to a consumer on the other end of r/w (the host,
// over ssh): each record as one line, then it waits for the reply naming
// it; only an ack deletes the record, so one whose ack never arrives (the
// link dropped) is sent again by the next relay — the consumer skips those
// it already applied, by name. It polls for new records every poll and
// returns nil when r ends (the link is gone) or ctx is done.
func Relay(ctx context.Context, in Inbox, r io.Reader, w io.Writer, poll time.Duration) error {
	replies := make(chan RelayReply)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			var m RelayReply
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				readErr <- fmt.Errorf("inbox relay: bad reply: %w", err)
				return
			}
			select {
			case replies <- m:
			case <-ctx.Done():
				return
			}
		}
		if err := sc.Err(); err != nil {
			// bufio's own words ("bufio.Scanner: token too long") were
			// all `reprise inbox drain` said.
			readErr <- fmt.Errorf("inbox relay: read reply: %w", err)
			return
		}
		readErr <- io.EOF
	}()
	bw := bufio.NewWriter(w)
	send := func(m RelayMsg) error {
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		if _, err := bw.Write(append(b, '\n')); err != nil {
			return err
		}
		return bw.Flush()
	}
	first := true
	for {
		n, err := in.Drain(func(name string, rec []byte) error {
			if !json.Valid(rec) {
				// Not JSON: no consumer can take it, and it cannot go on a
				// line as a raw message.
				return fmt.Errorf("%w: not json", ErrReject)
			}
			if err := send(RelayMsg{Name: name, Record: rec}); err != nil {
				return err
			}
			select {
			case m := <-replies:
				switch {
				case m.Ack == name:
					return nil
				case m.Reject == name:
					return fmt.Errorf("%w: by the consumer", ErrReject)
				}
				return errProtocol
			case err := <-readErr:
				return err
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if errors.Is(err, io.EOF) || ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		if first || n > 0 {
			if err := send(RelayMsg{Idle: true}); err != nil {
				return err
			}
		}
		first = false
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case <-time.After(poll):
		case m := <-replies:
			return fmt.Errorf("inbox relay: reply %+v with no record in flight", m)
		}
	}
}
