package install

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// The agent states (backend/attention) need, per agent, the events that
// say "needs input" and "working again" — and only those: every installed
// event is a `reprise hook` process per call. Codex had only the truth
// table's four (no approval event: a pending approval showed as working);
// Gemini had no Notification and no tool event. The user's own hooks on
// the same events (JSONC comments and all) stay as they were, and Remove
// gives their file back byte for byte.
func TestAttentionEventsInstalled(t *testing.T) {
	cases := []struct {
		agent string
		want  []string
		orig  string // the user's config before Reprise
		mine  string // a user's own command that must survive
	}{
		{"codex", []string{"PermissionRequest", "PostToolUse", "SessionEnd", "SessionStart", "Stop", "UserPromptSubmit"}, `{
  "hooks": {
    "PostToolUse": [
      { "matcher": "shell", "hooks": [ { "type": "command", "command": "./audit.sh" } ] }
    ]
  }
}
`, "./audit.sh"},
		{"gemini", []string{"AfterAgent", "AfterTool", "BeforeAgent", "Notification", "SessionEnd", "SessionStart"}, `{
  // the user's own desktop notifier
  "hooks": {
    "Notification": [
      { "hooks": [ { "type": "command", "command": "notify-send gemini", }, ], },
    ],
  },
  "ui": { "theme": "GitHub" }, // trailing comma next
}
`, "notify-send gemini"},
	}
	for _, c := range cases {
		t.Run(c.agent, func(t *testing.T) {
			in := newInstaller(t)
			tg := target(t, in, c.agent)
			if ev := slices.Sorted(slices.Values(tg.Events)); !slices.Equal(ev, c.want) {
				t.Fatalf("target events %v, want %v", ev, c.want)
			}
			writeFile(t, tg.Path, c.orig, 0o600)
			if err := in.Install(c.agent); err != nil {
				t.Fatal(err)
			}
			got := installedCommands(t, c.agent, tg.Path)
			if ev := slices.Sorted(maps.Keys(got)); !slices.Equal(ev, c.want) {
				t.Fatalf("installed %v, want %v", ev, c.want)
			}
			for ev, cmd := range got {
				if cmd != Command(exe, c.agent, ev) {
					t.Errorf("%s: %q", ev, cmd)
				}
			}
			if text := readFile(t, tg.Path); !strings.Contains(text, c.mine) {
				t.Fatalf("the user's %q is gone:\n%s", c.mine, text)
			}
			if st, err := in.Status(c.agent); err != nil || !st.Installed || st.Partial {
				t.Fatalf("status %+v %v", st, err)
			}
			if err := in.Remove(c.agent); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, tg.Path); got != c.orig {
				t.Fatalf("after remove:\n%s\nwant\n%s", got, c.orig)
			}
		})
	}
}
