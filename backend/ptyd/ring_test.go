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

// A client whose link dropped resumes at an absolute offset: it gets
// exactly the bytes after it, or, once the ring has overwritten them, the
// oldest it still holds and an offset that shows the gap.
func TestRingSince(t *testing.T) {
	r := newRing(8)
	r.Write([]byte("abcde"))
	if b, off := r.Since(2); string(b) != "cde" || off != 2 {
		t.Errorf("Since(2) = %q@%d, want cde@2", b, off)
	}
	if b, off := r.Since(5); len(b) != 0 || off != 5 {
		t.Errorf("Since(5) = %q@%d, want nothing@5", b, off)
	}
	r.Write([]byte("fghijk")) // 11 bytes written; the ring holds "defghijk"
	if b, off := r.Since(1); string(b) != "defghijk" || off != 3 {
		t.Errorf("Since(1) after wrap = %q@%d, want defghijk@3 (a gap of 2)", b, off)
	}
	if b, off := r.Since(9); string(b) != "jk" || off != 9 {
		t.Errorf("Since(9) = %q@%d, want jk@9", b, off)
	}
}
