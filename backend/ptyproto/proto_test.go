package ptyproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"path/filepath"
	"reflect"
	"testing"
	"testing/iotest"
)

func TestRoundTripPipe(t *testing.T) {
	code := 3
	cases := []struct {
		name    string
		h       Header
		payload []byte
	}{
		{"hello", Header{Type: THello, Version: Version, Client: "test"}, nil},
		{"open", Header{Type: TOpen, Req: 7, Session: "t_1", Argv: []string{"/bin/sh", "-l"}, Cwd: "/tmp", Env: []string{"A=b"}, Cols: 80, Rows: 24, Log: true}, []byte("preamble\r\n")},
		{"output with split utf-8", Header{Type: TOutput, Session: "t_1"}, []byte{0xe2, 0x82}},
		{"exit", Header{Type: TExit, Session: "t_1", Info: &SessionInfo{ID: "t_1", PID: 42, ExitCode: &code}}, nil},
		{"binary payload", Header{Type: TInput, Session: "x"}, bytes.Repeat([]byte{0, 1, 2, 0xff}, 1000)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			go func() {
				if err := WriteFrame(pw, &tc.h, tc.payload); err != nil {
					t.Errorf("write: %v", err)
				}
				pw.Close()
			}()
			f, err := ReadFrame(pr)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if !reflect.DeepEqual(f.Header, tc.h) {
				t.Fatalf("header: got %+v want %+v", f.Header, tc.h)
			}
			if !bytes.Equal(f.Payload, tc.payload) {
				t.Fatalf("payload differs: got %d bytes want %d", len(f.Payload), len(tc.payload))
			}
			if _, err := ReadFrame(pr); !errors.Is(err, io.EOF) {
				t.Fatalf("after last frame: got %v, want EOF", err)
			}
		})
	}
}

func TestRoundTripUnixSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	payload := bytes.Repeat([]byte("x"), MaxChunk)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		for i := 0; i < 100; i++ {
			if err := WriteFrame(c, &Header{Type: TOutput, Session: "s", Req: uint64(i + 1)}, payload); err != nil {
				return
			}
		}
	}()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < 100; i++ {
		f, err := ReadFrame(c)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if f.Header.Req != uint64(i+1) || len(f.Payload) != MaxChunk {
			t.Fatalf("frame %d out of order or short: req %d len %d", i, f.Header.Req, len(f.Payload))
		}
	}
}

func TestRejectsOversizeAndGarbage(t *testing.T) {
	mk := func(hl, pl uint32, body []byte) []byte {
		var b [8]byte
		binary.BigEndian.PutUint32(b[0:4], hl)
		binary.BigEndian.PutUint32(b[4:8], pl)
		return append(b[:], body...)
	}
	cases := []struct {
		name string
		in   []byte
	}{
		{"zero header", mk(0, 0, nil)},
		{"huge header", mk(MaxHeader+1, 0, nil)},
		{"huge payload", mk(2, MaxPayload+1, []byte("{}"))},
		{"truncated", mk(10, 0, []byte("{}"))},
		{"bad json", mk(3, 0, []byte("{x}"))},
		{"no type", mk(2, 0, []byte("{}"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ReadFrame(bytes.NewReader(tc.in)); err == nil {
				t.Fatal("expected an error")
			}
		})
	}
	if err := WriteFrame(io.Discard, &Header{Type: TInput}, make([]byte, MaxPayload+1)); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("oversize write: %v", err)
	}
}

// FuzzReadFrame checks the decoder never panics, never returns a frame over
// the limits, and that whatever it accepts re-encodes to a decodable frame.
func FuzzReadFrame(f *testing.F) {
	var seed bytes.Buffer
	_ = WriteFrame(&seed, &Header{Type: TOpen, Argv: []string{"sh"}, Cols: 80}, []byte("hi"))
	f.Add(seed.Bytes())
	f.Add([]byte{0, 0, 0, 2, 0, 0, 0, 0, '{', '}'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 4, 1, 1, 't', 'x'})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 11, 2, 1, 't', 0, 0, 0, 0, 0, 0, 0, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := ReadFrame(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(fr.Payload) > MaxPayload {
			t.Fatalf("payload over limit: %d", len(fr.Payload))
		}
		var out bytes.Buffer
		if err := WriteFrame(&out, &fr.Header, fr.Payload); err != nil {
			return // a header that grew past MaxHeader on re-encoding (escapes) is fine to refuse
		}
		back, err := ReadFrame(&out)
		if err != nil {
			t.Fatalf("re-encoded frame does not decode: %v", err)
		}
		if !bytes.Equal(back.Payload, fr.Payload) || back.Header.Type != fr.Header.Type {
			t.Fatal("re-encoded frame differs")
		}
	})
}

// The binary output and ack frames: written as one writev on a socket, read
// back through a buffered reader, and between JSON frames in one stream.
func TestBinaryFramesRoundTripUnixSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	big := bytes.Repeat([]byte{0, 0xe2, 0x82, 0xac, 'x', 0xff}, MaxChunk/6)
	go func() {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		for _, err := range []error{
			WriteOutput(c, "t_1", big),
			WriteFrame(c, &Header{Type: TExit, Session: "t_1", Info: &SessionInfo{ID: "t_1"}}, nil),
			WriteOutput(c, "t_22", []byte{0xe2}),
			WriteAck(c, "t_1", 1<<40+7),
			WriteAckRate(c, "t_1", 4096, 2_000_000),
			WriteAckRate(c, "t_1", 5, 0),
			WriteAckQueue(c, "t_1", 6, 3_000_000, 0),
			WriteAckQueue(c, "t_1", 7, 3_000_000, 20_000),
			WriteOutput(c, "t_3", nil),
		} {
			if err != nil {
				t.Error(err)
			}
		}
	}()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := []Frame{
		{Header{Type: TOutput, Session: "t_1"}, big},
		{Header{Type: TExit, Session: "t_1", Info: &SessionInfo{ID: "t_1"}}, nil},
		{Header{Type: TOutput, Session: "t_22"}, []byte{0xe2}},
		{Header{Type: TAck, Session: "t_1", Bytes: 1<<40 + 7}, nil},
		{Header{Type: TAck, Session: "t_1", Bytes: 4096, Rate: 2_000_000}, nil},
		{Header{Type: TAck, Session: "t_1", Bytes: 5}, nil},
		{Header{Type: TAck, Session: "t_1", Bytes: 6, Rate: 3_000_000, Queued: ptr(int64(0))}, nil},
		{Header{Type: TAck, Session: "t_1", Bytes: 7, Rate: 3_000_000, Queued: ptr(int64(20_000))}, nil},
		{Header{Type: TOutput, Session: "t_3"}, nil},
	}
	for i, w := range want {
		f, err := ReadFrame(c)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !reflect.DeepEqual(f.Header, w.Header) || !bytes.Equal(f.Payload, w.Payload) {
			t.Fatalf("frame %d: got %+v (%d bytes), want %+v (%d bytes)", i, f.Header, len(f.Payload), w.Header, len(w.Payload))
		}
	}
}

// Frames split anywhere across reads (here one byte per read) decode whole
// and in order, binary and JSON alike.
func TestFramesSplitAcrossReads(t *testing.T) {
	var stream bytes.Buffer
	var want []Frame
	for i := range 50 {
		p := bytes.Repeat([]byte{byte(i)}, i*37)
		switch i % 3 {
		case 0:
			if err := WriteOutput(&stream, "t_a", p); err != nil {
				t.Fatal(err)
			}
			if len(p) == 0 {
				p = nil
			}
			want = append(want, Frame{Header{Type: TOutput, Session: "t_a"}, p})
		case 1:
			if err := WriteAck(&stream, "t_b", int64(i)); err != nil {
				t.Fatal(err)
			}
			want = append(want, Frame{Header{Type: TAck, Session: "t_b", Bytes: int64(i)}, nil})
		default:
			if err := WriteFrame(&stream, &Header{Type: TOutput, Session: "t_c"}, p); err != nil {
				t.Fatal(err)
			}
			want = append(want, Frame{Header{Type: TOutput, Session: "t_c"}, p})
		}
	}
	r := iotest.OneByteReader(bytes.NewReader(stream.Bytes()))
	for i, w := range want {
		f, err := ReadFrame(r)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !reflect.DeepEqual(f.Header, w.Header) || !bytes.Equal(f.Payload, w.Payload) {
			t.Fatalf("frame %d: got %+v (%d bytes), want %+v (%d bytes)", i, f.Header, len(f.Payload), w.Header, len(w.Payload))
		}
	}
	if _, err := ReadFrame(r); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last frame: %v, want EOF", err)
	}
}

func TestRejectsBadBinaryFrames(t *testing.T) {
	mk := func(body ...byte) []byte {
		b := make([]byte, 8, 8+len(body))
		binary.BigEndian.PutUint32(b[4:8], uint32(len(body)))
		return append(b, body...)
	}
	cases := []struct {
		name string
		in   []byte
	}{
		{"empty body", mk()},
		{"no session id", mk(1, 0, 'x')},
		{"session id past the end", mk(1, 9, 'a', 'b')},
		{"unknown kind", mk(9, 1, 'a', 'x')},
		{"ack without a count", mk(2, 1, 'a', 0, 0, 1)},
		{"truncated", append(mk(1, 1, 'a', 'x', 'y'), 0)[:10]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if f, err := ReadFrame(bytes.NewReader(tc.in)); err == nil {
				t.Fatalf("accepted %+v", f.Header)
			}
		})
	}
	var pre [8]byte
	binary.BigEndian.PutUint32(pre[4:8], MaxPayload+binOverhead+1)
	if _, err := ReadFrame(bytes.NewReader(pre[:])); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("oversize binary frame: %v", err)
	}
	if err := WriteOutput(io.Discard, "", []byte("x")); err == nil {
		t.Fatal("wrote an output frame without a session id")
	}
	if err := WriteOutput(io.Discard, "t", make([]byte, MaxPayload+1)); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("oversize payload: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
