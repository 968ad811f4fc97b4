package main

import (
	"os"
	"testing"
)

func TestWebProcessTunables(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "glibc.malloc.mmap_threshold=131072"},
		{"glibc.malloc.arena_max=2", "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072"},
		// The user's own threshold wins.
		{"glibc.malloc.mmap_threshold=1048576", "glibc.malloc.mmap_threshold=1048576"},
		{"glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536", "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536"},
	} {
		if got := webProcessTunables(c.in); got != c.want {
			t.Errorf("webProcessTunables(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The tunable goes to the C environment (which WebKit's processes get) and
// not to Go's, which the daemon, the shells and the agents are started with.
func TestSetWebProcessEnvOnlyInC(t *testing.T) {
	t.Setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2")
	setWebProcessEnv()
	if got := cGetenv("GLIBC_TUNABLES"); got != "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072" {
		t.Errorf("C environment: GLIBC_TUNABLES=%q", got)
	}
	if got := os.Getenv("GLIBC_TUNABLES"); got != "glibc.malloc.arena_max=2" {
		t.Errorf("Go environment changed: GLIBC_TUNABLES=%q", got)
	}
}
