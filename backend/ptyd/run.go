package ptyd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/reprise-dev/reprise/backend/lockfile"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/safefile"
	"github.com/reprise-dev/reprise/backend/scrollback"
)

// ErrAlreadyRunning means another daemon serves this home.
var ErrAlreadyRunning = errors.New("a pty daemon is already running for this home")

// Run is the daemon process: it takes the home's daemon lock, listens on
// the socket (0600 inside a 0700 directory) and serves until SIGTERM/SIGINT
// or ctx ends. SIGHUP is ignored: the daemon outlives the terminal or
// session that started it.
func Run(ctx context.Context, home paths.Home, logger *slog.Logger) error {
	// Catch SIGHUP rather than ignore it: an ignored signal stays ignored in
	// every program the daemon starts, and shells and their jobs must still
	// die when their terminal hangs up. (SIGPIPE needs nothing: Go only
	// dies of it on stdout/stderr, which go to the log file.)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			logger.Info("ignoring SIGHUP", "component", "ptyd")
		}
	}()
	if err := home.Ensure(); err != nil {
		return err
	}
	lock, err := lockfile.TryLock(home.PtydLock())
	if errors.Is(err, lockfile.ErrLocked) {
		return ErrAlreadyRunning
	}
	if err != nil {
		return err
	}
	defer lock.Release()

	sock := home.PtydSocket()
	// Stale from a killed daemon; we hold the lock, so it is not live.
	if err := safefile.ClearSocket(sock); err != nil {
		return err
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", sock)
	syscall.Umask(old)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", sock, err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("chmod socket: %w", err)
	}
	srv := New(Config{ScrollbackDir: home.ScrollbackDir(), ScrollbackLimit: scrollback.DefaultLimit, Logger: logger})
	logger.Info("pty daemon started", "component", "ptyd", "pid", os.Getpid(), "socket", sock)

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case s := <-sigs:
		logger.Info("pty daemon stopping", "component", "ptyd", "signal", s.String())
	case err = <-serveErr:
	}
	ln.Close()
	_ = os.Remove(sock)
	srv.Shutdown()
	return err
}
