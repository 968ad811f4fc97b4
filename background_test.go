package main

import "testing"

func TestPrefersDark(t *testing.T) {
	for _, tc := range []struct {
		gtkTheme, scheme, theme string
		want                    bool
	}{
		{"", "", "", false},
		{"Adwaita:dark", "prefer-light", "", true},
		{"Adwaita", "prefer-dark", "Adwaita-dark", false}, // GTK_THEME wins
		{"", "prefer-dark", "Adwaita", true},
		{"", "prefer-light", "Adwaita-dark", false},
		{"", "default", "Adwaita-dark", true},
		{"", "default", "Yaru", false},
	} {
		if got := prefersDark(tc.gtkTheme, tc.scheme, tc.theme); got != tc.want {
			t.Errorf("prefersDark(%q, %q, %q) = %v, want %v", tc.gtkTheme, tc.scheme, tc.theme, got, tc.want)
		}
	}
}
