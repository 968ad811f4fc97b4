package main

// #include <stdlib.h>
import "C"

import (
	"os"
	"strings"
	"unsafe"
)

// webProcessMallocTunable fixes glibc's mmap threshold in the WebKit web
// process at glibc's own starting value. By default glibc raises the
// threshold to the size of each large mmapped block freed (up to 32 MiB), so
// after the page's first paints, multi-MiB buffers come from the main heap
// instead, and once freed they stay in it: with 10 panes open the web
// process's main heap held ~52 MiB free in a few 0.6–25 MiB chunks
// (malloc_info), about 6 MiB per extra pane, given back only by malloc_trim.
// A fixed threshold (setting it turns the raise off) keeps those blocks
// mmapped, so free returns them (docs/performance.md, "glibc's mmap
// threshold in the web process").
const webProcessMallocTunable = "glibc.malloc.mmap_threshold=131072"

// webProcessTunables is GLIBC_TUNABLES for WebKit's processes given the
// user's own value: theirs, with the threshold added unless they set one.
func webProcessTunables(existing string) string {
	for _, t := range strings.Split(existing, ":") {
		if strings.HasPrefix(t, "glibc.malloc.mmap_threshold=") {
			return existing
		}
	}
	if existing == "" {
		return webProcessMallocTunable
	}
	return existing + ":" + webProcessMallocTunable
}

// setWebProcessEnv puts the tunable into the C environment only, before
// Wails creates the web view: WebKit starts its web and network processes
// with the C environment (GSubprocess, g_get_environ), while Go's os/exec
// copies Go's own environment, which C setenv does not change. So the pty
// daemon, the shells and every agent the app starts keep the user's
// environment as it was, and only WebKit's processes get the tunable (glibc
// reads GLIBC_TUNABLES at exec; it does not change this process).
func setWebProcessEnv() {
	k := C.CString("GLIBC_TUNABLES")
	v := C.CString(webProcessTunables(os.Getenv("GLIBC_TUNABLES")))
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	C.setenv(k, v, 1)
}

// cGetenv reads the C environment (for the test: Go's os.Getenv reads Go's).
func cGetenv(key string) string {
	k := C.CString(key)
	defer C.free(unsafe.Pointer(k))
	return C.GoString(C.getenv(k))
}
