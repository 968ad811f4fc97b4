#!/usr/bin/env bash
# Benchmarks (not pass/fail): each figure is printed with its anchor from the
# same run (or its target). Every Go benchmark checks what it measured and
# fails on a wrong result. REPRISE_BENCH_SOAK_MIB sizes the soak (default 1024).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
# The daemon and the hooks are measured on the binary users install (make
# build): the GUI-free build/bin/reprise, not one the tests build.
export REPRISE_TEST_BIN="${REPRISE_TEST_BIN:-$PWD/build/bin/reprise}"
[ -x "$REPRISE_TEST_BIN" ] || { echo "bench: $REPRISE_TEST_BIN not built (make build)" >&2; exit 1; }
echo "== binary under test: $REPRISE_TEST_BIN ($("$REPRISE_TEST_BIN" version))"
# A Go benchmark that fails its own check is named at the end and makes the run fail, instead of
# leaving its figures blank under a green status (the restore-check benchmarks did, unnoticed).
FAILED_FILE=$(mktemp)
trap 'rm -f "$FAILED_FILE"' EXIT
# gobench LABEL GO-TEST-ARGS...: go test's output (echoed on stderr too); a failure is noted.
gobench() {
  local label=$1 rc=0
  shift
  go test "$@" | tee -a /dev/stderr || rc=$?
  [ "$rc" -eq 0 ] || echo "$label" >>"$FAILED_FILE"
  return 0
}
out=$(gobench daemon -run XXX -bench 'Cat64MiB|DaemonMemory' -benchtime "${BENCHTIME:-5x}" -count "${COUNT:-1}" ./backend/ptyd)
echo
echo "== soak: ${REPRISE_BENCH_SOAK_MIB:-1024} MiB of ASCII, UTF-8 and SGR through the daemon (count, SHA-256, no U+FFFD checked)"
soak=$(gobench soak -run XXX -bench Soak -benchtime 1x -timeout 30m ./backend/ptyd | grep '^BenchmarkSoak' || true)
echo
echo "== host: restore-check on 1,000 panes + 100,000 ended bindings, resume candidate, resume → agent"
hostb=$(gobench restore-check -run XXX -bench 'RestoreCheck|ResumeCandidate' -benchtime 2s ./backend/host | grep '^Benchmark' || true; \
  gobench resume -run XXX -bench 'Resume$' -benchtime "${RESUMES:-30}x" ./backend/host | grep '^Benchmark' || true)
echo
echo "== hook round trip (reprise hook start → event applied)"
hook=$(gobench hook -run XXX -bench 'HookRoundTrip$' -benchtime 200x ./backend/cli | grep '^Benchmark' || true)
echo "== hook round trip of the agent-state events (reprise hook start → state derived; a turn with a permission prompt)"
states=$(gobench hook-states -run XXX -bench HookRoundTripStates -benchtime 200x ./backend/cli | grep '^Benchmark' || true)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# m LINES UNIT: the value reported with UNIT (median over lines)
m() { echo "$1" | awk -v u="$2" '{for (i = 2; i <= NF; i++) if ($i == u) print $(i-1)}' | median; }
# By unit, not by column: the lines end with cpu-ms/MiB since that metric was added (the last
# column but one was then the CPU figure, printed as MB/s).
raw=$(m "$(echo "$out" | grep 'Cat64MiB/raw-pty')" MB/s)
dmn=$(m "$(echo "$out" | grep 'Cat64MiB/daemon')" MB/s)
rawcpu=$(m "$(echo "$out" | grep 'Cat64MiB/raw-pty')" cpu-ms/MiB)
dmncpu=$(m "$(echo "$out" | grep 'Cat64MiB/daemon')" cpu-ms/MiB)
div() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "-"}'; }
row() { printf '%-44s %-20s %-36s %s\n' "$@"; }
echo
echo "== figures"
row "FIGURE" "VALUE" "ANCHOR (same run)" "RATIO / TARGET"
row "cat 64 MiB through the daemon" "$dmn MB/s" "raw pty $raw MB/s" "$(div "$dmn" "$raw"); target >= 0.8"
row "cat 64 MiB: CPU per MiB (daemon + client)" "$dmncpu cpu-ms/MiB" "raw pty $rawcpu cpu-ms/MiB" "$(div "$dmncpu" "$rawcpu")"
row "soak $(m "$soak" MiB) MiB through the daemon" "$(m "$soak" MB/s) MB/s" "raw pty, same generator $(m "$soak" raw-MB/s) MB/s" "$(div "$(m "$soak" MB/s)" "$(m "$soak" raw-MB/s)")"
row "soak: daemon RSS at peak" "$(m "$soak" rss-peak-MiB) MiB" "before $(m "$soak" rss-before-MiB) MiB" "+$(awk -v a="$(m "$soak" rss-peak-MiB)" -v b="$(m "$soak" rss-before-MiB)" 'BEGIN {printf "%.1f MiB", a-b}')"
row "soak: daemon RSS 1 s after / VmHWM" "$(m "$soak" rss-after-MiB) / $(m "$soak" hwm-MiB) MiB" "before $(m "$soak" rss-before-MiB) MiB" "-"
row "daemon RSS idle" "$(m "$out" idle-MiB) MiB" "-" "target <= 20 MiB"
row "daemon RSS with 50 idle shells" "$(m "$out" 50sessions-MiB) MiB" "idle $(m "$out" idle-MiB) MiB" "$(m "$out" KiB/session) KiB/session"
row "restore-check: 1,000 panes, 100k history" "$(m "$hostb" forecast-ms) ms" "no history $(m "$hostb" no-history-ms) ms" "$(div "$(m "$hostb" forecast-ms)" "$(m "$hostb" no-history-ms)"); target <= 500 ms"
row "resume candidate (binding + candidate())" "$(m "$hostb" candidate-us) us" "no history $(m "$hostb" no-history-candidate-us) us" "$(div "$(m "$hostb" candidate-us)" "$(m "$hostb" no-history-candidate-us)"); target <= 5000 us"
row "Host.Binding (API, with its pane)" "$(m "$hostb" binding-us) us" "no history $(m "$hostb" no-history-binding-us) us" "$(div "$(m "$hostb" binding-us)" "$(m "$hostb" no-history-binding-us)")"
row "resume -> agent on screen p50 / p95" "$(m "$hostb" screen-p50-ms) / $(m "$hostb" screen-p95-ms) ms" "agent exec'd p50 $(m "$hostb" exec-p50-ms) ms" "target <= 300 ms"
row "resume -> agent ready p50 / p95" "$(m "$hostb" ready-p50-ms) / $(m "$hostb" ready-p95-ms) ms" "(after its SessionStart hook)" "-"
row "hook round trip p50 / p95" "$(m "$hook" p50-ms) / $(m "$hook" p95-ms) ms" "-" "p50 target <= 15 ms"
row "hook round trip, state events p50 / p95" "$(m "$states" p50-ms) / $(m "$states" p95-ms) ms" "SessionStart p50 $(m "$hook" p50-ms) ms" "p50 target <= 15 ms"
echo
echo "== browser harness (headless Chromium, xterm.js DOM renderer)"
# Throughput of three datasets (plain MIB, coloured ls and UTF-8 EXTRA_MIB each) against bare
# xterm.js, a drained pty and tmux; echo latency (idle, unpaced, next to a flooding pane);
# Ctrl+C under flood; a checksummed INTEGRITY_MIB stream; reattach; idle CPU; 30 panes (CPU with
# one printing vs 1 pane, memory per pane with 1, 10, 30). ~12 minutes on
# 2 cores. Smaller for a quick look: MIB=8 INTEGRITY_MIB=64 make bench. More options:
# BROWSER_BENCH_ARGS (see e2e/bench/run.mjs).
(cd e2e && ([ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error) && REPRISE_BIN="$PWD/../build/bin/reprise" \
  node bench/run.mjs --mib "${MIB:-32}" --integrity-mib "${INTEGRITY_MIB:-1024}" ${BROWSER_BENCH_ARGS:-})
echo
echo "== start with 4 restored panes in headless Chromium (navigation → screens drawn)"
(cd e2e && REPRISE_BIN="$PWD/../build/bin/reprise" node bench/start.mjs --runs "${START_RUNS:-5}") || echo "start: failed (above)"
echo
echo "== peers: wetty and VS Code's terminal (code-server) beside Reprise, same headless Chromium"
# Installed once, pinned, into ~/.cache/reprise/peers (scripts/bench-peers.sh); a peer that did
# not install is skipped with the reason. PEERS_BENCH_ARGS: see e2e/bench/peers.mjs.
scripts/bench-peers.sh >/dev/null || echo "bench-peers: Node 24 missing, peers skipped" >&2
(cd e2e && REPRISE_BIN="$PWD/../build/bin/reprise" node bench/peers.mjs --mib "${MIB:-32}" ${PEERS_BENCH_ARGS:-}) || echo "peers: failed (above)"
if command -v Xvfb >/dev/null; then echo; scripts/bench-desktop.sh; else echo; echo "bench-desktop: skipped: no Xvfb (the real-window benchmarks need it)"; fi
echo
echo "== remote host over loopback ssh (real sshd) vs the local daemon: cat 32 MiB, echo p50/p95"
remote=$(gobench link-cat -run XXX -bench 'LinkCat$|LinkCatPaired$' -benchtime 5x ./backend/remote | grep '^Benchmark' || true; \
  gobench link-echo -run XXX -bench 'LinkEcho' -benchtime 300x ./backend/remote | grep '^Benchmark' || true)
if [ -n "$remote" ]; then
  rl=$(echo "$remote" | awk '/LinkCat\/local/ {print $(NF-1)}'); rs=$(echo "$remote" | awk '/LinkCat\/ssh/ {print $(NF-1)}')
  el=$(echo "$remote" | awk '/LinkEcho\/local/ {for (i=2;i<=NF;i++) if ($i=="p50-ms") print $(i-1)}')
  es=$(echo "$remote" | awk '/LinkEcho\/ssh/ {for (i=2;i<=NF;i++) if ($i=="p50-ms") print $(i-1)}')
  printf '%-44s %-20s %-36s %s\n' "cat 32 MiB over loopback ssh" "$rs MB/s" "local daemon $rl MB/s" "$(awk -v a="$rs" -v b="$rl" 'BEGIN {printf "%.2f", a/b}') (target >= 0.8)"
  rp=$(echo "$remote" | awk '/LinkCatPaired/ {for (i=2;i<=NF;i++) if ($i=="ssh/local") print $(i-1)}')
  printf '%-44s %-20s %-36s %s\n' "cat 32 MiB, ssh and local taking turns" "median ratio $rp" "(the same moment's load for both)" "(target >= 0.8)"
  printf '%-44s %-20s %-36s %s\n' "echo p50 over loopback ssh" "$es ms" "local daemon $el ms" "target <= local + 3 ms"
fi
echo
echo "== remote host over a 50 ms round trip (sshd in a network namespace behind a delay line; no tc netem here): cat 8 MiB, window sized by the link's RTT vs the local window"
slow=$(gobench link-50ms -run XXX -bench 'LinkCat50ms' -benchtime 3x ./backend/remote | grep -E '^(Benchmark|.*SKIP)' || true)
if echo "$slow" | grep -q 'LinkCat50ms/ssh-50ms-'; then
  ll=$(echo "$slow" | awk '/LinkCat50ms\/local/ {print $(NF-1)}')
  lo=$(echo "$slow" | awk '/LinkCat50ms\/ssh-50ms-local-window/ {print $(NF-1)}')
  ln=$(echo "$slow" | awk '/LinkCat50ms\/ssh-50ms-[0-9]/ {for (i=2;i<=NF;i++) if ($i=="MB/s") print $(i-1)}')
  printf '%-44s %-20s %-36s %s\n' "cat over ssh, 50 ms RTT, RTT-sized window" "$ln MB/s" "local daemon $ll MB/s" "$(awk -v a="$ln" -v b="$ll" 'BEGIN {printf "%.2f", a/b}')"
  printf '%-44s %-20s %-36s %s\n' "cat over ssh, 50 ms RTT, local window (old)" "$lo MB/s" "local daemon $ll MB/s" "$(awk -v a="$lo" -v b="$ll" 'BEGIN {printf "%.2f", a/b}')"
else
  echo "50 ms link: skipped (network namespaces not available)"
fi
if [ -s "$FAILED_FILE" ]; then
  echo
  echo "bench: FAILED: $(tr '\n' ' ' <"$FAILED_FILE")— a benchmark's own check failed (output above); its figures are missing"
  exit 1
fi
