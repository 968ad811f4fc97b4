// Command hookspy stands in front of the reprise binary in the conformance
// tests, so they can see what the real agent CLIs did without changing
// what Reprise does: a `reprise hook …` call (an agent's hook, or the launch
// wrapper's process-exit report) is logged as one JSON line to
// $REPRISE_HOME/hookspy.jsonl — arguments, payload, time — and then handed
// to the real binary (this executable's path + ".real") with the same
// arguments, environment and payload; every other call execs the real
// binary.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Record is one logged hook call.
type Record struct {
	At         time.Time       `json:"at"`
	PID        int             `json:"pid"`
	PPID       int             `json:"ppid"`
	TerminalID string          `json:"terminalId"`
	Args       []string        `json:"args"`
	Payload    json.RawMessage `json:"payload,omitempty"`
	Raw        string          `json:"raw,omitempty"` // a payload that is not JSON
}

func main() {
	self, err := os.Executable()
	if err != nil {
		os.Exit(1)
	}
	real := self + ".real"
	args := os.Args[1:]
	if len(args) == 0 || args[0] != "hook" {
		err := syscall.Exec(real, append([]string{real}, args...), os.Environ())
		os.Stderr.WriteString("hookspy: exec " + real + ": " + err.Error() + "\n")
		os.Exit(1)
	}
	rec := Record{At: time.Now(), PID: os.Getpid(), PPID: os.Getppid(), TerminalID: os.Getenv("REPRISE_TERMINAL_ID"), Args: args}
	// Read the payload the way `reprise hook` decides to (never a terminal,
	// never for process-exit or a JSON argument).
	var body []byte
	readStdin := true
	if len(args) >= 3 && args[2] == "process-exit" {
		readStdin = false
	}
	if n := len(args); n > 3 && strings.HasPrefix(strings.TrimSpace(args[n-1]), "{") {
		readStdin = false
	}
	if st, err := os.Stdin.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		readStdin = false
	}
	if readStdin {
		body, _ = io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	}
	if t := bytes.TrimSpace(body); len(t) > 0 {
		if json.Valid(t) {
			rec.Payload = t
		} else {
			rec.Raw = string(t)
		}
	}
	// Logged before the real call: an agent may kill a slow hook.
	if home := os.Getenv("REPRISE_HOME"); home != "" {
		line, _ := json.Marshal(rec)
		if f, err := os.OpenFile(filepath.Join(home, "hookspy.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			f.Write(append(line, '\n'))
			f.Close()
		}
	}
	cmd := exec.Command(real, args...)
	cmd.Env = os.Environ()
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if readStdin {
		cmd.Stdin = bytes.NewReader(body)
	} else {
		cmd.Stdin = os.Stdin
	}
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		os.Exit(1)
	}
}
