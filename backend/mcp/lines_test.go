package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"
)

// One malformed line ended `reprise mcp` without a JSON-RPC error. Now it
// is answered with -32700 (or -32600 for JSON that is no message) and the
// server answers the next request.
func TestMalformedLineGetsParseErrorAndServerGoesOn(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Home: t.TempDir(), Stdin: inR, Stdout: outW, Stderr: io.Discard, Version: "test"})
		outW.Close()
	}()
	lines := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("server wrote a line that is not json: %q", sc.Text())
				continue
			}
			lines <- m
		}
		close(lines)
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatal("the server closed its output")
			}
			return m
		case <-time.After(20 * time.Second):
			t.Fatal("no answer from the server")
			return nil
		}
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatalf("write %q: %v", s, err)
		}
	}
	errCode := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for _, tc := range []struct {
		line string
		code float64
	}{
		{`this is not json`, -32700},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"`, -32700},
		{`{"hello":"world"}`, -32600},
		{`42`, -32600},
		{`[]`, -32600},
	} {
		send(tc.line)
		m := next()
		if got := errCode(m); got != tc.code || m["id"] != nil {
			t.Fatalf("%q: answered %v, want error %v with id null", tc.line, m, tc.code)
		}
		send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		if m := next(); m["id"] != float64(3) || m["error"] != nil {
			t.Fatalf("ping after %q: %v", tc.line, m)
		}
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop at EOF")
	}
}
