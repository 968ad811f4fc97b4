package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine is the longest request line accepted, as in the SDK's transport.
const maxLine = mcpsdk.DefaultMaxLineLength

// checkedLines passes stdin on to the SDK's transport line by line, but
// answers a line that is not JSON with a JSON-RPC parse error (-32700), and
// one that is JSON but not a JSON-RPC message with an invalid-request error
// (-32600), and goes on with the next line. The SDK's transport ends the
// whole session at the first such line, without an answer; one stray line
// from a client must not cost the user their MCP server.
func checkedLines(in io.Reader, out *lockedWriter, logger *slog.Logger) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := readLine(br, maxLine)
			if t := bytes.TrimSpace(line); len(t) > 0 || tooLong {
				switch {
				case tooLong:
					reject(out, logger, jsonrpc.CodeParseError, "parse error: line longer than the limit", line)
				case !json.Valid(t):
					reject(out, logger, jsonrpc.CodeParseError, "parse error: not valid json", line)
				case t[0] == '{' && !isMessage(t):
					reject(out, logger, jsonrpc.CodeInvalidRequest, "invalid request: not a json-rpc 2.0 message", line)
				case t[0] == '[' && !isBatch(t):
					reject(out, logger, jsonrpc.CodeInvalidRequest, "invalid request: not a batch of json-rpc 2.0 messages", line)
				case t[0] != '{' && t[0] != '[':
					reject(out, logger, jsonrpc.CodeInvalidRequest, "invalid request: not a json-rpc 2.0 message", line)
				default:
					if _, werr := pw.Write(append(t, '\n')); werr != nil {
						return // the transport closed
					}
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

func isBatch(b []byte) bool {
	var batch []json.RawMessage
	if json.Unmarshal(b, &batch) != nil || len(batch) == 0 {
		return false
	}
	for _, m := range batch {
		if !isMessage(m) {
			return false
		}
	}
	return true
}

func isMessage(b []byte) bool {
	_, err := jsonrpc.DecodeMessage(b)
	return err == nil
}

// readLine reads one line without its newline. A line over max bytes is
// consumed to its end and reported as tooLong, keeping only its first bytes.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > max {
			tooLong = true
		}
		if !tooLong {
			line = append(line, frag...)
		} else if len(line) < 64 {
			line = append(line, frag[:min(len(frag), 64)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

func reject(out *lockedWriter, logger *slog.Logger, code int, msg string, line []byte) {
	logger.Warn("malformed mcp request ignored", "code", code, "err", msg, "start", string(line[:min(len(line), 64)]))
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": code, "message": msg},
	})
	_, _ = out.Write(append(b, '\n'))
}

// lockedWriter serialises whole-message writes to stdout from the SDK and
// from checkedLines (the SDK writes each message in one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil } // never close our stdout
