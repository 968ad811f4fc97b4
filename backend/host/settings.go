package host

import (
	"context"
	"fmt"
	"strconv"

	"github.com/reprise-dev/reprise/backend/api"
)

// maxRetentionDays bounds the retention settings (100 years). Checked here,
// where the CLI, SDK, MCP, WebSocket and the app all set settings, and again
// where the cutoff is computed, for values stored before the check existed.
const maxRetentionDays = 36500

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
	api.SettingNotifyWhen:              {"needs-input-and-finished", []string{"off", "needs-input", "needs-input-and-finished"}},
	api.SettingNotifySound:             {"false", []string{"true", "false"}},
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
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 || n > maxRetentionDays || strconv.Itoa(n) != value {
			return fmt.Errorf("setting %s: %q is not a whole number of days from 0 to %d (0 = keep forever)", key, value, maxRetentionDays)
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
