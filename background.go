package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2/pkg/options"
)

// windowBackground is what the window shows before the page first paints
// (WebKit takes a second or more to start): the page's own background for
// the desktop's colour scheme (styles.css --bg), so a light desktop never
// sees a dark grey window at start, nor a dark one a white flash.
func windowBackground() *options.RGBA {
	// Binding generation runs this binary only to list methods: it must touch
	// nothing, and gsettings would create ~/.cache/dconf.
	if !bindingsOnly && desktopPrefersDark() {
		return &options.RGBA{R: 0x18, G: 0x18, B: 0x18, A: 255}
	}
	return &options.RGBA{R: 0xf3, G: 0xf3, B: 0xf3, A: 255}
}

// desktopPrefersDark asks what WebKitGTK's prefers-color-scheme follows:
// GTK_THEME, else GNOME's color-scheme and GTK theme settings (gsettings,
// bounded so a missing or hung dconf never delays the window).
func desktopPrefersDark() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	get := func(key string) string {
		if os.Getenv("GTK_THEME") != "" {
			return "" // GTK_THEME overrides the settings
		}
		out, err := exec.CommandContext(ctx, "gsettings", "get", "org.gnome.desktop.interface", key).Output()
		if err != nil {
			return ""
		}
		return strings.Trim(strings.TrimSpace(string(out)), "'")
	}
	return prefersDark(os.Getenv("GTK_THEME"), get("color-scheme"), get("gtk-theme"))
}

// prefersDark decides from GTK_THEME ("Adwaita:dark"), GNOME's color-scheme
// ("prefer-dark", "prefer-light", "default") and the GTK theme's name
// ("Adwaita-dark"); nothing known means GTK's default, light.
func prefersDark(gtkTheme, colorScheme, themeName string) bool {
	if gtkTheme != "" {
		return strings.Contains(strings.ToLower(gtkTheme), "dark")
	}
	switch colorScheme {
	case "prefer-dark":
		return true
	case "prefer-light":
		return false
	}
	return strings.Contains(strings.ToLower(themeName), "dark")
}
