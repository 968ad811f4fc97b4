package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/reprise-dev/reprise/backend/hooks/payload"
	"github.com/reprise-dev/reprise/backend/host"
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
	logf, _ := os.OpenFile(filepath.Join(home, "logs", "hooks.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if logf != nil {
		defer logf.Close()
	}
	logger := slog.New(slog.NewTextHandler(orDiscard(logf), nil)).With("component", "hook", "agent", agent, "event", event, "terminal", tid)
	if !terminalIDPattern.MatchString(tid) {
		logger.Warn("ignored: REPRISE_TERMINAL_ID is not a Reprise terminal id", "value", fmt.Sprintf("%q", tid))
		return nil
	}
	var body []byte
	if wantsStdin(event, rest) {
		b, err := io.ReadAll(io.LimitReader(stdin, payload.MaxPayload+1))
		if err != nil {
			logger.Warn("read payload", "err", err)
			return nil
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
	if err := host.InboxOf(home).Put(rec); err != nil {
		logger.Error("hook event could not be saved", "err", err)
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

func orDiscard(f *os.File) io.Writer {
	if f == nil {
		return io.Discard
	}
	return f
}
