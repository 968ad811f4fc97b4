package localapi

import "time"

// SetLimits shortens the listener's limits for a test; it returns a func
// that restores them.
func SetLimits(conns int, idle time.Duration) (restore func()) {
	oc, oi := maxConns, idleTimeout
	maxConns, idleTimeout = conns, idle
	return func() { maxConns, idleTimeout = oc, oi }
}

// OpenConns is the number of connections the server holds.
func (s *Server) OpenConns() int { return s.ln.Open() }
