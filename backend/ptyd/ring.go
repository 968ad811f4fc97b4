package ptyd

// ring keeps the last cap bytes written to it: a session's replay buffer.
// Not safe for concurrent use; the session's mutex guards it.
type ring struct {
	buf  []byte
	head int // next write position
	full bool
	// total counts every byte ever written: the absolute offset of the
	// byte after the newest one, so a client that lost its link can ask for
	// exactly what it missed (subscribe with resume).
	total int64
}

func newRing(capacity int) *ring { return &ring{buf: make([]byte, capacity)} }

func (r *ring) Write(p []byte) {
	r.total += int64(len(p))
	if len(p) >= len(r.buf) {
		copy(r.buf, p[len(p)-len(r.buf):])
		r.head, r.full = 0, true
		return
	}
	n := copy(r.buf[r.head:], p)
	if n < len(p) {
		copy(r.buf, p[n:])
		r.full = true
	}
	r.head = (r.head + len(p)) % len(r.buf)
	if r.head == 0 && len(p) > 0 {
		r.full = true
	}
}

// Bytes returns a copy of the contents, oldest first.
func (r *ring) Bytes() []byte {
	if !r.full {
		return append([]byte(nil), r.buf[:r.head]...)
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.head:]...)
	return append(out, r.buf[:r.head]...)
}

// Since returns the bytes from absolute offset from on, and the offset of
// the first byte returned: later than from when the ring no longer holds
// it (a gap the caller must label), never earlier.
func (r *ring) Since(from int64) ([]byte, int64) {
	all := r.Bytes()
	start := r.total - int64(len(all))
	if from <= start {
		return all, start
	}
	if from >= r.total {
		return nil, r.total
	}
	return all[from-start:], from
}
