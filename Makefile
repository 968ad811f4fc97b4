# Reprise: `make run` builds and opens the desktop app; `make test` runs every
# test. Both install what they need first (scripts/setup.sh) and are safe to
# re-run.

GO      ?= go
TAGS    := desktop,production,webkit2_41
BIN     := build/bin/reprise
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/reprise-dev/reprise/backend/cli.Version=$(VERSION)
export PATH := $(PATH):/usr/local/go/bin:$(shell $(GO) env GOPATH)/bin

.PHONY: setup frontend build run serve test bench install-desktop clean

setup:
	@scripts/setup.sh

frontend: setup
	cd frontend && npm run build

build: frontend
	$(GO) build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $(BIN) .

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

# Installs the binary, the .desktop entry and the icon for the current user,
# so Reprise can be launched from the desktop's menu or by double-click.
install-desktop: build
	install -D -m 0755 $(BIN) $(HOME)/.local/bin/reprise
	install -D -m 0644 build/appicon.png $(HOME)/.local/share/icons/hicolor/512x512/apps/reprise.png
	sed "s|^Exec=reprise|Exec=$(HOME)/.local/bin/reprise|" build/linux/reprise.desktop > /tmp/reprise.desktop.$$$$ && \
	  install -D -m 0644 /tmp/reprise.desktop.$$$$ $(HOME)/.local/share/applications/reprise.desktop && rm -f /tmp/reprise.desktop.$$$$
	-update-desktop-database $(HOME)/.local/share/applications 2>/dev/null

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html test-artifacts
