package host

import (
	"context"
	"fmt"

	"github.com/reprise-dev/reprise/backend/api"
)

// settingDefs lists the settings users can change, with their default and
// allowed values.
var settingDefs = map[string]struct {
	def     string
	allowed []string
}{
	api.SettingOnInterrupt:             {"banner", []string{"banner", "auto"}},
	api.SettingScrollbackPersist:       {"true", []string{"true", "false"}},
	api.SettingContinueAfterRestart:    {"false", []string{"true", "false"}},
	api.SettingSessionRetentionDays:    {"0", nil},
	api.SettingScrollbackRetentionDays: {"0", nil},
}

// Setting returns a setting's value, or its default.
func (h *Host) Setting(ctx context.Context, key string) (string, error) {
	d, ok := settingDefs[key]
	if !ok {
		return "", fmt.Errorf("unknown setting %q", key)
	}
	v, found, err := h.store.GetSetting(ctx, key)
	if err != nil {
		return "", err
	}
	if !found {
		return d.def, nil
	}
	return v, nil
}

// SetSetting changes a setting.
func (h *Host) SetSetting(ctx context.Context, key, value string) error {
	d, ok := settingDefs[key]
	if !ok {
		return fmt.Errorf("unknown setting %q", key)
	}
	if d.allowed == nil { // a number of days
		var n int
		if _, err := fmt.Sscanf(value, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != value {
			return fmt.Errorf("setting %s: %q is not a whole number of days (0 = keep forever)", key, value)
		}
		return h.store.SetSetting(ctx, key, value)
	}
	for _, a := range d.allowed {
		if a == value {
			return h.store.SetSetting(ctx, key, value)
		}
	}
	return fmt.Errorf("setting %s: %q is not one of %v", key, value, d.allowed)
}

// CloseTerminal closes the pane showing a terminal (hanging it up), or
// disposes it directly when no pane shows it.
func (h *Host) CloseTerminal(ctx context.Context, terminalID string) error {
	if _, err := h.store.GetTerminal(ctx, terminalID); err != nil {
		return err
	}
	if p, err := h.store.PaneIDForTerminal(ctx, terminalID); err == nil && p != "" {
		_, err := h.ClosePane(ctx, p)
		return err
	}
	h.dispose(ctx, []string{terminalID})
	return nil
}
