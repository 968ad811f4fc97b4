package scrollback

import (
	"bytes"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestBoundedUnder100MiB(t *testing.T) {
	dir := t.TempDir()
	const limit = 4 << 20
	w, err := Create(dir, "t_big", limit)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 256) // 4 KiB, like a pty read
	var last []byte
	for i := 0; i < (100<<20)/len(chunk); i++ {
		line := append([]byte{}, chunk...)
		copy(line, []byte{byte('A' + i%26)})
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
		last = line
	}
	w.Close()
	cur, prev, _ := Paths(dir, "t_big")
	var total int64
	for _, p := range []string{cur, prev} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("%s mode %v, want 0600", p, st.Mode().Perm())
		}
		total += st.Size()
	}
	if total > limit {
		t.Fatalf("log pair holds %d bytes, limit %d", total, limit)
	}
	if total < limit/2 {
		t.Fatalf("log pair holds only %d bytes, want at least half the limit", total)
	}
	tail, mt, ok, err := Tail(dir, "t_big", 1<<20)
	if err != nil || !ok || mt == 0 {
		t.Fatalf("tail: ok=%v mt=%d err=%v", ok, mt, err)
	}
	if len(tail) != 1<<20 || !bytes.HasSuffix(tail, last) {
		t.Fatalf("tail: %d bytes, ends with last write: %v", len(tail), bytes.HasSuffix(tail, last))
	}
}

func TestTailSpansRotation(t *testing.T) {
	dir := t.TempDir()
	w, _ := Create(dir, "t1", 100)
	w.Write([]byte("0123456789012345678901234567890123456789")) // 40
	w.Write([]byte("abcdefghijklmnopqrst"))                     // rotates: 20
	w.Close()
	got, _, ok, err := Tail(dir, "t1", 30)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if string(got) != "0123456789abcdefghijklmnopqrst" {
		t.Fatalf("got %q", got)
	}
	if err := Remove(dir, "t1"); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := Tail(dir, "t1", 30); ok {
		t.Fatal("log still there after Remove")
	}
}

func TestHostileIDs(t *testing.T) {
	for _, id := range []string{"", "../etc/passwd", "a/b", "x\x00", string(bytes.Repeat([]byte("a"), 65))} {
		if _, err := Create(t.TempDir(), id, 0); err == nil {
			t.Errorf("id %q accepted", id)
		}
	}
}

func TestLastLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc\n"},
		{"a\nb\nc\nprompt$ ", 2, "c\nprompt$ "},
		{"a\nb\nc\n", 3, "a\nb\nc\n"},
		{"a\nb\nc\n", 10, "a\nb\nc\n"},
		{"a\nb\nc\n", 0, "a\nb\nc\n"},
		{"a\nb\nc\n", 1, "c\n"},
		{"no newline", 1, "no newline"},
		{"", 3, ""},
		{"\n\n\n", 1, "\n"},
		{"x\r\n日本\r\n\x1b[31mred\x1b[0m\r\n", 2, "日本\r\n\x1b[31mred\x1b[0m\r\n"},
	} {
		if got := string(LastLines([]byte(c.in), c.n)); got != c.want {
			t.Errorf("LastLines(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// A FIFO planted at a log path must not hang the host's restore.
func TestTailRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	cur, _, _ := Paths(dir, "t_fifo")
	if err := syscall.Mkfifo(cur, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, _, err := Tail(dir, "t_fifo", 1<<20); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a FIFO was read as a log")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Tail hung on a FIFO")
	}
}
