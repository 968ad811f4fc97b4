// Package connlimit caps how many connections a listener holds open at
// once. Past the cap a new connection is closed at once, with a log line,
// instead of waiting in the kernel's backlog: a client that opens thousands
// of idle connections cannot take the process's last descriptors (the CLI's
// socket, the hook inbox, the store).
package connlimit

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Listener counts the connections it has accepted and not yet seen closed.
type Listener struct {
	net.Listener
	max  int64
	log  *slog.Logger
	open atomic.Int64
	// lastWarn (unix nanoseconds) keeps a flood of refusals to one log
	// line a second.
	lastWarn atomic.Int64
	refused  atomic.Int64
}

// Wrap caps ln at max open connections.
func Wrap(ln net.Listener, max int, log *slog.Logger) *Listener {
	return &Listener{Listener: ln, max: int64(max), log: log}
}

// Open is the number of connections accepted and not yet closed.
func (l *Listener) Open() int { return int(l.open.Load()) }

// Refused is the number of connections closed because the cap was reached.
func (l *Listener) Refused() int { return int(l.refused.Load()) }

// Accept returns the next connection under the cap.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			n := l.refused.Add(1)
			now := time.Now().UnixNano()
			if last := l.lastWarn.Load(); now-last > int64(time.Second) && l.lastWarn.CompareAndSwap(last, now) {
				l.log.Warn("connection refused: too many open connections", "limit", l.max, "addr", l.Addr().String(), "refused_total", n)
			}
			c.Close()
			continue
		}
		return &conn{Conn: c, l: l}, nil
	}
}

type conn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}

// CloseWrite half-closes a TCP or Unix connection; net/http uses it to
// finish a response before closing (Connection: close).
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
