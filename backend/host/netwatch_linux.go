package host

import (
	"context"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// netChanges is a netlink socket subscribed to the kernel's link, address
// and route changes of the network namespace it was opened in: a Wi-Fi
// that reassociates, a cable plugged back, a VPN coming up, a DHCP lease.
// Each is a moment a link to a remote host may work again, so its
// supervisor retries at once instead of waiting out its backoff (up to
// linkRetryMax). x/sys/unix is enough: the messages are not parsed, any
// change is a reason to try.
type netChanges struct{ fd int }

// netwatchNetns, when set (tests), is the network namespace (a path such
// as /var/run/netns/NAME) whose changes the host watches instead of its
// own, so a test can change a network without touching the machine's.
var netwatchNetns string

func openNetChanges() (*netChanges, error) {
	if netwatchNetns != "" {
		return openNetChangesIn(netwatchNetns)
	}
	return openNetChangesHere()
}

// openNetChangesIn opens the socket inside the namespace at path: a
// netlink socket belongs to the namespace it was created in.
func openNetChangesIn(path string) (*netChanges, error) {
	runtime.LockOSThread()
	back := true // the thread is in its own namespace
	defer func() {
		// A thread that could not return stays locked: Go ends it with
		// this goroutine instead of running others in the wrong namespace.
		if back {
			runtime.UnlockOSThread()
		}
	}()
	self, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("own network namespace: %w", err)
	}
	defer unix.Close(self)
	ns, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("network namespace %s: %w", path, err)
	}
	defer unix.Close(ns)
	if err := unix.Setns(ns, unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("enter network namespace %s: %w", path, err)
	}
	back = false
	n, err := openNetChangesHere()
	if serr := unix.Setns(self, unix.CLONE_NEWNET); serr != nil {
		return n, err
	}
	back = true
	return n, err
}

func openNetChangesHere() (*netChanges, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("netlink socket: %w", err)
	}
	sa := &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: unix.RTMGRP_LINK |
		unix.RTMGRP_IPV4_IFADDR | unix.RTMGRP_IPV6_IFADDR | unix.RTMGRP_IPV4_ROUTE | unix.RTMGRP_IPV6_ROUTE}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netlink bind: %w", err)
	}
	// A read wakes at least once a second, so Close is noticed.
	tv := unix.Timeval{Sec: 1}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netlink timeout: %w", err)
	}
	return &netChanges{fd: fd}, nil
}

// run calls changed after each burst of network changes until ctx ends,
// then closes the socket. A burst (an interface going up brings its
// addresses and routes) is one call.
func (n *netChanges) run(ctx context.Context, changed func()) {
	defer unix.Close(n.fd)
	buf := make([]byte, 64<<10)
	for ctx.Err() == nil {
		m, _, err := unix.Recvfrom(n.fd, buf, 0)
		if err != nil || m <= 0 {
			// EAGAIN (the 1 s timeout), EINTR, ENOBUFS (the kernel dropped
			// messages: something changed anyway).
			if err == unix.ENOBUFS {
				changed()
			}
			continue
		}
		// Coalesce what follows within 50 ms into this change.
		_ = unix.SetsockoptTimeval(n.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 50000})
		for {
			if m, _, err := unix.Recvfrom(n.fd, buf, 0); err != nil || m <= 0 {
				break
			}
		}
		_ = unix.SetsockoptTimeval(n.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 1})
		changed()
	}
}

// watchNetwork kicks the supervisors of disconnected remote hosts whenever
// the network changes.
func (h *Host) watchNetwork() {
	defer h.wg.Done()
	n, err := openNetChanges()
	if err != nil {
		h.log.Warn("network changes are not watched; disconnected remote hosts retry on their backoff only", "component", "netwatch", "err", err)
		return
	}
	n.run(h.ctx, func() {
		h.log.Debug("network changed; retrying disconnected remote hosts now", "component", "netwatch")
		h.kickDisconnected()
	})
}
