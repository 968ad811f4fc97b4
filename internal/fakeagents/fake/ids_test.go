package fake

import (
	"testing"
	"time"
)

func TestUUIDs(t *testing.T) {
	for range 100 {
		if v4 := NewUUIDv4(); UUIDVersion(v4) != 4 || !hasVariant(v4) {
			t.Fatalf("NewUUIDv4() = %s", v4)
		}
		if v7 := NewUUIDv7(time.Now()); UUIDVersion(v7) != 7 || !hasVariant(v7) {
			t.Fatalf("NewUUIDv7() = %s", v7)
		}
	}
	t0 := time.Now()
	a, b := NewUUIDv7(t0), NewUUIDv7(t0.Add(time.Millisecond))
	if !(a < b) {
		t.Errorf("v7 ids are not time-ordered: %s then %s", a, b)
	}
	for _, bad := range []string{"", "../../etc/passwd", "0123", "0193a8f2-7c1e-7abc-8def-0123456789ab/x"} {
		if IsUUID(bad) {
			t.Errorf("IsUUID(%q) = true", bad)
		}
	}
}

// hasVariant checks the RFC 9562 variant bits (10xx).
func hasVariant(u string) bool {
	switch u[19] {
	case '8', '9', 'a', 'b':
		return true
	}
	return false
}
