package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOpenPathRefusesWhatItShouldNotOpen(t *testing.T) {
	dir := t.TempDir()
	launcher := filepath.Join(dir, "x.desktop")
	if err := os.WriteFile(launcher, []byte("[Desktop Entry]\nExec=true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", "relative/file.go", filepath.Join(dir, "missing.txt"), launcher, dir + "/a\nb"} {
		if err := checkOpenPath(p); err == nil {
			t.Errorf("checkOpenPath(%q) = nil, want an error", p)
		}
	}
	if err := checkOpenPath(dir); err != nil {
		t.Errorf("a folder: %v", err)
	}
}

func TestOpenPathRunsTheOpenerOnThePath(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(target, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A stand-in for xdg-open that writes down what it was asked to open.
	log := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "fake-open")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+log+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := opener
	opener = script
	t.Cleanup(func() { opener = old })

	if err := (&App{}).OpenPath(target); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(log)
		if err == nil && len(b) > 0 {
			if strings.TrimSpace(string(b)) != target {
				t.Fatalf("opened %q, want %q", b, target)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the opener was not run: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
