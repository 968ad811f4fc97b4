package main

// The Wails binding layer: the only code that imports the Wails runtime.
// It starts the host and the loopback web server, opens the window on the
// embedded frontend, and binds two methods: Endpoint, through which the page
// finds its WebSocket (everything else goes over that socket, exactly as in
// browser mode), and Notify, which shows a desktop notification over D-Bus
// (backend/notify); a click on one comes back to the page as the Wails event
// "notification:activated" with the pane's id.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/reprise-dev/reprise/backend/cli"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/localapi"
	"github.com/reprise-dev/reprise/backend/notify"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/web"
	"github.com/reprise-dev/reprise/frontend"
)

// wailsOrigin is the Origin of the desktop page (Wails serves it from a
// custom scheme on Linux).
const wailsOrigin = "wails://wails"

// Endpoint tells the page where its WebSocket is.
type Endpoint struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// notificationEvent is the Wails event a clicked notification emits
// (frontend/src/attention/controller.ts NOTIFICATION_EVENT).
const notificationEvent = "notification:activated"

// App is bound to the page.
type App struct {
	ctx      context.Context
	endpoint Endpoint
	startErr error
	notifier *notify.Notifier
}

// Notify shows a desktop notification about paneID; clicking it brings the
// window up and emits notificationEvent with paneID.
func (a *App) Notify(title, body, paneID string) error {
	if a.notifier == nil {
		return fmt.Errorf("notifications are not available")
	}
	_, err := a.notifier.Notify(title, body, paneID)
	return err
}

// activated is a notification's default action: the window comes up and
// the page brings the pane in front.
func (a *App) activated(paneID string) {
	if a.ctx == nil {
		return
	}
	runtime.WindowUnminimise(a.ctx)
	runtime.WindowShow(a.ctx)
	runtime.EventsEmit(a.ctx, notificationEvent, paneID)
}

// Endpoint returns the WebSocket address and token of this launch.
func (a *App) Endpoint() (Endpoint, error) {
	if a.startErr != nil {
		return Endpoint{}, a.startErr
	}
	return a.endpoint, nil
}

func runDesktop(args []string) int {
	fs := flag.NewFlagSet(cli.DesktopName, flag.ContinueOnError)
	homeFlag := fs.String("home", "", "state directory")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "%s: unexpected argument %q (the command line is %s)\n", cli.DesktopName, fs.Arg(0), cli.CLIName)
		return 2
	}
	app := &App{}
	if bindingsOnly {
		return runWindow(app, paths.Home{}, nil, nil, nil)
	}
	// Before WebKit starts its processes; for them only (webkitenv.go).
	setWebProcessEnv()
	if err := cli.CheckDisplay(os.Getenv); err != nil { // before the host starts a daemon
		fmt.Fprintf(os.Stderr, "reprise: %s\n", err)
		return 1
	}
	home, err := paths.ResolveNamed(*homeFlag, defaultHomeName)
	if err == nil {
		err = home.Ensure()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "reprise: %s\n", err)
		return 1
	}
	logger, closeLog := cli.OpenLog(home.HostLog(), slog.LevelInfo)
	defer closeLog()
	app.notifier = notify.New("Reprise", logger, app.activated)
	defer app.notifier.Close()

	var h *host.Host
	var srv *web.Server
	var lapi *localapi.Server
	// The daemon and every hook run the GUI-free binary installed beside
	// this one: a hook then starts in milliseconds, and the daemon that
	// outlives the window does not carry GTK and WebKit.
	exe, err := cli.FindSibling(cli.CLIName)
	if err == nil {
		// The host starts before the window so a second launch is refused
		// by the host lock quickly; Wails' single-instance lock then hands
		// focus to the first window.
		h, err = host.Start(context.Background(), host.Config{Home: home, Exe: exe, Logger: logger})
	}
	if errors.Is(err, host.ErrHostRunning) {
		return secondLaunch(home, err, logger)
	}
	if err != nil {
		app.startErr = err
		logger.Error("host did not start", "err", err)
	} else {
		// A fresh token every launch: the page gets it from Endpoint, so
		// nothing needs it to survive a restart.
		_ = os.Remove(home.WebToken()) // left by earlier versions
		origins := append([]string{wailsOrigin}, devOrigins()...)
		srv, err = web.Listen(h, web.Options{Assets: frontend.Dist(), Logger: logger, ExtraOrigins: origins})
		if err == nil {
			lapi, err = localapi.Listen(h, home.HostSocket(), logger)
		}
		if err != nil {
			app.startErr = err
		} else {
			app.endpoint = Endpoint{URL: srv.WSURL(), Token: srv.Token()}
		}
	}
	return runWindow(app, home, h, srv, lapi)
}

// runWindow runs the window until it closes, then stops the host's
// servers and the host (the daemon and its terminals keep running).
func runWindow(app *App, home paths.Home, h *host.Host, srv *web.Server, lapi *localapi.Server) (code int) {
	var once sync.Once
	stop := func() { once.Do(func() { stopHost(h, srv, lapi) }) }
	defer func() {
		// GTK failing to start panics inside Wails; say it in one line.
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "reprise: the window did not open: %v\n", r)
			stop()
			code = 1
		}
	}()
	err := wails.Run(&options.App{
		Title:            "Reprise",
		Width:            1280,
		Height:           800,
		MinWidth:         480,
		MinHeight:        320,
		BackgroundColour: windowBackground(),
		AssetServer:      &assetserver.Options{Assets: frontend.Dist()},
		Bind:             []interface{}{app},
		OnStartup:        func(ctx context.Context) { app.ctx = ctx },
		// Closing the window stops the host; the daemon and every terminal
		// keep running for the next launch.
		OnShutdown: func(context.Context) { stop() },
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: instanceID(home),
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
		return 1
	}
	if app.startErr != nil {
		fmt.Fprintf(os.Stderr, "reprise: %s\n", oneLine(app.startErr))
		return 1
	}
	return 0
}

// instanceID names the window of a home for Wails' single-instance lock.
func instanceID(home paths.Home) string {
	sum := sha256.Sum256([]byte(home.Dir))
	return "dev.reprise.app-" + hex.EncodeToString(sum[:8])
}

// secondLaunch is a launch for a home another Reprise already runs. It asks
// that one's window to come to the front and says so; no second window opens
// (one would only say "Connecting…": its page has no host). When no window
// answers (a `reprise serve`, or no session bus) it says Reprise is running.
func secondLaunch(home paths.Home, running error, logger *slog.Logger) int {
	if err := showRunningWindow(instanceID(home)); err != nil {
		logger.Info("second launch: no running window answered", "running", running, "err", err)
		fmt.Fprintf(os.Stderr, "reprise: %s\n", oneLine(running))
		return 1
	}
	logger.Info("second launch: the running window was brought to the front", "running", running)
	fmt.Fprintf(os.Stderr, "reprise: %s; its window was brought to the front\n", oneLine(running))
	return 0
}

// showRunningWindow makes the call a second Wails instance makes to the
// first (wails/v2 internal/frontend/desktop/linux/single_instance.go), which
// runs its OnSecondInstanceLaunch.
func showRunningWindow(uniqueID string) error {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("session bus: %w", err)
	}
	defer conn.Close()
	id := "wails_app_" + strings.NewReplacer("-", "_", ".", "_").Replace(uniqueID)
	name, path := "org."+id+".SingleInstance", dbus.ObjectPath("/org/"+id+"/SingleInstance")
	data := options.SecondInstanceData{Args: os.Args[1:]}
	data.WorkingDirectory, _ = os.Getwd()
	msg, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if err := conn.Object(name, path).Call(name+".SendMessage", 0, string(msg)).Store(); err != nil {
		return fmt.Errorf("ask the running window: %w", err)
	}
	return nil
}

// stopHost closes what runDesktop started; nil parts were not started.
func stopHost(h *host.Host, srv *web.Server, lapi *localapi.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if lapi != nil {
		_ = lapi.Close(ctx)
	}
	if srv != nil {
		_ = srv.Close(ctx)
	}
	if h != nil {
		_ = h.Close()
	}
}

func oneLine(err error) string { return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ") }
