package main

import (
	"debug/buildinfo"
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The binary agents' hooks and the daemon run must not carry the GUI: a
// hook starts on every prompt and turn, and the daemon outlives the window.
// Linked with GTK and WebKitGTK the same code took ~120 ms and 59 MB per
// hook call (169 shared libraries) against ~5 ms and 17 MB without. It is
// built with the desktop app's tags, so a Wails import anywhere below
// cmd/reprise would bring the GUI in and fail here.
func TestNoGUILibraries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "reprise")
	build := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range libs {
		for _, gui := range []string{"gtk", "gdk", "webkit", "javascriptcore", "soup", "cairo", "pango", "glib", "gobject", "X11", "wayland"} {
			if strings.Contains(strings.ToLower(lib), strings.ToLower(gui)) {
				t.Errorf("links %s (DT_NEEDED %v)", lib, libs)
				break
			}
		}
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range info.Deps {
		if strings.HasPrefix(d.Path, "github.com/wailsapp/") {
			t.Errorf("depends on %s %s", d.Path, d.Version)
		}
	}
}
