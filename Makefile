# Reprise: `make run` builds and opens the desktop app; `make test` runs every
# test. Both install what they need first (scripts/setup.sh) and are safe to
# re-run.

GO      ?= go
TAGS    := desktop,production,webkit2_41
# Two binaries, installed side by side: reprise (CLI, daemon, hooks, serve,
# MCP; no GUI libraries) and reprise-desktop (the window). `reprise` with no
# subcommand starts reprise-desktop.
BIN     := build/bin/reprise
APP     := build/bin/reprise-desktop
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
# The flags `wails build` uses, so both workflows build the same app.
LDFLAGS := -X github.com/reprise-dev/reprise/backend/cli.Version=$(VERSION) -w -s
export VERSION
export PATH := $(PATH):/usr/local/go/bin:$(shell $(GO) env GOPATH)/bin

.PHONY: setup frontend build run serve test bench install-desktop clean

setup:
	@scripts/setup.sh

frontend: setup
	cd frontend && npm run build

build: frontend
	scripts/build-cli.sh build/bin
	$(GO) build -buildvcs=false -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $(APP) .

# Opens the window. Closing it leaves your terminals running in the pty daemon.
run: build
	$(BIN)

# The same app, headless, for a browser: prints a URL with a token.
serve: build
	$(BIN) serve

test: build
	@scripts/test.sh

bench: build
	@scripts/bench.sh

# Installs both binaries, the .desktop entry and the icon for the current
# user, so Reprise can be launched from the desktop's menu or by double-click.
install-desktop: build
	install -D -m 0755 $(BIN) $(HOME)/.local/bin/reprise
	install -D -m 0755 $(APP) $(HOME)/.local/bin/reprise-desktop
	for f in build/bin/remote/reprise-*; do [ -f "$$f" ] || continue; install -D -m 0755 $$f $(HOME)/.local/bin/remote/$$(basename $$f); done
	install -D -m 0644 build/appicon.png $(HOME)/.local/share/icons/hicolor/512x512/apps/reprise.png
	sed "s|^Exec=reprise-desktop|Exec=$(HOME)/.local/bin/reprise-desktop|" build/linux/reprise.desktop > /tmp/reprise.desktop.$$$$ && \
	  install -D -m 0644 /tmp/reprise.desktop.$$$$ $(HOME)/.local/share/applications/reprise.desktop && rm -f /tmp/reprise.desktop.$$$$
	-update-desktop-database $(HOME)/.local/share/applications 2>/dev/null

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html test-artifacts
