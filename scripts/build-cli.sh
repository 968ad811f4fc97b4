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
LDFLAGS="-s -w -X github.com/reprise-dev/reprise/backend/cli.Version=$VERSION"
go build -buildvcs=false -ldflags "$LDFLAGS" -o "$out/reprise" ./cmd/reprise
# The binaries bootstrap uploads to remote hosts (docs/remote.md "Bootstrap"):
# static (CGO_ENABLED=0: no libc to match there; the subcommands a remote
# runs use no SQLite), one per platform, in remote/ beside reprise.
# REPRISE_REMOTE_TARGETS="" skips them.
targets="${REPRISE_REMOTE_TARGETS-linux/amd64 linux/arm64}"
mkdir -p "$out/remote"
for t in $targets; do
  CGO_ENABLED=0 GOOS="${t%/*}" GOARCH="${t#*/}" go build -buildvcs=false -trimpath -ldflags "$LDFLAGS" \
    -o "$out/remote/reprise-${t%/*}-${t#*/}" ./cmd/reprise
done
