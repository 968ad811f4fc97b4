package ptyd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reprise-dev/reprise/backend/ptyproto"
)

// serveHandoff takes the stdio of an ssh channel from `reprise ptyd
// connect` (ptyproto.FeatureHandoff) and serves the protocol on it, so the
// bytes of a remote host go between the daemon and sshd's pipes with no
// relay process copying each of them on the way (issue 18: on a 2-core
// machine every copy competes with the program, the daemon and ssh's
// crypto for the CPU). The relay's connection stays open while the channel
// is served: when the relay ends (killed with its ssh session) the channel
// is dropped as a relayed one would be, and when the channel ends the
// daemon closes the relay's connection, which ends the relay.
func (s *Server) serveHandoff(uc *net.UnixConn, br *bufio.Reader, name string) {
	fail := func(err error) {
		s.log.Warn("handoff refused", "client", name, "err", err)
		_ = ptyproto.WriteFrame(uc, &ptyproto.Header{Type: ptyproto.TError, Error: err.Error()}, nil)
	}
	// The relay sends the handoff only after our hello: nothing of it can
	// be in the hello's read buffer, where its descriptors would be lost.
	if br.Buffered() > 0 {
		fail(errors.New("handoff: bytes after the hello"))
		return
	}
	_ = uc.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(2*4))
	n, oobn, flags, _, err := uc.ReadMsgUnix(buf, oob)
	// Descriptors first: whatever else is wrong, none may leak (received
	// close-on-exec, so no terminal's process inherits them meanwhile).
	fds, perr := parseRights(oob[:oobn])
	closeFDs := func() {
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
	}
	if err != nil {
		closeFDs()
		fail(fmt.Errorf("handoff: read: %w", err))
		return
	}
	if perr != nil || flags&unix.MSG_CTRUNC != 0 || len(fds) != 2 {
		closeFDs()
		fail(fmt.Errorf("handoff: want 2 file descriptors, got %d (%v)", len(fds), perr))
		return
	}
	f, err := ptyproto.ReadFrame(io.MultiReader(bytes.NewReader(buf[:n]), uc))
	if err != nil || f.Header.Type != ptyproto.THandoff {
		closeFDs()
		fail(fmt.Errorf("handoff: want a %s frame (%v)", ptyproto.THandoff, err))
		return
	}
	_ = uc.SetReadDeadline(time.Time{})
	fc, err := newFDConn(fds[0], fds[1])
	if err != nil {
		closeFDs()
		fail(fmt.Errorf("handoff: %w", err))
		return
	}
	if err := ptyproto.WriteFrame(uc, &ptyproto.Header{Type: ptyproto.TOK}, nil); err != nil {
		fc.Close()
		return
	}
	s.log.Info("serving a handed-over channel", "client", name)
	go func() {
		// The relay sends nothing more: a read returns when it is gone.
		_, _ = io.Copy(io.Discard, uc)
		fc.Close()
	}()
	s.ServeConn(fc)
}

func parseRights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue // not SCM_RIGHTS
		}
		fds = append(fds, got...)
	}
	return fds, nil
}

// fdConn is a handed-over channel: two descriptors (pipes from sshd, or one
// socket twice) as a net.Conn, read and written through the runtime's
// poller, so Close ends a blocked read as on a socket.
type fdConn struct {
	r, w *os.File
	once sync.Once
}

func newFDConn(rfd, wfd int) (*fdConn, error) {
	// Non-blocking for the poller (os.NewFile checks). The relay, which
	// shares these open files, no longer uses them.
	for i, fd := range []int{rfd, wfd} {
		if err := unix.SetNonblock(fd, true); err != nil {
			if i == 1 {
				_ = unix.SetNonblock(rfd, false) // the relay copies on a refusal
			}
			return nil, fmt.Errorf("set non-blocking: %w", err)
		}
	}
	return &fdConn{r: os.NewFile(uintptr(rfd), "channel-in"), w: os.NewFile(uintptr(wfd), "channel-out")}, nil
}

func (c *fdConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *fdConn) Write(p []byte) (int, error) { return c.w.Write(p) }

// WriteVectored writes bufs in one writev where the pipe takes it all
// (ptyproto.VectorWriter): an output frame's header and payload in one
// write, as on a socket.
func (c *fdConn) WriteVectored(bufs ...[]byte) (int64, error) {
	rc, err := c.w.SyscallConn()
	if err != nil {
		return 0, err
	}
	var total int64
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for {
			for len(bufs) > 0 && len(bufs[0]) == 0 {
				bufs = bufs[1:]
			}
			if len(bufs) == 0 {
				return true
			}
			n, err := unix.Writev(int(fd), bufs)
			if n > 0 {
				total += int64(n)
				for n > 0 {
					k := min(n, len(bufs[0]))
					bufs[0] = bufs[0][k:]
					n -= k
					if len(bufs[0]) == 0 {
						bufs = bufs[1:]
					}
				}
				continue
			}
			switch err {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false // wait until the pipe has room
			case nil:
				err = io.ErrShortWrite
			}
			werr = err
			return true
		}
	})
	if err == nil {
		err = werr
	}
	return total, err
}

func (c *fdConn) Close() error {
	c.once.Do(func() {
		c.r.Close()
		c.w.Close()
	})
	return nil
}

func (c *fdConn) LocalAddr() net.Addr                { return channelAddr{} }
func (c *fdConn) RemoteAddr() net.Addr               { return channelAddr{} }
func (c *fdConn) SetDeadline(t time.Time) error      { _ = c.r.SetDeadline(t); return c.w.SetDeadline(t) }
func (c *fdConn) SetReadDeadline(t time.Time) error  { return c.r.SetReadDeadline(t) }
func (c *fdConn) SetWriteDeadline(t time.Time) error { return c.w.SetWriteDeadline(t) }

type channelAddr struct{}

func (channelAddr) Network() string { return "channel" }
func (channelAddr) String() string  { return "handed-over channel" }
