package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/ptyclient"
)

// remoteStream is one remote terminal streamed to a viewer. It remembers
// the absolute output offset it has delivered, so when the ssh link drops
// and comes back it resubscribes from exactly there (ptyproto subscribe
// with resume): output made while disconnected is replayed once, nothing
// twice, and what the replay ring no longer holds is labelled in the
// stream, never silently skipped.
type remoteStream struct {
	v        *Viewer
	id, host string
	s        Stream

	// Guarded by v.mu.
	base     int64 // absolute offset of the current subscription's first byte
	received int64 // bytes delivered on the current subscription
	detached bool
	// ready is closed while a subscription is live and replaced by an open
	// one when it ends (a dropped link): keys typed between the link coming
	// back and the resubscribe wait for it instead of going to the closed
	// connection and being reported lost.
	ready chan struct{}
}

// isReady reports whether ch is closed. Callers hold v.mu.
func isReady(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// inputWait bounds how long a key waits for a remote stream to come back
// after its link returned; past it the key is reported lost as before.
const inputWait = 10 * time.Second

// remoteInputClient is the connection keys for a remote terminal go to:
// the viewer's current one, once the terminal's stream (if this viewer
// streams it) is subscribed on it.
func (v *Viewer) remoteInputClient(ctx context.Context, terminalID, host string) (*ptyclient.Client, error) {
	timer := time.NewTimer(inputWait)
	defer timer.Stop()
	for {
		v.mu.Lock()
		c := v.rconns[host]
		var ready chan struct{}
		if rs := v.rsubs[terminalID]; rs != nil && !isReady(rs.ready) {
			ready = rs.ready
		}
		v.mu.Unlock()
		if ready == nil {
			if c == nil {
				return nil, errors.New(disconnectedLine(host))
			}
			return c, nil
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-v.ctx.Done():
			return nil, v.ctx.Err()
		case <-timer.C:
			return nil, errors.New(disconnectedLine(host))
		}
	}
}

func (r *remoteStream) pos() int64 { return r.base + r.received }

func (v *Viewer) remoteClient(ctx context.Context, host string) (*ptyclient.Client, error) {
	v.mu.Lock()
	c := v.rconns[host]
	v.mu.Unlock()
	if c != nil {
		select {
		case <-c.Done():
		default:
			return c, nil
		}
	}
	e, err := v.h.endpoint(ctx, host)
	if err != nil {
		return nil, err
	}
	if _, ok := e.up(); !ok {
		return nil, fmt.Errorf("%s", disconnectedLine(host))
	}
	c, err = e.dial(ctx, ptyclient.Options{Name: fmt.Sprintf("viewer-%d", os.Getpid())})
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	if old := v.rconns[host]; old != nil && old != c {
		old.Close()
	}
	v.rconns[host] = c
	v.mu.Unlock()
	return c, nil
}

func (v *Viewer) attachRemote(ctx context.Context, t api.Terminal, host string, s Stream) (api.Terminal, int64, error) {
	r := &remoteStream{v: v, id: t.ID, host: host, s: s, ready: make(chan struct{})}
	v.mu.Lock()
	if _, dup := v.rsubs[t.ID]; dup {
		v.mu.Unlock()
		return t, 0, fmt.Errorf("terminal %s is already attached on this connection", t.ID)
	}
	v.rsubs[t.ID] = r
	v.mu.Unlock()
	sub, err := r.subscribe(ctx, false, 0)
	if err != nil {
		v.mu.Lock()
		delete(v.rsubs, t.ID)
		v.mu.Unlock()
		return t, 0, err
	}
	return t, sub.Replay, nil
}

func (r *remoteStream) subscribe(ctx context.Context, resume bool, from int64) (*ptyclient.Subscription, error) {
	v := r.v
	c, err := v.remoteClient(ctx, r.host)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	r.received = 0
	v.mu.Unlock()
	ea := v.expectSub(r.id)
	sub, err := c.Subscribe(ctx, r.id, ptyclient.SubscribeOptions{
		OnData: func(p []byte) {
			v.mu.Lock()
			r.received += int64(len(p))
			v.mu.Unlock()
			ea.count(len(p))
			if r.s.OnData != nil {
				r.s.OnData(p)
			}
		},
		OnEnd:       func() { r.ended() },
		ReplayLines: r.s.ReplayLines,
		Resume:      resume,
		From:        from,
	})
	if err != nil {
		v.mu.Lock()
		v.takeEarly(r.id, ea)
		v.mu.Unlock()
		return nil, err
	}
	v.mu.Lock()
	r.base = sub.Offset
	ack := v.takeEarly(r.id, ea)
	if r.detached {
		v.mu.Unlock()
		_ = sub.Unsubscribe(context.Background())
		return nil, fmt.Errorf("terminal %s was detached", r.id)
	}
	v.subs[r.id] = sub
	if !isReady(r.ready) {
		close(r.ready)
	}
	v.mu.Unlock()
	ack.send(sub)
	if resume && sub.Offset > from {
		gap := fmt.Sprintf("\r\n\x1b[2m── %d bytes of output from while disconnected from %s were beyond the replay buffer ──\x1b[0m\r\n", sub.Offset-from, r.host)
		if r.s.OnData != nil {
			r.s.OnData([]byte(gap))
		}
	}
	return sub, nil
}

// ended runs when the subscription's connection ended: the viewer
// detached, or the link dropped. After a drop it waits for the link and
// resumes, unless the terminal has ended meanwhile.
func (r *remoteStream) ended() {
	v := r.v
	v.mu.Lock()
	detached := r.detached
	from := r.pos()
	if v.rsubs[r.id] == r {
		delete(v.subs, r.id)
	}
	if isReady(r.ready) {
		r.ready = make(chan struct{})
	}
	v.mu.Unlock()
	if detached || v.ctx.Err() != nil {
		r.finish()
		return
	}
	go r.resume(from)
}

func (r *remoteStream) resume(from int64) {
	v := r.v
	log := v.h.log.With("host", r.host, "terminal", r.id)
	delay := linkRetryMin
	for v.ctx.Err() == nil {
		v.mu.Lock()
		detached := r.detached
		v.mu.Unlock()
		if detached {
			return
		}
		e, err := v.h.endpoint(v.ctx, r.host)
		if err != nil {
			r.finish()
			return
		}
		if _, err := e.wait(v.ctx); err != nil {
			return
		}
		// The supervisor reconciles right after connecting: a terminal
		// the remote daemon no longer owns is then no longer running.
		if t, err := v.h.store.GetTerminal(v.ctx, r.id); err != nil || t.Status != api.StatusRunning {
			r.finish()
			return
		}
		ctx, cancel := context.WithTimeout(v.ctx, 30*time.Second)
		_, err = r.subscribe(ctx, true, from)
		cancel()
		if err == nil {
			log.Info("remote stream resumed", "from", from)
			return
		}
		log.Debug("resume remote stream", "err", err, "retry", delay)
		select {
		case <-v.ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(delay*2, 2*time.Second)
	}
}

func (r *remoteStream) finish() {
	v := r.v
	v.mu.Lock()
	if v.rsubs[r.id] == r {
		delete(v.rsubs, r.id)
	}
	if !isReady(r.ready) {
		close(r.ready) // wakes keys waiting for a stream that will not come back
	}
	v.mu.Unlock()
	if r.s.OnEnd != nil {
		r.s.OnEnd()
	}
}
