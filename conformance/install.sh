#!/usr/bin/env bash
# Installs the pinned agent CLIs the conformance suite runs, each into its own
# npm prefix under .cache/agents/<name>@<version> (git-ignored, kept between
# CI runs). Idempotent: a prefix with a complete install is left alone.
# Never installs globally. A package the registry refuses is reported and
# skipped (the suite then skips that CLI); the script still exits 0.
#
# usage: conformance/install.sh [claude|codex|gemini ...]
set -uo pipefail
cd "$(dirname "$0")/.."
CACHE="${REPRISE_AGENTS_CACHE:-$PWD/.cache/agents}"
mkdir -p "$CACHE"

# id  npm-package  version  binary (conformance/pins.txt, shared with the tests)
mapfile -t PINS < <(grep -v '^[[:space:]]*\(#\|$\)' conformance/pins.txt)

# Claude's own updater must never run from here (it installs globally).
export DISABLE_AUTOUPDATER=1 DISABLE_UPDATES=1
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

want=("$@")
status=0
for pin in "${PINS[@]}"; do
  read -r name pkg version bin _ <<<"$pin"
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $name "* ]]; then continue; fi
  dir="$CACHE/$name@$version"
  if [ -f "$dir/.reprise-installed" ] && [ -x "$dir/node_modules/.bin/$bin" ]; then
    echo "install: $name@$version cached in $dir"
    continue
  fi
  t0=$SECONDS
  tmp="$dir.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  echo "install: $pkg@$version into $dir ..."
  if npm install --prefix "$tmp" --no-save --loglevel=error "$pkg@$version" >"$tmp.log" 2>&1 &&
     [ -x "$tmp/node_modules/.bin/$bin" ]; then
    rm -rf "$dir"
    mv "$tmp" "$dir"
    # The marker says the prefix is complete; the suite reads the log for the time.
    echo "$pkg@$version $((SECONDS-t0))s" >"$dir/.reprise-installed"
    echo "install: $name@$version done in $((SECONDS-t0))s"
    rm -f "$tmp.log" "$CACHE/$name@$version.failed.log"
  else
    echo "install: $pkg@$version FAILED after $((SECONDS-t0))s (the suite skips $name):"
    tail -n 20 "$tmp.log" | sed 's/^/  /'
    mkdir -p "$CACHE"
    cp "$tmp.log" "$CACHE/$name@$version.failed.log" 2>/dev/null
    rm -rf "$tmp" "$tmp.log"
    status=1
  fi
done
# Failed installs are skips for the suite, not failures of this script.
[ "$status" -eq 0 ] || echo "install: some CLIs are unavailable; their tests will be skipped"
exit 0
