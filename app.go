package main

// The Wails binding layer: the only code that imports the Wails runtime.
// It starts the host and the loopback web server, opens the window on the
// embedded frontend, and binds one method, Endpoint, through which the page
// finds its WebSocket. Everything else goes over that socket, exactly as in
// browser mode.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/reprise-dev/reprise/backend/cli"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/web"
)

// wailsOrigin is the Origin of the desktop page (Wails serves it from a
// custom scheme on Linux).
const wailsOrigin = "wails://wails"

// Endpoint tells the page where its WebSocket is.
type Endpoint struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// App is bound to the page.
type App struct {
	ctx      context.Context
	endpoint Endpoint
	startErr error
}

// Endpoint returns the WebSocket address and token of this launch.
func (a *App) Endpoint() (Endpoint, error) {
	if a.startErr != nil {
		return Endpoint{}, a.startErr
	}
	return a.endpoint, nil
}

func runDesktop(args []string) int {
	fs := flag.NewFlagSet("reprise", flag.ContinueOnError)
	homeFlag := fs.String("home", "", "state directory")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := cli.CheckDisplay(os.Getenv); err != nil { // before the host starts a daemon
		fmt.Fprintf(os.Stderr, "reprise: %s\n", err)
		return 1
	}
	home, err := paths.Resolve(*homeFlag)
	if err == nil {
		err = home.Ensure()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "reprise: %s\n", err)
		return 1
	}
	logger, closeLog := cli.OpenLog(home.HostLog(), slog.LevelInfo)
	defer closeLog()

	app := &App{}
	var h *host.Host
	var srv *web.Server
	var lapi *localapi.Server
	// The host starts before the window so a second launch is refused by
	// the host lock quickly; Wails' single-instance lock then hands focus
	// to the first window.
	h, err = host.Start(context.Background(), host.Config{Home: home, Logger: logger})
	if err != nil {
		app.startErr = err
		logger.Error("host did not start", "err", err)
	} else {
		var token string
		token, err = web.LoadOrCreateToken(home.WebToken())
		if err == nil {
			srv, err = web.Listen(h, web.Options{Assets: frontendFS(), Logger: logger, ExtraOrigins: []string{wailsOrigin}, Token: token})
		}
		if err == nil {
			lapi, err = localapi.Listen(h, home.HostSocket(), logger)
		}
		if err != nil {
			app.startErr = err
		} else {
			app.endpoint = Endpoint{URL: srv.WSURL(), Token: srv.Token()}
		}
	}
	sum := sha256.Sum256([]byte(home.Dir))
	err = wails.Run(&options.App{
		Title:            "Reprise",
		Width:            1280,
		Height:           800,
		MinWidth:         480,
		MinHeight:        320,
		BackgroundColour: &options.RGBA{R: 30, G: 30, B: 30, A: 255},
		AssetServer:      &assetserver.Options{Assets: frontendFS()},
		Bind:             []interface{}{app},
		OnStartup:        func(ctx context.Context) { app.ctx = ctx },
		OnShutdown: func(ctx context.Context) {
			// Closing the window stops the host; the daemon and every
			// terminal keep running for the next launch.
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if lapi != nil {
				_ = lapi.Close(sctx)
			}
			if srv != nil {
				_ = srv.Close(sctx)
			}
			if h != nil {
				_ = h.Close()
			}
		},
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: "dev.reprise.app-" + hex.EncodeToString(sum[:8]),
			OnSecondInstanceLaunch: func(options.SecondInstanceData) {
				if app.ctx != nil {
					runtime.WindowUnminimise(app.ctx)
					runtime.WindowShow(app.ctx)
				}
			},
		},
		Linux: &linux.Options{ProgramName: "reprise", Icon: appIcon},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "reprise: %s\n", err)
		if errors.Is(app.startErr, host.ErrHostRunning) {
			return 1
		}
		return 1
	}
	if app.startErr != nil {
		fmt.Fprintf(os.Stderr, "reprise: %s\n", app.startErr)
		return 1
	}
	return 0
}
