package fake

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// StartLogEnv names the file every fake agent appends one Start line to.
const StartLogEnv = "FAKE_AGENT_LOG"

// Start is one line of the start log: one process start of a fake agent.
type Start struct {
	PID  int       `json:"pid"`
	Argv []string  `json:"argv"` // os.Args, argv[0] included
	Cwd  string    `json:"cwd"`
	Time time.Time `json:"time"`
}

// LogStart appends this process's Start to $FAKE_AGENT_LOG, if set.
func LogStart() error {
	path := os.Getenv(StartLogEnv)
	if path == "" {
		return nil
	}
	cwd, _ := os.Getwd()
	line, err := json.Marshal(Start{PID: os.Getpid(), Argv: os.Args, Cwd: cwd, Time: time.Now()})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open start log: %w", err)
	}
	// One write per line: concurrent starts append whole lines.
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadStarts reads a start log. A missing file means no starts.
func ReadStarts(path string) ([]Start, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var starts []Start
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var s Start
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return starts, fmt.Errorf("start log line %d: %w", len(starts)+1, err)
		}
		starts = append(starts, s)
	}
	return starts, sc.Err()
}
