# Reprise: `make run` builds and opens the desktop app; `make test` runs every
# test. Both install what they need first (scripts/setup.sh) and are safe to
# re-run.

GO      ?= go
TAGS    := desktop,production,webkit2_41
BIN     := build/bin/reprise
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/reprise-dev/reprise/backend/cli.Version=$(VERSION)
export PATH := $(PATH):/usr/local/go/bin:$(shell $(GO) env GOPATH)/bin

.PHONY: setup frontend build run serve test test-go test-frontend test-e2e test-desktop bench clean

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

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html test-artifacts
