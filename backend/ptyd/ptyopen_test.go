package ptyd

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Every child writes into its own pty, many started at once: the slave a
// child gets is its master's peer (TIOCGPTPEER), never a pty found by name.
func TestStartPtyGivesEachChildItsOwnPty(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				tag := fmt.Sprintf("tag-%d-%d", w, i)
				cmd := exec.Command("/bin/sh", "-c", "echo "+tag+"; stty size")
				m, err := startPty(cmd, 101, 33)
				if err != nil {
					errs <- err
					return
				}
				var got strings.Builder
				buf := make([]byte, 256)
				_ = m.SetReadDeadline(time.Now().Add(5 * time.Second))
				for !strings.Contains(got.String(), "33 101") {
					n, err := m.Read(buf)
					got.Write(buf[:n])
					if err != nil {
						break
					}
				}
				m.Close()
				_ = cmd.Wait()
				if out := got.String(); !strings.HasPrefix(out, tag+"\r\n") || !strings.Contains(out, "33 101") {
					errs <- fmt.Errorf("%s: its pty read %q", tag, out)
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
