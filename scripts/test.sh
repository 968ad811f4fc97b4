#!/usr/bin/env bash
# Every test: Go unit and integration tests (real ptys, the real daemon
# binary, real SQLite), frontend unit tests, browser end-to-end tests in
# headless Chromium against `reprise serve`, and a smoke test of the real
# window under Xvfb. Run through `make test`, which builds first.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin:$(go env GOPATH)/bin"
# Shells the tests start run this user's own ~/.bashrc. On a machine where it
# runs `pyenv init`, a shell killed mid-rehash (tests kill terminals on
# purpose) leaves pyenv's lock behind and every later shell waits 60 s on it;
# bound that wait (internal/testenv/sshd.go does the same for ssh logins).
export PYENV_REHASH_TIMEOUT="${PYENV_REHASH_TIMEOUT:-0}"
ART="${ARTIFACTS:-test-artifacts}"
mkdir -p "$ART"

passed=0; failed=0; failures=()
step() {
  local name="$1"; shift
  echo "=== $name"
  local t0=$SECONDS
  if "$@"; then
    passed=$((passed+1)); echo "--- ok   $name ($((SECONDS-t0))s)"
  else
    failed=$((failed+1)); failures+=("$name"); echo "--- FAIL $name ($((SECONDS-t0))s)"
  fi
}

# Every Go package: backend/, cmd/, sdk/, internal/, conformance/ (whose
# real-CLI suite skips itself here; the last step runs it) and the app.
step "go vet" go vet ./...
step "staticcheck" staticcheck ./...
step "go test (race)" go test -race -count=1 -timeout 15m ./...
step "frontend lint (eslint)" bash -c 'cd frontend && npm run lint --silent'
step "frontend unit tests (vitest)" bash -c 'cd frontend && npm test --silent'
if [ -f e2e/package.json ]; then
  step "browser end-to-end (headless chromium)" bash -c "cd e2e && ([ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error) && REPRISE_BIN=$PWD/build/bin/reprise ARTIFACTS=$PWD/$ART node --test --test-concurrency=1 tests/"
fi
step "desktop window smoke test (Xvfb)" scripts/desktop-smoke.sh "$ART"
step "desktop window basics: zoom, palette, tab rename (Xvfb)" scripts/desktop-basics.sh "$ART"
# The real Claude Code, Codex and Gemini CLIs in Reprise panes, against local
# stand-ins for their model APIs (installed into a local prefix, cached).
step "conformance with the real agent CLIs" conformance/run.sh

echo
echo "Artifacts (screenshots, logs): $ART"
for f in "${failures[@]}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
