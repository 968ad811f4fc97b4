package host

import (
	"sync"
)

// Event is a change pushed to frontend clients.
type Event struct {
	Kind string // api.Event*
	Data any
}

// broadcaster fans events out to subscribers. A subscriber that falls more
// than its buffer behind is cut off (its channel closed) rather than
// blocking the host or silently missing a change; clients reconnect and
// fetch the whole state again.
type broadcaster struct {
	mu   sync.Mutex // guards subs
	subs map[chan Event]struct{}
}

func newBroadcaster() *broadcaster { return &broadcaster{subs: map[chan Event]struct{}{}} }

func (b *broadcaster) subscribe() chan Event {
	ch := make(chan Event, 1024)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	return ch
}

func (b *broadcaster) unsubscribe(ch chan Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.subs[ch]; ok {
		delete(b.subs, ch)
		close(ch)
	}
}

func (b *broadcaster) publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- e:
		default:
			delete(b.subs, ch)
			close(ch)
		}
	}
}
