package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/reprise-dev/reprise/backend/hooks/payload"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/inbox"
	"github.com/reprise-dev/reprise/backend/logfile"
	"github.com/reprise-dev/reprise/sdk"
)

var terminalIDPattern = regexp.MustCompile(`^t_[0-9a-f]{16}$`)

// runHook is `reprise hook <agent> <event> [args…]`, run by an agent's
// hook. It never blocks or fails the agent: it prints nothing and exits 0
// whatever happens, logging problems instead. Outside a Reprise pane it
// does nothing. The event goes to the durable inbox first (so it survives
// a closed app), then the host is poked to apply it now.
func runHook(args []string, stdin io.Reader) error {
	tid := os.Getenv("REPRISE_TERMINAL_ID")
	home := os.Getenv("REPRISE_HOME")
	if tid == "" || home == "" || len(args) < 2 {
		return nil
	}
	agent, event, rest := args[0], args[1], args[2:]
	_ = os.MkdirAll(filepath.Join(home, "logs"), 0o700)
	var logf io.Writer // nil: the log cannot be opened
	if f, err := logfile.Open(filepath.Join(home, "logs", "hooks.log")); err == nil {
		logf = f
		defer f.Close()
	}
	logger := slog.New(slog.NewTextHandler(fallbackWriter{logf, os.Stderr}, nil)).With("component", "hook", "agent", agent, "event", event, "terminal", tid)
	if !terminalIDPattern.MatchString(tid) {
		logger.Warn("ignored: REPRISE_TERMINAL_ID is not a Reprise terminal id", "value", fmt.Sprintf("%q", tid))
		return nil
	}
	var body []byte
	if wantsStdin(event, rest) {
		b, complete, err := readPayload(stdin, int64(payload.Limit(agent, event))+1, stdinTimeout)
		if err != nil {
			logger.Warn("read payload", "err", err)
			return nil
		}
		if !complete {
			logger.Warn("stdin still open after the read bound; using what was read", "bound", stdinTimeout, "bytes", len(b))
		}
		body = b
	}
	ev, err := payload.Parse(agent, event, body, rest)
	if err != nil {
		logger.Warn("refused hook payload", "err", err, "bytes", len(body))
		return nil
	}
	if ev.Subagent {
		return nil
	}
	rec, err := json.Marshal(host.HookRecord{TerminalID: tid, Event: ev, At: time.Now()})
	if err != nil {
		logger.Error("encode hook record", "err", err)
		return nil
	}
	if err := putRetrying(host.InboxOf(home), rec, logger); err != nil {
		// Keep the record in the log line: it is the only copy left.
		logger.Error("hook event could not be saved; it is lost", "err", err, "attempts", len(putRetryDelays)+1, "record", string(rec))
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	sock := os.Getenv("REPRISE_HOST_SOCKET")
	if sock == "" {
		sock = sdk.SocketPath(home)
	}
	_ = sdk.New(sock).NotifyHooks(ctx) // no host: it drains the inbox when it starts
	return nil
}

// wantsStdin: the launch wrapper's process-exit report and Codex's notify
// (JSON as the last argument) carry no stdin payload; reading a terminal
// would block the agent.
func wantsStdin(event string, rest []string) bool {
	if event == payload.ProcessExit {
		return false
	}
	if n := len(rest); n > 0 && strings.HasPrefix(strings.TrimSpace(rest[n-1]), "{") {
		return false
	}
	if st, err := os.Stdin.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		return false
	}
	return true
}

// stdinTimeout bounds how long the hook waits for its payload. Agents write
// the payload and close stdin at once; one that never closes it must not
// hang its own hook (and so itself) forever.
const stdinTimeout = 2 * time.Second

// readPayload reads r to EOF, at most limit bytes, waiting at most timeout.
// complete is false when the wait ran out; what was read so far is
// returned (it may still be a whole payload). The reading goroutine is left
// blocked in that case, which is fine in a process about to exit.
func readPayload(r io.Reader, limit int64, timeout time.Duration) (b []byte, complete bool, err error) {
	var mu sync.Mutex
	var buf bytes.Buffer
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(lockedWriter{&mu, &buf}, io.LimitReader(r, limit))
		done <- err
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return buf.Bytes(), true, err
	case <-t.C:
		mu.Lock()
		defer mu.Unlock()
		return bytes.Clone(buf.Bytes()), false, nil
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// putRetryDelays: a failed inbox write (a full disk, most often) is retried
// after each of these, about 1.5 s in all, so the agent is never held up for
// long.
var putRetryDelays = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}

func putRetrying(in inbox.Inbox, rec []byte, logger *slog.Logger) error {
	for i := 0; ; i++ {
		err := in.Put(rec)
		if err == nil {
			if i > 0 {
				logger.Info("hook event saved after retrying", "attempts", i+1)
			}
			return nil
		}
		if i == len(putRetryDelays) {
			return err
		}
		if i == 0 {
			logger.Warn("hook event not saved; retrying", "err", err)
		}
		time.Sleep(putRetryDelays[i])
	}
}

// fallbackWriter writes the hook's log to hooks.log, or, when that cannot be
// opened or written (the disk that refused the inbox write is usually the
// same one), to the hook's stderr: the agent keeps or shows it, and a lost
// event is never silent. stdout stays empty, as agents may parse it.
type fallbackWriter struct {
	f        io.Writer
	fallback io.Writer
}

func (w fallbackWriter) Write(p []byte) (int, error) {
	if w.f != nil {
		if _, err := w.f.Write(p); err == nil {
			return len(p), nil
		}
	}
	return w.fallback.Write(p)
}

// relayPoll is how often `inbox drain --stdio` looks for new records: a
// remote hook's event reaches the host within about this long (the hook's
// poke goes to a host socket nobody listens on there).
const relayPoll = 200 * time.Millisecond
