package inbox

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// relayPeer runs Relay against pipes and gives the test the consumer's end.
type relayPeer struct {
	lines *bufio.Scanner
	reply io.WriteCloser
	done  chan error
}

func startRelay(t *testing.T, in Inbox) *relayPeer {
	t.Helper()
	toRelayR, toRelayW := io.Pipe()
	fromRelayR, fromRelayW := io.Pipe()
	p := &relayPeer{lines: bufio.NewScanner(fromRelayR), reply: toRelayW, done: make(chan error, 1)}
	go func() {
		err := Relay(context.Background(), in, toRelayR, fromRelayW, 10*time.Millisecond)
		fromRelayW.Close()
		p.done <- err
	}()
	return p
}

func (p *relayPeer) next(t *testing.T) RelayMsg {
	t.Helper()
	if !p.lines.Scan() {
		t.Fatalf("relay ended: %v", p.lines.Err())
	}
	var m RelayMsg
	if err := json.Unmarshal(p.lines.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (p *relayPeer) send(t *testing.T, r RelayReply) {
	t.Helper()
	b, _ := json.Marshal(r)
	if _, err := p.reply.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

func records(t *testing.T, dir string) int {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	return len(m)
}

// A record is deleted only on its ack; one whose ack never came (the
// consumer went away) is sent again by the next relay; a rejected one is
// set aside; a record put while the relay runs is picked up by its poll.
func TestRelayDeletesOnlyOnAck(t *testing.T) {
	in := Inbox{Dir: t.TempDir()}
	for _, r := range []string{`{"n":1}`, `{"n":2}`} {
		if err := in.Put([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	p := startRelay(t, in)
	m1 := p.next(t)
	if string(m1.Record) != `{"n":1}` {
		t.Fatalf("first record %s", m1.Record)
	}
	p.send(t, RelayReply{Ack: m1.Name})
	m2 := p.next(t)
	if string(m2.Record) != `{"n":2}` {
		t.Fatalf("second record %s", m2.Record)
	}
	// The consumer goes away before acking the second.
	p.reply.Close()
	if err := <-p.done; err != nil {
		t.Fatalf("relay after its consumer left: %v", err)
	}
	if n := records(t, in.Dir); n != 1 {
		t.Fatalf("%d records left, want the unacked one", n)
	}

	p = startRelay(t, in)
	if m := p.next(t); m.Name != m2.Name {
		t.Fatalf("next relay sent %q, want the unacked %q again", m.Name, m2.Name)
	}
	p.send(t, RelayReply{Reject: m2.Name})
	if m := p.next(t); !m.Idle {
		t.Fatalf("want idle once caught up, got %+v", m)
	}
	if _, err := os.Stat(filepath.Join(in.Dir, "rejected", m2.Name)); err != nil {
		t.Fatalf("rejected record not set aside: %v", err)
	}
	if err := in.Put([]byte(`{"n":3}`)); err != nil {
		t.Fatal(err)
	}
	m3 := p.next(t)
	if string(m3.Record) != `{"n":3}` {
		t.Fatalf("polled record %s", m3.Record)
	}
	p.send(t, RelayReply{Ack: m3.Name})
	if m := p.next(t); !m.Idle {
		t.Fatalf("want idle, got %+v", m)
	}
	if n := records(t, in.Dir); n != 0 {
		t.Fatalf("%d records left after acks", n)
	}
	p.reply.Close()
	<-p.done
}

// TestRelayOverlongReply: a reply line over the scanner's bound ends the
// relay with an error that says what it was reading, and keeps the record.
func TestRelayOverlongReply(t *testing.T) {
	in := Inbox{Dir: t.TempDir()}
	if err := in.Put([]byte(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	p := startRelay(t, in)
	p.next(t)
	go p.reply.Write(make([]byte, bufio.MaxScanTokenSize+1))
	err := <-p.done
	if err == nil || !strings.HasPrefix(err.Error(), "inbox relay: read reply: ") {
		t.Errorf("relay ended with %v, want it to name the reply it was reading", err)
	}
	if n := records(t, in.Dir); n != 1 {
		t.Errorf("%d records left, want the unacknowledged one kept", n)
	}
}
