package fake

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Screen is the agent's terminal output. Writes are serialized and best
// effort: after a hangup the terminal is gone and errors mean nothing.
type Screen struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

// NewScreen writes to w.
func NewScreen(w io.Writer) *Screen { return &Screen{w: w} }

// Printf writes formatted text.
func (s *Screen) Printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = fmt.Fprintf(s.w, format, args...)
}

// Println writes its arguments and a newline.
func (s *Screen) Println(args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = fmt.Fprintln(s.w, args...)
}

// Exiter ends the process exactly once. The first caller runs its last words
// (hooks, messages, cleanup) and exits; a later caller (a SIGHUP during
// /exit, say) blocks until the process is gone, so no second SessionEnd runs.
type Exiter struct {
	mu      sync.Mutex // held from the first Exit until the process ends
	exiting atomic.Bool
	exit    func(int)
}

// NewExiter returns an Exiter that calls os.Exit.
func NewExiter() *Exiter { return &Exiter{exit: os.Exit} }

// Exiting reports whether an Exit has begun.
func (e *Exiter) Exiting() bool { return e.exiting.Load() }

// Exit runs last (if not nil) and exits with code. It does not return.
func (e *Exiter) Exit(code int, last func()) {
	e.exiting.Store(true)
	e.mu.Lock()
	if last != nil {
		last()
	}
	e.exit(code)
	select {}
}

// HandleSignals installs the fakes' common signal behaviour: SIGTERM exits
// 143 at once, with no hooks and no cleanup; SIGINT is ignored; SIGHUP runs
// onHangup on its own goroutine (it is expected to call Exiter.Exit), so a
// SIGTERM during a slow death gasp still ends the process.
func HandleSignals(onHangup func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for s := range ch {
			switch s {
			case syscall.SIGTERM:
				os.Exit(143)
			case syscall.SIGHUP:
				go onHangup()
			}
		}
	}()
}

// hangupGrace is how long end of input waits for the SIGHUP that usually
// comes with it: a closed pty both ends reads and hangs up the session.
const hangupGrace = 300 * time.Millisecond

// REPL reads submitted lines from the terminal (a pty in canonical mode, so
// the line discipline echoes and edits) and hands them to the agent.
type REPL struct {
	Exiter *Exiter
	Ready  func()            // prints the ready marker; called whenever input is awaited
	Line   func(line string) // handles one non-empty line
	EOF    func()            // input ended with no hangup (Ctrl-D); expected to exit
}

// Run loops until input ends. Lines are trimmed of the line ending; empty
// lines are skipped, as an empty submit is in the real CLIs.
func (r *REPL) Run(in io.Reader) {
	br := bufio.NewReader(in)
	r.Ready()
	for {
		line, err := br.ReadString('\n')
		if r.Exiter.Exiting() {
			select {}
		}
		line = strings.TrimRight(line, "\r\n")
		if line != "" {
			r.Line(line)
			r.Ready()
		}
		if err != nil {
			time.Sleep(hangupGrace)
			if r.Exiter.Exiting() {
				select {}
			}
			r.EOF()
			return
		}
	}
}
