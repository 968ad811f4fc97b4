package fake

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"regexp"
	"time"
)

// NewUUIDv4 returns a random UUID, the kind Claude Code gives its sessions.
func NewUUIDv4() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// NewUUIDv7 returns a time-ordered UUID (RFC 9562), the kind Codex gives its
// threads: 48 bits of Unix milliseconds, then randomness.
func NewUUIDv7(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli()))
	copy(b[:6], ms[2:])
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsUUID reports whether s is a UUID of any version in the canonical
// 8-4-4-4-12 form. Ids that fail it are never joined into a file path.
func IsUUID(s string) bool { return uuidRE.MatchString(s) }

// UUIDVersion returns the version nibble of a canonical UUID, or -1.
func UUIDVersion(s string) int {
	if !IsUUID(s) {
		return -1
	}
	var v int
	_, _ = fmt.Sscanf(s[14:15], "%x", &v)
	return v
}
