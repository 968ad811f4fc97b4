package host

import (
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/scrollback"
)

func tailOf(home paths.Home, id string) ([]byte, int64, bool, error) {
	return scrollback.Tail(home.ScrollbackDir(), id, 1<<20)
}
