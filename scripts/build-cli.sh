#!/usr/bin/env bash
# Builds the GUI-free reprise binary (CLI, daemon, hooks, serve, MCP) beside
# the desktop app. Run by `make build` and, as wails.json's post-build hook,
# by `wails build` and `wails dev`, so every workflow installs the same pair.
#   scripts/build-cli.sh [DIR | the desktop binary, built in DIR]   (default build/bin)
set -euo pipefail
out=""
if [ $# -gt 0 ]; then
  out="$(realpath -m "$1")"
  [ -f "$out" ] && out="$(dirname "$out")"  # the hook passes the desktop binary
fi
cd "$(dirname "$0")/.."
out="${out:-$PWD/build/bin}"
export PATH="$PATH:/usr/local/go/bin"
mkdir -p "$out"
VERSION="${VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}"
exec go build -buildvcs=false -ldflags "-s -w -X github.com/reprise-dev/reprise/backend/cli.Version=$VERSION" -o "$out/reprise" ./cmd/reprise
