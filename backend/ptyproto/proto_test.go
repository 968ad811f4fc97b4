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
