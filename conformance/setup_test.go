package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The first-run setup of each CLI (AGENTS.md, "Running the real CLIs
// offline"): files a person would have after onboarding, the stand-in's
// URL, and a dummy key. Reprise's hooks are not written here: Reprise
// installs them itself when it launches the agent.

// anthropicKey is a dummy key; Claude Code asks once whether to use a
// custom key, remembered by its last 20 characters.
const anthropicKey = "sk-ant-api03-reprise-conformance-standin-0123456789abcdefghij"

func init() {
	setups["claude"] = func(r *rig) []string {
		key := anthropicKey[len(anthropicKey)-20:]
		state := map[string]any{
			"hasCompletedOnboarding": true,
			"customApiKeyResponses":  map[string]any{"approved": []string{key}, "rejected": []string{}},
			"projects":               map[string]any{r.work: map[string]any{"hasTrustDialogAccepted": true}},
		}
		if r.opts.askApproval {
			// The offer to make auto mode the default, answered.
			state["hasSeenAutoDefaultNudge"] = true
			state["hasSeenAutoDefaultNotice"] = true
		}
		writeJSONFile(r.t, filepath.Join(r.userHome, ".claude.json"), state)
		if r.opts.askApproval {
			// 2.1.328 starts in "auto mode", where a classifier (the
			// stand-in, here) approves commands; a user who wants to be
			// asked chooses the default mode.
			writeJSONFile(r.t, filepath.Join(r.userHome, ".claude", "settings.json"), map[string]any{
				"permissions": map[string]any{"defaultMode": "default"},
			})
		}
		return []string{
			"ANTHROPIC_API_KEY=" + anthropicKey,
			"ANTHROPIC_BASE_URL=" + r.apiURL,
			"CLAUDE_CODE_MAX_RETRIES=0",
			"CLAUDE_CODE_TMPDIR=" + filepath.Join(r.root, "tmp"),
			"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		}
	}

	setups["codex"] = func(r *rig) []string {
		dir := filepath.Join(r.userHome, ".codex")
		os.MkdirAll(dir, 0o700)
		toml := fmt.Sprintf(`# conformance: a custom provider pointing at the local stand-in
model_provider = "standin"
check_for_update_on_startup = false

[model_providers.standin]
name = "Stand-in"
base_url = %q
env_key = "CODEX_STANDIN_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[projects.%q]
trust_level = "trusted"
`, r.apiURL+"/v1", r.work)
		if r.opts.askApproval {
			// The default, said out loud: commands run in Codex's sandbox
			// unasked, and the model asks for approval to run one outside
			// it (the stand-in does: sandbox_permissions require_escalated).
			toml = "approval_policy = \"on-request\"\n" + toml
		}
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(toml), 0o600); err != nil {
			r.t.Fatal(err)
		}
		return []string{"CODEX_STANDIN_API_KEY=standin-dummy"}
	}
	// No background app-server that outlives the TUI; no endless retries.
	agentArgs["codex"] = []string{"--no-daemon", "--disable", "unbounded_connection_retries"}

	setups["gemini"] = func(r *rig) []string {
		writeJSONFile(r.t, filepath.Join(r.userHome, ".gemini", "settings.json"), map[string]any{
			"security": map[string]any{
				"auth":        map[string]any{"selectedType": "gemini-api-key"},
				"folderTrust": map[string]any{"enabled": false},
			},
			"general": map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
			"privacy": map[string]any{"usageStatisticsEnabled": false},
		})
		return []string{
			"GEMINI_API_KEY=standin-dummy",
			"GOOGLE_GEMINI_BASE_URL=" + r.apiURL,
		}
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
