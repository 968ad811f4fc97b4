package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reprise-dev/reprise/backend/cli"
)

// go.mod and go.sum are tidy: `wails build` and `wails dev` run
// `go mod tidy` and used to leave a rewritten go.sum behind.
func TestGoModTidy(t *testing.T) {
	out, err := exec.Command("go", "mod", "tidy", "-diff").CombinedOutput()
	if err != nil {
		t.Fatalf("go mod tidy would change go.mod/go.sum (%v); run go mod tidy:\n%s", err, out)
	}
}

// wails.json is what `wails build` and `wails dev` read: the desktop app's
// name beside the command line, the WebKitGTK 4.1 tag, the frontend
// commands, and the hook that builds the GUI-free binary beside the app.
func TestWailsJSON(t *testing.T) {
	b, err := os.ReadFile("wails.json")
	if err != nil {
		t.Fatal(err)
	}
	var w map[string]any
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatalf("wails.json: %v", err)
	}
	for k, want := range map[string]string{
		"outputfilename":         cli.DesktopName,
		"frontend:dir":           "frontend",
		"frontend:build":         "npm run build",
		"frontend:dev:watcher":   "npm run dev",
		"frontend:dev:serverUrl": "auto",
	} {
		if w[k] != want {
			t.Errorf("%s = %v, want %q", k, w[k], want)
		}
	}
	if tags, _ := w["build:tags"].(string); !strings.Contains(","+tags+",", ",webkit2_41,") {
		t.Errorf("build:tags = %q, want webkit2_41 (Debian 12 has WebKitGTK 4.1 only)", tags)
	}
	hooks, _ := w["postBuildHooks"].(map[string]any)
	if h, _ := hooks["*/*"].(string); !strings.Contains(h, "scripts/build-cli.sh") {
		t.Errorf("postBuildHooks[*/*] = %q, want scripts/build-cli.sh (the GUI-free binary beside the app)", h)
	}
	for _, k := range []string{"name", "author", "info", "version"} {
		if w[k] == nil {
			t.Errorf("wails.json has no %q", k)
		}
	}
}

// Binding generation (wails generate module, and the first step of wails
// build / wails dev) builds the app with the bindings tag and runs it once.
// That run must start nothing: it used to run main(), which started a host
// and a pty daemon — in the real home when REPRISE_HOME was unset.
func TestBindingGenerationStartsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the app")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "wailsbindings")
	if out, err := exec.Command("go", "build", "-tags", "bindings,webkit2_41", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(filepath.Join(project, "frontend"), 0o755); err != nil {
		t.Fatal(err)
	}
	wj, err := os.ReadFile("wails.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "wails.json"), wj, 0o644); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(dir, "user")
	home := filepath.Join(dir, "rhome")
	if err := os.Mkdir(user, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Dir = project
	// Both the explicit home and the default one (HOME, XDG_DATA_HOME) are
	// watched: neither may appear.
	cmd.Env = append(os.Environ(), "HOME="+user, "XDG_DATA_HOME="+filepath.Join(user, "data"), "REPRISE_HOME="+home, "DISPLAY=", "WAYLAND_DISPLAY=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("binding generation failed: %v\n%s", err, out)
	}
	ts, err := os.ReadFile(filepath.Join(project, "frontend", "wailsjs", "go", "main", "App.d.ts"))
	if err != nil {
		t.Fatalf("no bindings generated: %v\n%s", err, out)
	}
	for _, m := range []string{"Endpoint", "Notify"} {
		if !strings.Contains(string(ts), m) {
			t.Errorf("App.d.ts has no %s:\n%s", m, ts)
		}
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("binding generation created %s (it started a host or a daemon)", home)
		stopHome(home)
	}
	if ents, _ := os.ReadDir(user); len(ents) > 0 {
		t.Errorf("binding generation wrote into the user's home: %v", ents)
		stopHome(user)
	}
}

// stopHome kills a daemon the old binding run would have left behind.
func stopHome(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "ptyd.lock" {
			if b, err := os.ReadFile(p); err == nil {
				_ = exec.Command("kill", "-9", strings.TrimSpace(string(b))).Run()
			}
		}
		return nil
	})
}
