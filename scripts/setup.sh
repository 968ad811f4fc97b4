#!/usr/bin/env bash
# Installs what building and testing Reprise needs on Debian 12, and nothing
# it already has: safe to re-run. Uses sudo when not root.
set -euo pipefail
cd "$(dirname "$0")/.."

WAILS_VERSION=v2.15.0
# libkrb5-dev: make bench's VS Code peer (code-server builds its kerberos module).
PKGS=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev xvfb xauth xdotool imagemagick chromium tmux git ca-certificates strace openssh-server libkrb5-dev qemu-user-static)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

command -v go >/dev/null || { echo "setup: Go is required (https://go.dev/dl); /usr/local/go/bin must be on PATH" >&2; exit 1; }
command -v npm >/dev/null || { echo "setup: Node.js 20 and npm are required (apt-get install nodejs npm)" >&2; exit 1; }

# The Wails CLI, pinned (for `wails dev`; `make build` does not need it).
GOBIN_DIR="$(go env GOPATH)/bin"
if ! "$GOBIN_DIR/wails" version 2>/dev/null | grep -q "$WAILS_VERSION"; then
  echo "setup: installing the Wails CLI $WAILS_VERSION"
  GOFLAGS= go install "github.com/wailsapp/wails/v2/cmd/wails@$WAILS_VERSION"
fi

# staticcheck, pinned (make test runs it; 2026.2.x knows Go 1.26).
STATICCHECK_VERSION=v0.8.2
if ! "$GOBIN_DIR/staticcheck" -version 2>/dev/null | grep -q "(${STATICCHECK_VERSION#v})"; then
  echo "setup: installing staticcheck $STATICCHECK_VERSION"
  GOFLAGS= go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi

# Frontend packages, exactly as locked.
if [ ! -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then
  echo "setup: installing frontend packages"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
fi
