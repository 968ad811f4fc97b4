package ptyd

import (
	"bytes"
	"math/rand"
	"testing"
)

func TestRingKeepsLastBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, capacity := range []int{1, 7, 64, 1000} {
		r := newRing(capacity)
		var all []byte
		for i := 0; i < 500; i++ {
			p := make([]byte, rng.Intn(capacity*2+3))
			rng.Read(p)
			r.Write(p)
			all = append(all, p...)
			want := all
			if len(want) > capacity {
				want = want[len(want)-capacity:]
			}
			if got := r.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("cap %d step %d: got %d bytes, want %d", capacity, i, len(got), len(want))
			}
		}
	}
}
