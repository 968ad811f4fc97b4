#!/usr/bin/env bash
# Benchmarks (not pass/fail): daemon throughput against a raw pty in the same
# run, and the daemon's memory idle and with 50 sessions.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
out=$(go test -run XXX -bench . -benchtime "${BENCHTIME:-5x}" -count "${COUNT:-1}" ./backend/ptyd | tee /dev/stderr)
echo
echo "== hook round trip (reprise hook start → event applied)"
go test -run XXX -bench HookRoundTrip -benchtime 200x ./backend/cli | grep Benchmark
raw=$(echo "$out" | awk '/Cat64MiB\/raw-pty/ {print $(NF-1)}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
dmn=$(echo "$out" | awk '/Cat64MiB\/daemon/ {print $(NF-1)}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo
printf 'cat 64 MiB: raw pty %s MB/s, through the daemon %s MB/s, ratio %s\n' "$raw" "$dmn" "$(awk -v a="$dmn" -v b="$raw" 'BEGIN {printf "%.2f", a/b}')"

echo
echo "== browser harness (headless Chromium, xterm.js DOM renderer)"
(cd e2e && ([ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error) && REPRISE_BIN="$PWD/../build/bin/reprise" node bench/run.mjs)
