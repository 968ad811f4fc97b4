package main

// Opening a file path the user Ctrl+clicked in a pane (`/etc/hosts:3`, `./src/main.go:12`), in the
// desktop window: the desktop's default application for it, through xdg-open (Wails' own
// BrowserOpenURL refuses file: URLs). A browser tab (reprise serve) copies the path instead: its
// host may be another machine, and a page that could make the host run programs on paths it
// names is a risk the page's token alone should not carry.

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// opener is the program that opens a path with the desktop's default application.
var opener = "xdg-open"

// OpenPath opens an absolute path that exists with the desktop's default application. Launchers
// (.desktop files) are refused: opening one runs the program it names.
func (a *App) OpenPath(path string) error {
	if err := checkOpenPath(path); err != nil {
		slog.Warn("open path refused", "component", "openpath", "path", path, "err", err)
		return err
	}
	cmd := exec.Command(opener, path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Start(); err != nil {
		slog.Warn("open path", "component", "openpath", "path", path, "err", err)
		return fmt.Errorf("open %s: %w", path, err)
	}
	// xdg-open returns once the application is started; reap it so it leaves no zombie.
	go func() {
		if err := cmd.Wait(); err != nil {
			slog.Info("opener exited", "component", "openpath", "path", path, "err", err)
		}
	}()
	return nil
}

func checkOpenPath(path string) error {
	if path == "" || !filepath.IsAbs(path) || strings.ContainsAny(path, "\x00\n\r") {
		return fmt.Errorf("open %q: not an absolute path", path)
	}
	if strings.EqualFold(filepath.Ext(path), ".desktop") {
		return fmt.Errorf("open %s: a launcher (.desktop file) is not opened from a terminal link", path)
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("open %s: no such file or folder", path)
		}
		return fmt.Errorf("open %s: %w", path, err)
	}
	return nil
}
