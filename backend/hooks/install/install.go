// Package install puts Reprise's hooks into each coding agent's own config
// and takes them out again.
//
// Every hook Reprise installs is the same guarded call of the binary's
// hidden subcommand (see Command): it does nothing outside a Reprise pane
// and always exits 0. Reprise recognises its entries by that exact shape, so
// installing again replaces them (after the binary moved, say) and the
// user's own entries are never touched.
//
// Edits are non-destructive: JSON files (with comments and trailing commas,
// as Gemini and others allow) are edited through an order-preserving tree
// that writes everything it did not change back byte for byte; Kimi's TOML
// gets one marked block appended. Every edit is read back before it is
// written: it must parse to the user's values plus Reprise's, or the file
// is left alone. Files are replaced atomically
// and keep their mode. A config that does not parse is refused, never
// overwritten. What Reprise created (a file, an empty "hooks" object) is
// remembered in a state file so Remove can take exactly that out again.
package install

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// ErrUnknownAgent: not a catalog agent id.
	ErrUnknownAgent = errors.New("unknown agent")
	// ErrNotAvailable: a catalog agent Reprise cannot install hooks for.
	ErrNotAvailable = errors.New("not available")
	// ErrMalformed: the agent's existing config does not parse; it was left alone.
	ErrMalformed = errors.New("malformed config")
)

// Target says where an agent's hooks go and which events Reprise hooks.
type Target struct {
	Agent  string
	Path   string // the file
	Events []string
}

// Status is what Settings shows per agent.
type Status struct {
	Agent     string
	Path      string
	Installed bool   // every event has Reprise's hook, pointing at Installer.Exe
	Partial   bool   // some of Reprise's hooks are there, but not all, or for another binary
	Note      string // e.g. "session tracking not available yet"
}

// Installer edits the configs under one home directory.
type Installer struct {
	Home string // the user's HOME
	Exe  string // absolute path of the reprise binary the hooks call
	// ClaudeConfigDir is $CLAUDE_CONFIG_DIR when set (default Home/.claude).
	ClaudeConfigDir string
	// CodexHome is $CODEX_HOME when set (default Home/.codex).
	CodexHome string
	// StateFile records what Reprise created, for Remove
	// (default Home/.config/reprise/hooks-state.json).
	StateFile string
}

const (
	noteUnavailable = "session tracking not available yet"
	noteNoInstaller = "no hook installer yet"
	noteCodexTrust  = "codex runs these hooks once they are trusted; Reprise's launches take care of that"
)

// agentDef is one agent's installer.
type agentDef struct {
	path   func(in Installer) string
	events []string
	json   *jsonSpec // nil for Kimi's TOML
	note   string    // shown when installed
}

// timeout is the hook's time budget: short, and shorter still for SessionEnd,
// whose hooks share a small budget while the agent exits.
func timeout(event string) int {
	switch event {
	case "SessionEnd", "sessionEnd":
		return 1
	}
	return 5
}

func claudeHandler(cmd, event string) *node {
	return newObject(kv("type", newString("command")), kv("command", newString(cmd)), kv("timeout", newInt(timeout(event))))
}

var claudeSpec = &jsonSpec{container: []string{"hooks"}, nested: true, cmdKey: "command", handler: claudeHandler}

// claudeEvents: the four the truth table needs, plus what the agent states
// need (backend/attention): StopFailure (a failed turn), Notification (a
// permission or question prompt is open) and PostToolUse (the prompt was
// answered and the turn goes on; it also keeps a long turn from looking
// stuck). PreToolUse would say the same as PostToolUse at twice the cost
// of a `reprise hook` run per tool call, so it is not installed.
var claudeEvents = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Notification", "Stop", "StopFailure", "SessionEnd"}

// codexEvents: the truth table's four, plus for the agent states
// PermissionRequest (an approval prompt opens: needs input; Codex has no
// Notification hook) and PostToolUse (the approved command ran: working
// again). Codex's notify says no more than its Stop hook, and PreToolUse
// runs before the approval, so neither is installed.
var codexEvents = []string{"SessionStart", "UserPromptSubmit", "PermissionRequest", "PostToolUse", "Stop", "SessionEnd"}

// geminiEvents: the truth table's four, plus for the agent states
// Notification (Gemini fires it for tool permission requests only: needs
// input) and AfterTool (the approved tool ran: working again). Gemini
// 0.61 runs BeforeTool before it asks for the approval (observed in the
// conformance suite), so BeforeTool cannot say the prompt was answered.
var geminiEvents = []string{"SessionStart", "BeforeAgent", "Notification", "AfterTool", "AfterAgent", "SessionEnd"}

var agents = map[string]agentDef{
	"claude": {
		path: func(in Installer) string {
			dir := in.ClaudeConfigDir
			if dir == "" {
				dir = filepath.Join(in.Home, ".claude")
			}
			return filepath.Join(dir, "settings.json")
		},
		events: claudeEvents,
		json:   claudeSpec,
	},
	"codex": {
		path: func(in Installer) string {
			dir := in.CodexHome
			if dir == "" {
				dir = filepath.Join(in.Home, ".codex")
			}
			return filepath.Join(dir, "hooks.json")
		},
		// Stop wants JSON or nothing on stdout: the command prints nothing.
		events: codexEvents,
		json:   claudeSpec,
		note:   noteCodexTrust,
	},
	"gemini": {
		path:   func(in Installer) string { return filepath.Join(in.Home, ".gemini", "settings.json") },
		events: geminiEvents,
		json: &jsonSpec{container: []string{"hooks"}, nested: true, cmdKey: "command",
			handler: func(cmd, event string) *node { // timeout in milliseconds
				return newObject(kv("name", newString("reprise")), kv("type", newString("command")),
					kv("command", newString(cmd)), kv("timeout", newInt(1000*timeout(event))))
			}},
	},
	"copilot": {
		path:   func(in Installer) string { return filepath.Join(in.Home, ".copilot", "hooks", "reprise.json") },
		events: []string{"sessionStart", "userPromptSubmitted", "agentStop", "sessionEnd"},
		json: &jsonSpec{container: []string{"hooks"}, cmdKey: "bash", ownFile: true,
			skeleton: []member{kv("version", newInt(1))},
			handler: func(cmd, event string) *node {
				return newObject(kv("type", newString("command")), kv("bash", newString(cmd)), kv("timeoutSec", newInt(timeout(event))))
			}},
	},
	"cursor-agent": {
		path:   func(in Installer) string { return filepath.Join(in.Home, ".cursor", "hooks.json") },
		events: []string{"sessionStart", "beforeSubmitPrompt", "stop", "sessionEnd"},
		json: &jsonSpec{container: []string{"hooks"}, cmdKey: "command",
			skeleton: []member{kv("version", newInt(1))},
			handler:  func(cmd, _ string) *node { return newObject(kv("command", newString(cmd))) }},
	},
	"droid": {
		path:   func(in Installer) string { return filepath.Join(in.Home, ".factory", "hooks.json") },
		events: []string{"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"},
		json:   claudeSpec,
	},
	"kimi": {
		path:   func(in Installer) string { return filepath.Join(in.Home, ".kimi", "config.toml") },
		events: []string{"SessionStart", "UserPromptSubmit", "Stop", "StopFailure", "SessionEnd"},
	},
	"mastracode": {
		// Mastra Code's hooks.json maps events straight to handler lists
		// (no "hooks" wrapper, no matcher groups); timeouts in milliseconds.
		path:   func(in Installer) string { return filepath.Join(in.Home, ".mastracode", "hooks.json") },
		events: []string{"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"},
		json: &jsonSpec{cmdKey: "command",
			handler: func(cmd, event string) *node {
				return newObject(kv("type", newString("command")), kv("command", newString(cmd)),
					kv("timeout", newInt(1000*timeout(event))), kv("description", newString("Reprise session tracking")))
			}},
	},
}

// unavailable are catalog agents without an installer, with the reason.
var unavailable = map[string]string{
	"amp":      noteUnavailable,
	"opencode": noteUnavailable,
	"pi":       noteUnavailable,
	"vibe":     noteNoInstaller,
	"grok":     noteNoInstaller,
}

// Supported lists the agents with an installer.
func Supported() []string {
	return []string{"claude", "codex", "gemini", "copilot", "cursor-agent", "droid", "kimi", "mastracode"}
}

func lookup(agent string) (agentDef, error) {
	if def, ok := agents[agent]; ok {
		return def, nil
	}
	if note, ok := unavailable[agent]; ok {
		return agentDef{}, fmt.Errorf("%s: %w: %s", agent, ErrNotAvailable, note)
	}
	return agentDef{}, fmt.Errorf("%w %q", ErrUnknownAgent, agent)
}

// Target says where agent's hooks go.
func (in Installer) Target(agent string) (Target, error) {
	def, err := lookup(agent)
	if err != nil {
		return Target{}, err
	}
	if err := in.checkHome(); err != nil {
		return Target{}, err
	}
	return Target{Agent: agent, Path: def.path(in), Events: slices.Clone(def.events)}, nil
}

func (in Installer) checkHome() error {
	if in.Home == "" || !filepath.IsAbs(in.Home) {
		return fmt.Errorf("home %q is not an absolute path", in.Home)
	}
	return nil
}

func checkExe(exe string) error {
	if exe == "" || !filepath.IsAbs(exe) {
		return fmt.Errorf("reprise binary %q is not an absolute path", exe)
	}
	if !utf8.ValidString(exe) || strings.ContainsFunc(exe, unicode.IsControl) {
		return fmt.Errorf("reprise binary path %q has invalid characters", exe)
	}
	return nil
}

// ClaudeSettingsJSON is the content for a per-launch `claude --settings
// <file>`: Reprise's hooks alone (the same commands Install writes, so
// Claude runs each once when both are present).
func ClaudeSettingsJSON(exe string) ([]byte, error) {
	if err := checkExe(exe); err != nil {
		return nil, err
	}
	d := &doc{root: newObject(), style: defaultStyle, suffix: []byte("\n")}
	if _, err := claudeSpec.reconcile(d.root, "claude", wanted(claudeSpec, exe, "claude", claudeEvents), claudeEvents, nil); err != nil {
		return nil, err
	}
	return d.encode(), nil
}

func wanted(s *jsonSpec, exe, agent string, events []string) map[string]*node {
	m := make(map[string]*node, len(events))
	for _, ev := range events {
		m[ev] = s.handler(Command(exe, agent, ev), ev)
	}
	return m
}

// Install adds Reprise's hooks to agent's config, or updates them in place.
// Installing twice is the same as once.
func (in Installer) Install(agent string) error {
	def, err := lookup(agent)
	if err != nil {
		return err
	}
	if err := in.checkHome(); err != nil {
		return err
	}
	if err := checkExe(in.Exe); err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	if def.json == nil {
		return in.installTOML(agent, def)
	}
	return in.installJSON(agent, def)
}

// Remove takes Reprise's hooks out of agent's config. Not installed: no-op.
func (in Installer) Remove(agent string) error {
	def, err := lookup(agent)
	if err != nil {
		return err
	}
	if err := in.checkHome(); err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	if def.json == nil {
		return in.removeTOML(agent, def)
	}
	return in.removeJSON(agent, def)
}

// Status reports whether agent's hooks are in place.
func (in Installer) Status(agent string) (Status, error) {
	if note, ok := unavailable[agent]; ok {
		return Status{Agent: agent, Note: note}, nil
	}
	def, err := lookup(agent)
	if err != nil {
		return Status{}, err
	}
	if err := in.checkHome(); err != nil {
		return Status{}, err
	}
	path := def.path(in)
	c, err := readConfig(path)
	if err != nil {
		return Status{}, err
	}
	var got []found
	if c.exists {
		if def.json == nil {
			mine, err := in.tomlState(path, string(c.data), agent)
			if err != nil {
				return Status{}, err
			}
			for _, e := range mine {
				if o, ok := parseCommand(e.command); ok {
					got = append(got, found{e.event, o})
				}
			}
		} else if len(strings.TrimSpace(string(c.data))) > 0 {
			d, err := parseDoc(c.data)
			if err != nil {
				return Status{}, fmt.Errorf("%s: %w: %w", path, ErrMalformed, err)
			}
			got = def.json.scan(d.root, agent)
		}
	}
	return summarise(agent, path, in.Exe, def, got), nil
}

func summarise(agent, path, exe string, def agentDef, got []found) Status {
	st := Status{Agent: agent, Path: path}
	if len(got) == 0 {
		return st
	}
	var missing, others []string
	for _, ev := range def.events {
		if !slices.ContainsFunc(got, func(f found) bool { return f.event == ev && f.owned == owned{exe, agent, ev} }) {
			missing = append(missing, ev)
		}
	}
	for _, f := range got {
		if f.exe != exe && !slices.Contains(others, f.exe) {
			others = append(others, f.exe)
		}
	}
	st.Installed = len(missing) == 0
	st.Partial = !st.Installed
	var notes []string
	if len(missing) > 0 {
		notes = append(notes, "missing: "+strings.Join(missing, ", "))
	}
	if len(others) > 0 {
		notes = append(notes, "some hooks call another reprise binary: "+strings.Join(others, ", "))
	}
	if st.Installed && def.note != "" {
		notes = append(notes, def.note)
	}
	st.Note = strings.Join(notes, "; ")
	return st
}

// checkJSON re-reads the text about to be written: it must parse, to
// exactly the values of the edited tree (the user's plus Reprise's). A bug
// in laying out the edit then refuses the edit instead of damaging the file.
func checkJSON(out []byte, d *doc) error {
	again, err := parseDoc(out)
	if err != nil {
		return fmt.Errorf("the edited config would not parse (%w)", err)
	}
	if !sameValue(again.root, d.root) {
		return errors.New("the edited config would not read back as written")
	}
	return nil
}

func blank(b []byte) bool { return len(strings.TrimSpace(string(b))) == 0 }

func (in Installer) installJSON(agent string, def agentDef) error {
	path := def.path(in)
	c, err := readConfig(path)
	if err != nil {
		return err
	}
	st := in.loadState()
	rec := st.Files[path]
	var d *doc
	if !c.exists || blank(c.data) {
		d = &doc{root: def.json.newRoot(), style: defaultStyle, suffix: []byte("\n")}
	} else if d, err = parseDoc(c.data); err != nil {
		return fmt.Errorf("%s: %w: %w; fix or move it, Reprise will not overwrite it", path, ErrMalformed, err)
	}
	had := len(def.json.scan(d.root, agent)) > 0
	created, err := def.json.reconcile(d.root, agent, wanted(def.json, in.Exe, agent, def.events), def.events, rec)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", path, ErrMalformed, err)
	}
	switch {
	case !had:
		rec = &fileState{Agent: agent, CreatedFile: !c.exists, Created: created}
		if !c.exists {
			rec.CreatedDirs = c.missingDirs()
		}
		if c.exists && blank(c.data) {
			b := string(c.data)
			rec.Blank = &b
		}
		st.Files[path] = rec
	case rec != nil:
		rec.Created = append(rec.Created, created...)
	}
	out := d.encode()
	if err := checkJSON(out, d); err != nil {
		return fmt.Errorf("%s: %w; Reprise did not edit it", path, err)
	}
	if !c.exists || string(out) != string(c.data) {
		if err := c.replace(out); err != nil {
			return err
		}
	}
	return in.saveState(st)
}

func (in Installer) removeJSON(agent string, def agentDef) error {
	path := def.path(in)
	st := in.loadState()
	rec := st.Files[path]
	c, err := readConfig(path)
	if err != nil {
		return err
	}
	if c.exists && !blank(c.data) {
		d, err := parseDoc(c.data)
		if err != nil {
			return fmt.Errorf("%s: %w: %w", path, ErrMalformed, err)
		}
		if len(def.json.scan(d.root, agent)) > 0 {
			if _, err := def.json.reconcile(d.root, agent, nil, def.events, rec); err != nil {
				return fmt.Errorf("%s: %w: %w", path, ErrMalformed, err)
			}
			empty := d.root.kind == kObject && def.json.onlySkeleton(d.root)
			switch {
			case empty && (def.json.ownFile || rec != nil && rec.CreatedFile):
				if err = c.remove(); err == nil && rec != nil {
					removeDirs(rec.CreatedDirs)
				}
			case empty && rec != nil && rec.Blank != nil:
				err = c.replace([]byte(*rec.Blank))
			default:
				out := d.encode()
				if err = checkJSON(out, d); err == nil {
					err = c.replace(out)
				} else {
					err = fmt.Errorf("%s: %w; Reprise did not edit it", path, err)
				}
			}
			if err != nil {
				return err
			}
		}
	}
	delete(st.Files, path)
	return in.saveState(st)
}

// tomlState checks a Kimi config as it is: it must parse, and if it has
// Reprise's block, Reprise's entries must hold nothing of the user's and the
// rest must read the same without the block. It returns Reprise's entries.
func (in Installer) tomlState(path, content, agent string) ([]tomlEntry, error) {
	start, end, ok, err := blockRange(content)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrMalformed, err)
	}
	user := content
	if ok {
		user = content[:start] + content[end:]
	}
	uv, err := parseTOML(user)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w; fix or move it, Reprise will not edit it", path, ErrMalformed, err)
	}
	if !ok {
		return nil, nil
	}
	if err := checkTOML(content, uv, agent, nil); err != nil {
		return nil, fmt.Errorf("%s: %w: %w; Reprise will not edit it", path, ErrMalformed, err)
	}
	v, _ := parseTOML(content)
	mine, _ := splitTOMLHooks(v, agent)
	return mine, nil
}

func (in Installer) installTOML(agent string, def agentDef) error {
	path := def.path(in)
	c, err := readConfig(path)
	if err != nil {
		return err
	}
	content := string(c.data)
	if _, err := in.tomlState(path, content, agent); err != nil {
		return err
	}
	start, end, had, _ := blockRange(content)
	user := content
	if had {
		user = content[:start] + content[end:]
	}
	uv, _ := parseTOML(user)
	nl := "\n"
	if strings.Contains(content, "\r\n") {
		nl = "\r\n"
	}
	st := in.loadState()
	rec := st.Files[path]
	if !had {
		rec = &fileState{Agent: agent, CreatedFile: !c.exists}
		if !c.exists {
			rec.CreatedDirs = c.missingDirs()
		}
		st.Files[path] = rec
	}
	if had && rec != nil && rec.AddedNewline && start == len(user) {
		// An older Reprise's block last in the file, after a newline it
		// added: that newline goes with it, as the block moves.
		user = strings.TrimSuffix(user, nl)
	}
	if rec != nil {
		rec.AddedNewline = false
	}
	// Where the block goes (see toml.go): first thing in the file, or
	// before the user's own [[hooks]] tables.
	var out string
	switch hv, ok := uv["hooks"]; {
	case !ok:
		at := 0
		if strings.HasPrefix(user, utf8BOM) {
			at = len(utf8BOM)
		}
		out = user[:at] + tomlInlineBlock(in.Exe, agent, def.events, timeout, nl) + user[at:]
	case isTableArray(hv):
		at, found := hooksTableLine(user)
		if !found {
			return fmt.Errorf("%s: %w: its hooks are an inline array, which Reprise cannot add to; write them as [[hooks]] tables", path, ErrMalformed)
		}
		out = user[:at] + tomlBlock(in.Exe, agent, def.events, timeout, nl) + user[at:]
	default:
		return fmt.Errorf("%s: %w: it has a hooks setting that is not a list of hook tables, which clashes with Reprise's hooks; Reprise will not edit it", path, ErrMalformed)
	}
	if err := checkTOML(out, uv, agent, wantTOML(in.Exe, agent, def.events, timeout)); err != nil {
		return fmt.Errorf("%s: %w: %w; Reprise did not edit it", path, ErrMalformed, err)
	}
	if !c.exists || out != content {
		if err := c.replace([]byte(out)); err != nil {
			return err
		}
	}
	return in.saveState(st)
}

// isTableArray: a list of tables ([[hooks]] or an inline array of tables).
func isTableArray(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	for _, el := range list {
		if _, ok := el.(map[string]any); !ok {
			return false
		}
	}
	return true
}

func (in Installer) removeTOML(agent string, def agentDef) error {
	path := def.path(in)
	st := in.loadState()
	rec := st.Files[path]
	c, err := readConfig(path)
	if err != nil {
		return err
	}
	if c.exists {
		content := string(c.data)
		if _, err := in.tomlState(path, content, agent); err != nil {
			return err
		}
		start, end, ok, _ := blockRange(content)
		if ok {
			out := content[:start] + content[end:]
			if rec != nil && rec.AddedNewline && end == len(content) {
				nl := "\n"
				if strings.Contains(content, "\r\n") {
					nl = "\r\n"
				}
				out = strings.TrimSuffix(out, nl)
			}
			if out == "" && rec != nil && rec.CreatedFile {
				if err = c.remove(); err == nil {
					removeDirs(rec.CreatedDirs)
				}
			} else {
				err = c.replace([]byte(out))
			}
			if err != nil {
				return err
			}
		}
	}
	delete(st.Files, path)
	return in.saveState(st)
}
