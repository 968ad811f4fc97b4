package host

import (
	"context"

	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/scrollback"
)

func tailOf(home paths.Home, id string) ([]byte, int64, bool, error) {
	return scrollback.Tail(home.ScrollbackDir(), id, 1<<20)
}

func dialDaemon(home paths.Home) (*ptyclient.Client, error) {
	return ptyclient.Dial(context.Background(), home.PtydSocket(), ptyclient.Options{Name: "test"})
}
