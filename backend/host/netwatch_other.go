//go:build !linux

package host

// watchNetwork is Linux-only (netlink); elsewhere disconnected remote hosts
// retry on their backoff and on KickRemote.
func (h *Host) watchNetwork() { h.wg.Done() }
