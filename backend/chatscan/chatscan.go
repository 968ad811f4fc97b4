// Package chatscan answers whether an agent's conversation file holds what
// its resume needs — for Gemini CLI, a model reply: it cannot resume a
// session whose chat file has none (conformance gemini/*). The host runs
// it on this machine's files and a remote daemon on its own (ptyproto
// TFacts "contains"), so both machines answer alike.
//
// The path comes from a hook payload, which any program in a pane can
// send: the file may be a FIFO (an open that never returns), a device, or
// a huge sparse file. It is opened with safefile (non-blocking, a regular
// file only), read in chunks (memory stays at one), and the scan is bounded
// in bytes and time. A scan that stopped at a bound says so (Incomplete):
// no match then means "unknown", never "not there".
package chatscan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"

	"github.com/reprise-dev/reprise/backend/safefile"
)

// GeminiReply names a Gemini CLI model reply in its chat file
// (`"type": "gemini"`, as JSON.stringify writes a message of the model).
const GeminiReply = "gemini-reply"

// patterns is the fixed set a scan may look for. A peer names one; it
// never sends a pattern of its own. Each match is shorter than overlap, so
// one that straddles two chunks is still seen.
var patterns = map[string]*regexp.Regexp{
	GeminiReply: regexp.MustCompile(`"type"\s{0,64}:\s{0,64}"gemini"`),
}

// Limit bounds the bytes one scan reads. The first reply follows the first
// prompt, near the start of the file.
const Limit = 16 << 20

const chunk, overlap = 1 << 20, 256

// ErrUnknownPattern: the name is not one of the fixed set.
var ErrUnknownPattern = errors.New("unknown pattern")

// Result is one scan's answer. Incomplete says why it stopped before the
// end of the file (the byte bound, the time bound): then Found false does
// not mean the file holds no match.
type Result struct {
	Found      bool
	Incomplete string
}

// Known reports whether name is a pattern of the fixed set.
func Known(name string) bool { return patterns[name] != nil }

// Contains scans the regular file at path for pattern name (safefile:
// a FIFO or device is safefile.ErrNotRegular, never read).
func Contains(ctx context.Context, path, name string) (Result, error) {
	if !Known(name) {
		return Result{}, fmt.Errorf("%w %q", ErrUnknownPattern, name)
	}
	f, _, err := safefile.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	return Scan(ctx, f, name)
}

// Scan reads r in chunks, at most Limit bytes, until pattern name matches,
// the end, a read error, or ctx ends (checked between chunks; a read that
// blocks is the caller's to bound).
func Scan(ctx context.Context, r io.Reader, name string) (Result, error) {
	re := patterns[name]
	if re == nil {
		return Result{}, fmt.Errorf("%w %q", ErrUnknownPattern, name)
	}
	buf := make([]byte, chunk+overlap)
	keep := 0
	var read int64
	lr := io.LimitReader(r, Limit)
	for {
		if err := ctx.Err(); err != nil {
			return Result{Incomplete: fmt.Sprintf("stopped at the time bound after %d bytes", read)}, nil
		}
		n, err := io.ReadFull(lr, buf[keep:])
		read += int64(n)
		if re.Match(buf[:keep+n]) {
			return Result{Found: true}, nil
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			if read < Limit {
				return Result{}, nil // the whole file: no match
			}
			// At the bound: is there more?
			var one [1]byte
			if m, _ := io.ReadFull(r, one[:]); m > 0 {
				return Result{Incomplete: fmt.Sprintf("stopped after %d MiB (the scan's bound)", Limit>>20)}, nil
			}
			return Result{}, nil
		default:
			return Result{}, fmt.Errorf("read after %d bytes: %w", read, err)
		}
		keep = copy(buf, buf[keep+n-overlap:keep+n])
	}
}
