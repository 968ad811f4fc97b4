package install

import (
	"strings"

	"github.com/reprise-dev/reprise/backend/shellquote"
)

// guard makes the hook do nothing outside a Reprise pane, and `|| true`
// makes it exit 0 whatever happens (binary moved, app not running), so the
// agent is never held up or shown an error.
const (
	guard   = `[ -n "$REPRISE_TERMINAL_ID" ] && `
	trailer = ` || true`
)

// Command is the shell command Reprise installs for one agent event:
//
//	[ -n "$REPRISE_TERMINAL_ID" ] && '/abs/reprise' hook <agent> <event> || true
func Command(exe, agent, event string) string {
	return guard + shellquote.Quote(exe) + " hook " + agent + " " + event + trailer
}

// owned is a command Reprise installed, taken apart.
type owned struct {
	exe, agent, event string
}

// parseCommand recognises a command of exactly the shape Command builds.
// Anything else, including the same call without the guard, is the user's.
func parseCommand(cmd string) (owned, bool) {
	rest, ok := strings.CutPrefix(cmd, guard)
	if !ok {
		return owned{}, false
	}
	rest, ok = strings.CutSuffix(rest, trailer)
	if !ok {
		return owned{}, false
	}
	exe, rest, ok := unquote(rest)
	if !ok || exe == "" {
		return owned{}, false
	}
	f := strings.Split(rest, " ")
	if len(f) != 4 || f[0] != "" || f[1] != "hook" || !isWord(f[2]) || !isWord(f[3]) {
		return owned{}, false
	}
	return owned{exe: exe, agent: f[2], event: f[3]}, true
}

// unquote reads one word made of '…' runs and \' (what shellquote.Quote writes)
// from the start of s.
func unquote(s string) (word, rest string, ok bool) {
	var b strings.Builder
	i := 0
	for i < len(s) {
		switch {
		case s[i] == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return "", "", false
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case strings.HasPrefix(s[i:], `\'`):
			b.WriteByte('\'')
			i += 2
		default:
			return b.String(), s[i:], i > 0
		}
	}
	return b.String(), "", i > 0
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
