package ptyd

import "net"

func netListen(sock string) (net.Listener, error) { return net.Listen("unix", sock) }
