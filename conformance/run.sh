#!/usr/bin/env bash
# Conformance with the real agent CLIs (Claude Code, Codex, Gemini CLI):
# installs the pinned CLIs into .cache/agents (cached, never global), then
# runs the Go suite in ./conformance against them, each CLI talking to a
# local stand-in for its model API, and writes the results table to
# test-artifacts/conformance/RESULTS.md (a test never rewrites a tracked
# file). conformance/RESULTS.md is the last full run recorded by hand:
#   REPRISE_CONFORMANCE_RESULTS=$PWD/conformance/RESULTS.md conformance/run.sh
#
# usage: conformance/run.sh [go test flags, e.g. -run 'TestClaude/exit']
# Screens and logs of failing scenarios land in test-artifacts/conformance/.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
# Whatever runs in here, no CLI updates itself (Claude's updater installs globally).
export DISABLE_AUTOUPDATER=1 DISABLE_UPDATES=1

t0=$SECONDS
conformance/install.sh
echo "conformance: CLIs ready in $((SECONDS-t0))s"

mkdir -p test-artifacts/conformance
results="${REPRISE_CONFORMANCE_RESULTS:-$PWD/test-artifacts/conformance/RESULTS.md}"
t1=$SECONDS
REPRISE_CONFORMANCE=1 REPRISE_CONFORMANCE_RESULTS="$results" \
  go test -v -count=1 -timeout 20m ./conformance/ "$@"
status=$?
echo "conformance: suite took $((SECONDS-t1))s (total $((SECONDS-t0))s); results in ${results#$PWD/}"
exit $status
