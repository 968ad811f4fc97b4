package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
)

// sessions.retentionDays = 9223372036854775807 was accepted, and the date
// arithmetic then overflowed into the future: every session was pruned at
// the next start.
func TestRetentionDaysRange(t *testing.T) {
	h := startHost(t, newHome(t))
	defer h.Close()
	ctx := context.Background()
	for _, key := range []string{api.SettingSessionRetentionDays, api.SettingScrollbackRetentionDays} {
		for _, v := range []string{"9223372036854775807", "36501", "-1", "1e3", " 7", "99999999999999999999"} {
			err := h.SetSetting(ctx, key, v)
			if err == nil {
				t.Errorf("%s=%q accepted", key, v)
				continue
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, key) || !strings.Contains(msg, "36500") {
				t.Errorf("%s=%q: error %q is not one line naming the setting and the range", key, v, msg)
			}
		}
		for _, v := range []string{"0", "1", "30", "36500"} {
			if err := h.SetSetting(ctx, key, v); err != nil {
				t.Errorf("%s=%q refused: %v", key, v, err)
			}
		}
	}
}

func TestRetentionCutoffNeverInTheFuture(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, days := range []int{1, 30, 36500, 36501, 1 << 40, int(^uint(0) >> 1)} {
		cutoff, ok := retentionCutoff(now, days)
		if !ok {
			continue // out of range: nothing is pruned
		}
		if !cutoff.Before(now) {
			t.Errorf("days=%d: cutoff %v is not before now", days, cutoff)
		}
	}
	if _, ok := retentionCutoff(now, int(^uint(0)>>1)); ok {
		t.Error("an out-of-range retention prunes")
	}
	if _, ok := retentionCutoff(now, 0); ok {
		t.Error("0 (keep forever) prunes")
	}
}

// Settings → Notifications (issue 16): the defaults the page shows before
// anything is saved, the values it may store, and a refusal for the rest.
func TestNotifySettings(t *testing.T) {
	h := startHost(t, newHome(t))
	defer h.Close()
	ctx := context.Background()
	for key, def := range map[string]string{api.SettingNotifyWhen: "needs-input-and-finished", api.SettingNotifySound: "false"} {
		if v, err := h.Setting(ctx, key); err != nil || v != def {
			t.Errorf("%s default = %q, %v; want %q", key, v, err, def)
		}
	}
	for _, v := range []string{"off", "needs-input", "needs-input-and-finished"} {
		if err := h.SetSetting(ctx, api.SettingNotifyWhen, v); err != nil {
			t.Errorf("notify.when=%q refused: %v", v, err)
		}
	}
	if v, _ := h.Setting(ctx, api.SettingNotifyWhen); v != "needs-input-and-finished" {
		t.Errorf("notify.when = %q after setting needs-input-and-finished", v)
	}
	for key, bad := range map[string]string{api.SettingNotifyWhen: "always", api.SettingNotifySound: "yes"} {
		if err := h.SetSetting(ctx, key, bad); err == nil {
			t.Errorf("%s=%q accepted", key, bad)
		}
	}
}
