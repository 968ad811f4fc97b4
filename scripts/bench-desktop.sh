#!/usr/bin/env bash
# Benchmarks of the real desktop window (not pass/fail): the built app in WebKitGTK under Xvfb,
# driven with xdotool like scripts/desktop-smoke.sh. Each figure is the median of RUNS runs.
#
# 1. throughput: `cat` of a MIB MiB text file typed into the pane; from the Return keystroke to
#    the moment the page has acknowledged every byte (the page acks from xterm.js's write
#    callback; the host counts acks per terminal: GET /v1/debug/streams on the local API, served
#    because REPRISE_DEBUG_API=1). Against a bare xterm.js page (e2e/lib/bare-xterm.mjs: the
#    frontend's own xterm build and options) in a WebKitGTK window of its own (python3 gi), fed
#    the same bytes from memory in 64 KiB chunks with 1 MiB / 256 KiB watermarks, which POSTs
#    its result to a local HTTP server (e2e/bench/desktop-bare.mjs). Both sides use xterm.js's
#    DOM renderer: the app is told so through its localStorage (reprise.renderer=dom), written
#    beforehand by WebKitGTK itself for the origin wails://wails.
# 2. memory and many panes: VmRSS of the app, its WebKit child processes and the pty daemon with 1,
#    10 and PANES panes (tabs, opened with Ctrl+Shift+T; every tab stays mounted and attached);
#    and the CPU of the WebKit web process while one pane prints RATE KB/s (a paced writer)
#    with 1 pane and with PANES panes open (the printing one in the active tab).
# 3. cold start: a home with 4 panes (a 2x2 split) with scrollback; the app is killed (-9) and
#    launched again: time from exec to the window, to all panes attached (host side) and to all
#    their replays acknowledged (= written to xterm.js); "warm": the daemon kept the shells;
#    "cold": the daemon was killed too (as after a reboot) and the panes come back from their
#    scrollback logs. A screenshot of each launch at that moment goes to $ARTIFACTS.
#
#   scripts/bench-desktop.sh      env: REPRISE_BIN, ARTIFACTS (default test-artifacts), RUNS, MIB, PANES, RATE, CPU_SECONDS,
#                                 ONLY (comma-separated: throughput, memory, start; default all), MEM_SETTLE,
#                                 VARIANTS (warm cold), ALT_BIN (another build alternating in the start section),
#                                 PERF=1 (a perf profile of the WebKit web process per start, window → screens),
#                                 SOCKET=main (the page's WebSocket on its main thread, not the socket worker),
#                                 MEM_PROBE=1, MEM_TRACE=S (diagnosis of the web process's memory, see mem_probe)
#    The start section also prints the page's own phases (GET /v1/debug/marks: script, socket,
#    hello, terminal opens, attaches, replays parsed and drawn), ms from the window appearing.
#
# Prints "skipped: <reason>" and exits 0 when it cannot run here (no Xvfb, xdotool, python3 gi
# with WebKit2 4.1, node, a built app, or an app without the debug route).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
BIN="${REPRISE_BIN:-$ROOT/build/bin/reprise}"
ART="$(realpath -m "${ARTIFACTS:-test-artifacts}")/bench-desktop"
RUNS="${RUNS:-3}"
MIB="${MIB:-32}"
PANES="${PANES:-30}"
RATE="${RATE:-200}" # KB/s of the paced writer in the many-panes CPU figure
CPU_SECONDS="${CPU_SECONDS:-8}"
MEM_SETTLE="${MEM_SETTLE:-3}" # seconds before each memory sample set
# ALT_BIN: another build (e.g. main's) whose starts alternate with $BIN's in the start section,
# run after run in the same home, so that both see the same load: "before/after" from one run.
ALT_BIN="${ALT_BIN:-}"
VARIANTS="${VARIANTS:-warm cold}"
ONLY="${ONLY:-throughput,memory,start}"
want() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }
PY=/usr/bin/python3 # the system python: gi and WebKit2 come from apt

skip() { echo "bench-desktop: skipped: $*"; exit 0; }
for c in Xvfb xdotool import node curl; do command -v "$c" >/dev/null || skip "no $c"; done
"$PY" -c "import gi; gi.require_version('WebKit2', '4.1'); from gi.repository import WebKit2" 2>/dev/null ||
  skip "no python3 gi with WebKit2 4.1 (apt install python3-gi gir1.2-webkit2-4.1)"
[ -x "$BIN" ] || skip "$BIN not built (make build)"
[ -d frontend/node_modules/@xterm/xterm ] || skip "no frontend/node_modules/@xterm (make setup)"
mkdir -p "$ART"

H="$(mktemp -d /tmp/rbd.XXXXXX)" # short: socket paths are limited
APP_PID=""; XVFB_PID=""; AUX_PID=""
daemon_pid() { cat "$H/run/ptyd.lock" 2>/dev/null || true; }
kill_app() { [ -n "$APP_PID" ] && { kill -9 "$APP_PID"; wait "$APP_PID"; } 2>/dev/null || true; APP_PID=""; }
kill_daemon() {
  local d; d=$(daemon_pid)
  [ -n "$d" ] && kill -9 "$d" 2>/dev/null || true
  # Its shells lose their pty; give them a moment to go.
  for _ in $(seq 50); do [ -n "$d" ] && kill -0 "$d" 2>/dev/null || break; sleep 0.1; done
}
cleanup() {
  kill_app
  [ -n "$AUX_PID" ] && kill "$AUX_PID" 2>/dev/null || true
  kill_daemon
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
  cp "$H"/logs/*.log "$ART/" 2>/dev/null || true
  rm -rf "$H"
}
trap cleanup EXIT

. scripts/xvfb.sh
start_xvfb 200 || skip "Xvfb did not start on $DISPLAY"

mkdir -p "$H/u"
export WEBKIT_DISABLE_COMPOSITING_MODE=1 SHELL=/bin/bash REPRISE_HOME="$H" HOME="$H/u" REPRISE_DEBUG_API=1
log() { echo "bench-desktop: $*" >&2; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
now_ms() { date +%s%3N; }

# Polls the host's local API (GET /v1/debug/streams) every 20 ms until a condition holds; prints
# the result. Conditions:
#   acked TID TARGET   the window's stream of TID has TARGET bytes acknowledged since the poll
#                      began: prints the time of the acknowledgement that got there (unix ms)
#   settled            every stream has acked == sent and nothing moved for 1 s
#   attached N         N terminals attached: prints unix ms at that moment, then unix ms once
#                      each has received and acknowledged a non-empty replay, and the streams
cat > "$H/poll.py" <<'EOF'
import http.client, json, socket, sys, time
sock = sys.argv[1]
class C(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); self.sock.connect(sock)
def streams():
    try:
        c = C('x', timeout=5); c.request('GET', '/v1/debug/streams'); r = c.getresponse(); b = r.read(); c.close()
        if r.status == 404: sys.exit('no /v1/debug/streams')
        return json.loads(b)
    except (OSError, http.client.HTTPException):
        return None
def latest(st):  # the newest viewer (the page's current connection) only
    v = max((s['viewer'] for s in st), default=None)
    return [s for s in st if s['viewer'] == v]
now = lambda: int(time.time() * 1000)
mode, deadline = sys.argv[2], time.time() + float(sys.argv[-1])
args = sys.argv[3:-1]
if mode == 'acked':
    tid, target = args[0], int(args[1])
    base = None
    while time.time() < deadline:
        st = streams() or []
        s = next((s for s in latest(st) if s['terminalId'] == tid), None)
        if s:
            if base is None: base = s['acked']
            elif s['acked'] - base >= target:
                print(s['lastAckUnixMs'], s['acked'] - base); sys.exit(0)
        time.sleep(0.02)
elif mode == 'settled':
    last, since = None, time.time()
    while time.time() < deadline:
        st = streams()
        key = json.dumps([(s['terminalId'], s['sent'], s['acked']) for s in latest(st or [])])
        if st and key != last: last, since = key, time.time()
        if st and all(s['acked'] >= s['sent'] for s in latest(st)) and time.time() - since > 1:
            print(len(latest(st))); sys.exit(0)
        time.sleep(0.05)
elif mode == 'attached':
    # A page may attach a restored pane twice (its screen, then the whole replay, asked for once
    # every screen is drawn): done once every stream's current attach has been acknowledged and
    # no attach followed for 1.5 s (the figures are the host's timestamps, not this poll's).
    # With APP_PID set, the CPU time of the app's WebKit web process is sampled meanwhile: the
    # 5th field is its CPU ms up to the moment all screens were drawn (the page's own work,
    # which the load of other processes on the machine changes much less than the wall time).
    n, t_att, t_done, key = int(args[0]), None, None, None
    import os
    app, cpu = os.environ.get('APP_PID'), []
    def webkit_ticks():
        tot = 0
        for k in os.listdir('/proc'):  # children of any of the app's threads
            if not k.isdigit(): continue
            try:
                f = open('/proc/%s/stat' % k).read().rsplit(')', 1)[1].split()
                if f[1] != app or not open('/proc/%s/comm' % k).read().startswith('WebKitWeb'): continue
                tot += int(f[11]) + int(f[12])
            except OSError:
                pass
        return tot
    def cpu_ms_at(t_ms):
        before = [c for (t, c) in cpu if t <= t_ms + 20]
        return (before[-1] if before else 0) * 10
    while time.time() < deadline:
        if app: cpu.append((now(), webkit_ticks()))
        st = latest(streams() or [])
        if len(st) >= n and t_att is None: t_att = now()
        if len(st) >= n and all(s['sent'] > 0 and s['acked'] >= s['sent'] for s in st):
            k = [(s['terminalId'], s.get('attaches', 1)) for s in st]
            if k != key: key, t_done, t_seen = k, now(), time.time()
            elif time.time() - t_seen > 1.5:
                # first: all screens drawn; full: all replays; (unix ms; old hosts: when seen)
                first = max(s.get('firstDrawnUnixMs') or t_done for s in st)
                full = max(s.get('drawnUnixMs') or t_done for s in st)
                print(t_att, first, full, cpu_ms_at(first) if app else -1, json.dumps(st)); sys.exit(0)
        else:
            key = None
        time.sleep(0.02)
print('timeout', json.dumps(streams()), file=sys.stderr); sys.exit(1)
EOF
poll() { "$PY" "$H/poll.py" "$H/run/host.sock" "$@"; }
# The page's own start phases (GET /v1/debug/marks, sent by the page once its screens are drawn
# and again once the full replays are in; frontend/src/startmarks.ts), newest page, in ms from
# T0 (argv 1): one line "name=ms ..." in a fixed order, absent phases left out.
cat > "$H/phases.py" <<'EOF'
import json, sys
d = json.load(sys.stdin)
if not d: sys.exit(0)
r, t0 = d[-1]['marks'], float(sys.argv[1])
m, o = r['marks'], r['timeOrigin']
def pane(ph, f):
    v = [t for k, t in m.items() if k.startswith(ph + ':')]
    return f(v) if v else None
nav = r.get('nav') or {}
ph = [('load', o), ('script', o + r['script']['end'] if r.get('script') else None),
      ('domInteractive', o + nav['domInteractive'] if 'domInteractive' in nav else None),
      ('main', m.get('main')), ('endpoint', m.get('endpoint')), ('socket', m.get('socket')), ('hello', m.get('hello')),
      ('open', pane('open', min)), ('opened', pane('opened', max)), ('attach', pane('attach', min)), ('attached', pane('attached', max)), ('parsed', pane('parsed', max)),
      ('drawn', pane('drawn', max)), ('painted', r.get('painted')), ('full', pane('full', max))]
print(' '.join('%s=%d' % (k, v - t0) for k, v in ph if v))
EOF
phases() { api /v1/debug/marks > "$H/marks.json" || true; "$PY" "$H/phases.py" "$1" < "$H/marks.json" 2>>"$ART/phases.err" || true; }
api() { curl -sf --unix-socket "$H/run/host.sock" "http://reprise$1"; }
jq_py() { "$PY" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

WID=""
T_EXEC=0; T_WINDOW=0
launch() { # [binary] (default $BIN)
  T_EXEC=$(now_ms)
  "${1:-$BIN}" --home "$H" >>"$ART/app.out" 2>&1 &
  APP_PID=$!
  WID=""
  for _ in $(seq 1000); do
    WID=$(xdotool search --name 'Reprise$' 2>/dev/null | head -1 || true)
    [ -n "$WID" ] && break
    sleep 0.02
  done
  T_WINDOW=$(now_ms)
  [ -n "$WID" ] || { log "no window appeared"; return 1; }
}
focus_pane() { xdotool mousemove --window "$WID" "${1:-640}" "${2:-400}" click 1 || true; }
wait_file() { for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
type_until() { # type a command into the focused pane until the file it writes appears
  local cmd="$1" file="$2"
  for _ in 1 2 3 4 5 6; do
    xdotool type --delay 10 "$cmd"; xdotool key Return
    wait_file "$file" && return 0
    sleep 1
  done
  return 1
}
mem3() { # median of 3 samples 1 s apart
  local a b c
  a=$(mem_kib); sleep 1; b=$(mem_kib 2>/dev/null); sleep 1; c=$(mem_kib 2>/dev/null)
  printf '%s\n' "$a" "$b" "$c" | median
}
# The WebKit web process's smaps to $ART/smaps-N.txt (N panes): which mappings grow per pane
# (anonymous heap, JavaScriptCore's gigacage, memfd/shm backing stores of layers and canvases).
smaps_dump() {
  local p
  for p in $(pgrep -P "$APP_PID" || true); do
    case "$(cat "/proc/$p/comm" 2>/dev/null)" in WebKitWeb*) cat "/proc/$p/smaps" > "$ART/smaps-$1.txt" 2>/dev/null || true ;; esac
  done
}
# MEM_PROBE=1 (diagnosis, not a figure of the app): with 10 panes, what the WebKit web process
# gives back when asked from outside with gdb: first glibc's malloc_trim(0) (freed malloc heap
# kept by glibc), then WebKit's own critical memory release (WTF::MemoryPressureHandler::
# releaseMemory(Critical::Yes, Synchronous::Yes): a full synchronous JS GC, caches dropped,
# libpas scavenged, malloc_trim again). The web process's RSS and its smaps after each go to the
# log and $ART/smaps-N-trim.txt, $ART/smaps-N-release.txt (N panes; argv 1).
mem_probe() {
  local wk; wk=$(for p in $(pgrep -P "$APP_PID" || true); do case "$(cat "/proc/$p/comm" 2>/dev/null)" in WebKitWeb*) echo "$p" ;; esac; done | head -1)
  [ -n "$wk" ] && command -v gdb >/dev/null || { log "  probe: no web process or no gdb"; return 0; }
  log "  probe ($1 panes): web process RSS $(( $(rss_kib "$wk") / 1024 )) MiB"
  # malloc's own account first (XML on the web process's stderr, i.e. $ART/app.out)
  gdb -p "$wk" -batch -ex 'call (int)malloc_info(0, *(void**)&stderr)' >/dev/null 2>>"$ART/gdb.err" || true
  gdb -p "$wk" -batch -ex 'call (int)malloc_trim(0)' >/dev/null 2>>"$ART/gdb.err" || true
  sleep 2; cat "/proc/$wk/smaps" > "$ART/smaps-$1-trim.txt" 2>/dev/null || true
  log "  probe: after malloc_trim(0) $(( $(rss_kib "$wk") / 1024 )) MiB"
  # A full JS GC of the newest VM (with SOCKET=main the page's only one; else the socket worker's),
  # holding its lock as JSC requires, then libpas's free pages returned.
  gdb -p "$wk" -batch -ex 'handle SIGUSR1 nostop noprint pass' -ex 'handle SIGUSR2 nostop noprint pass' -ex 'handle SIGSEGV nostop noprint pass' -ex 'set unwindonsignal on' \
    -ex 'set $vm = *(void**)&_ZN3JSC11VMInspector10m_recentVME' -ex 'print $vm' -ex 'set $lk = (void*)malloc(64)' \
    -ex 'call (void)_ZN3JSC12JSLockHolderC1EPNS_2VME($lk, $vm)' -ex 'call (void)_ZN3JSC11VMInspector2gcEPNS_2VME($vm)' \
    -ex 'call (void)_ZN3JSC12JSLockHolderD1Ev($lk)' -ex 'call (void)_ZN3WTF27releaseFastMallocFreeMemoryEv()' >>"$ART/gdb.out" 2>>"$ART/gdb.err" || true
  sleep 2; cat "/proc/$wk/smaps" > "$ART/smaps-$1-gc.txt" 2>/dev/null || true
  log "  probe: after a full JS GC and libpas scavenge $(( $(rss_kib "$wk") / 1024 )) MiB"
  gdb -p "$wk" -batch -ex 'handle SIGUSR1 nostop noprint pass' -ex 'handle SIGUSR2 nostop noprint pass' -ex 'set unwindonsignal on' -ex 'set $h = (void*)_ZN3WTF21MemoryPressureHandler9singletonEv()' \
    -ex 'call (void)_ZN3WTF21MemoryPressureHandler13releaseMemoryENS_8CriticalENS_11SynchronousE($h, 1, 1)' >/dev/null 2>>"$ART/gdb.err" || true
  sleep 2; cat "/proc/$wk/smaps" > "$ART/smaps-$1-release.txt" 2>/dev/null || true
  log "  probe: after WebKit's critical release (GC, caches, libpas scavenge, trim) $(( $(rss_kib "$wk") / 1024 )) MiB"
  log "  probe: app + WebKit + daemon after the probe: $(( $(mem_kib 2>/dev/null) / 1024 )) MiB"
}
# A new home for the next part: no app, no daemon, no terminals; the WebKit data (the app's
# localStorage) is kept.
fresh_home() {
  kill_app
  kill_daemon
  find "$H" -mindepth 1 -maxdepth 1 ! -name u ! -name poll.py ! -name phases.py ! -name bench.txt -exec rm -rf {} +
  rm -rf "$H/u/.cache"
  find "$H/u" -mindepth 1 -maxdepth 1 ! -name .local -exec rm -rf {} +
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# VmRSS of the app, its WebKit children and the daemon (each once), KiB; details to stderr.
mem_kib() {
  local pids="$APP_PID" p d total=0
  for p in $(pgrep -P "$APP_PID" || true); do
    case "$(cat "/proc/$p/comm" 2>/dev/null)" in WebKit*) pids="$pids $p" ;; esac
  done
  d=$(daemon_pid); [ -n "$d" ] && pids="$pids $d"
  for p in $(echo "$pids" | tr ' ' '\n' | sort -un); do
    log "  rss $(cat "/proc/$p/comm" 2>/dev/null) ($p): $(( $(rss_kib "$p") / 1024 )) MiB"
    total=$((total + $(rss_kib "$p")))
  done
  echo "$total"
}

# ---- setup: DOM renderer in the app (written through WebKitGTK, in the app's data dir) ------
got=$("$PY" scripts/bench-desktop-webkit.py set-local-storage reprise.renderer dom --prgname reprise 2>>"$ART/webkit.err") ||
  skip "could not write the app's localStorage with WebKitGTK (see $ART/webkit.err)"
[ "$got" = '"dom"' ] || skip "localStorage reprise.renderer reads back as $got"
RENDERER=dom
# SOCKET=main: the page's WebSocket on its main thread instead of the socket worker (reprise.socket).
if [ -n "${SOCKET:-}" ]; then
  "$PY" scripts/bench-desktop-webkit.py set-local-storage reprise.socket "$SOCKET" --prgname reprise >/dev/null 2>>"$ART/webkit.err" ||
    skip "could not write reprise.socket"
fi

DATA="$H/bench.txt"
if want throughput; then
  META=$(node e2e/bench/desktop-bare.mjs gen "$DATA" "$MIB")
  EXPECTED=$(echo "$META" | jq_py "d['expected']")
  LAST=$(echo "$META" | jq_py "d['last']")
fi

# ---- 1. throughput ---------------------------------------------------------------------------
if want throughput; then
log "== throughput: cat of $MIB MiB ($EXPECTED bytes through the pty), renderer $RENDERER"
launch
api /v1/version >/dev/null 2>&1 || sleep 2
if ! poll settled 30 >/dev/null 2>"$ART/poll.err"; then
  grep -q 'no /v1/debug/streams' "$ART/poll.err" && skip "$BIN has no GET /v1/debug/streams (make build)"
  log "the page never attached its pane"; exit 1
fi
TID=$(api /v1/debug/streams | jq_py "d[-1]['terminalId']")
focus_pane
type_until "stty size > $H/size.txt" "$H/size.txt" || { import -window root "$ART/fail-type.png"; log "typed command never ran"; exit 1; }
read -r ROWS COLS < "$H/size.txt"
app_rates=()
for r in $(seq "$RUNS"); do
  xdotool type --delay 10 "cat $DATA"
  poll settled 30 >/dev/null
  poll acked "$TID" $((EXPECTED + 2)) 600 > "$H/acked.out" & # + the echo of Return
  AUX_PID=$!
  sleep 0.3 # the poller has taken its base
  t0=$(now_ms)
  xdotool key Return
  wait "$AUX_PID" || { AUX_PID=""; import -window root "$ART/fail-cat.png"; log "cat never fully acknowledged"; exit 1; }
  AUX_PID=""
  read -r t1 _ < "$H/acked.out"
  ms=$((t1 - t0))
  rate=$(awk -v b="$EXPECTED" -v ms="$ms" 'BEGIN {printf "%.1f", b / ms / 1000}')
  app_rates+=("$rate")
  log "throughput run $r: reprise $rate MB/s ($ms ms)"
  poll settled 30 >/dev/null
  if [ "$r" = 1 ]; then sleep 0.5; import -window root "$ART/throughput-app.png"; fi
done
# The file's last line must have reached the terminal (its scrollback log; the screenshot shows
# the window).
grep -qF "$LAST" "$H/scrollback/$TID.log" || log "warning: the last line is not in the pane's log"
kill_app

# The bare page, sized to the same columns and rows (cell 8x17 px with this font; the page
# reports what it got).
W=$((COLS * 8 + 18)); HH=$((ROWS * 17 + 8))
node e2e/bench/desktop-bare.mjs serve "$DATA" "$RUNS" "$W" "$HH" "$RENDERER" > "$H/bare.out" &
AUX_PID=$!
for _ in $(seq 50); do [ -s "$H/bare.out" ] && break; sleep 0.1; done
"$PY" scripts/bench-desktop-webkit.py open "$(head -1 "$H/bare.out")" --size 1280x800 --title-exit bench-done --timeout 300 2>>"$ART/webkit.err" ||
  { log "the bare page did not finish (see $ART/webkit.err)"; exit 1; }
wait "$AUX_PID" || true; AUX_PID=""
bare_rates=()
while read -r line; do
  echo "$line" | jq_py "'error' not in d" | grep -q True || { log "bare page: $line"; exit 1; }
  rate=$(echo "$line" | jq_py "'%.1f' % (d['bytes'] / d['ms'] / 1000)")
  bare_rates+=("$rate")
  log "throughput run $(echo "$line" | jq_py "d['run']"): bare xterm.js $rate MB/s ($(echo "$line" | jq_py "d['ms']") ms)"
done < <(tail -n +2 "$H/bare.out")
BARE_INFO=$(tail -1 "$H/bare.out" | jq_py "'%s, %dx%d, last line %s' % (d['renderer'], d['cols'], d['rows'], 'ok' if d['lastLine'] == '''$LAST''' else 'WRONG')")
APP_MED=$(printf '%s\n' "${app_rates[@]}" | median)
BARE_MED=$(printf '%s\n' "${bare_rates[@]}" | median)

fi

# ---- 2. memory and many panes ---------------------------------------------------------------
if want memory; then
log "== memory: 1 pane, 10 and then $PANES panes (tabs); CPU with one pane printing $RATE KB/s, 1 pane and $PANES"
fresh_home
# A paced writer (not a flood): the CPU figure is then the page's cost, not the core's limit.
cat > "$H/paced.py" <<'EOF2'
import sys, time
rate, n = int(sys.argv[1]) * 1000, 0
line = ''.join(chr(33 + (i * 7) % 90) for i in range(79)) + '\n'
batch = line * max(1, rate // 50 // len(line))
t0 = time.monotonic()
while True:
    sys.stdout.write(batch); sys.stdout.flush(); n += 1
    time.sleep(max(0, t0 + n / 50 - time.monotonic()))
EOF2
launch
poll settled 30 >/dev/null
sleep "$MEM_SETTLE"
log "1 pane:"
M1=$(mem3)
smaps_dump 1
[ "${MEM_PROBE:-}" = 1 ] && mem_probe 1
focus_pane
# CPU of the app's WebKit processes (the page's renderer) over CPU_SECONDS while the focused pane prints.
webkit_pids() { for p in $(pgrep -P "$APP_PID" || true); do case "$(cat "/proc/$p/comm" 2>/dev/null)" in WebKitWeb*) echo "$p" ;; esac; done; }
ticks() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo "$t"; }
cpu_streaming() { # prints the median CPU % of one core of the WebKit web process over RUNS samples
  local pids a b t0 t1 out=()
  type_until "python3 $H/paced.py $RATE & sleep 1; echo go > $H/go.$1" "$H/go.$1" || { log "the paced writer did not start"; return 1; }
  pids=$(webkit_pids)
  for _ in $(seq "$RUNS"); do
    a=$(ticks $pids); t0=$(now_ms); sleep "$CPU_SECONDS"; b=$(ticks $pids); t1=$(now_ms)
    out+=("$(awk -v d=$((b - a)) -v ms=$((t1 - t0)) 'BEGIN {printf "%.1f", d / 100 / (ms / 1000) * 100}')")
    log "  webkit web process CPU ($1): ${out[-1]} %"
  done
  xdotool type --delay 10 "kill %1"; xdotool key Return; sleep 1
  printf '%s\n' "${out[@]}" | median
}
C1=$(cpu_streaming 1)
for _ in $(seq 9); do xdotool key ctrl+shift+t; sleep 0.4; done
poll attached 10 60 >/dev/null || { import -window root "$ART/fail-panes.png"; log "10 panes never attached"; exit 1; }
poll settled 30 >/dev/null
sleep "$MEM_SETTLE"
log "10 panes:"
M10=$(mem3)
smaps_dump 10
[ "${MEM_PROBE:-}" = 1 ] && mem_probe 10
# MEM_TRACE=S (diagnosis): the web process's RSS every 2 s for S more seconds with 10 panes.
if [ -n "${MEM_TRACE:-}" ]; then
  wk=$(webkit_pids | head -1); tr=""
  for _ in $(seq $((MEM_TRACE / 2))); do sleep 2; tr="$tr $(( $(rss_kib "$wk") / 1024 ))"; done
  log "  web process RSS every 2 s (MiB):$tr"
fi
for _ in $(seq $((PANES - 10))); do xdotool key ctrl+shift+t; sleep 0.4; done
poll attached "$PANES" 90 >/dev/null || { import -window root "$ART/fail-panes.png"; log "$PANES panes never attached"; exit 1; }
poll settled 30 >/dev/null
sleep "$MEM_SETTLE"
import -window root "$ART/memory-$PANES-panes.png"
log "$PANES panes:"
MN=$(mem3)
focus_pane
CN=$(cpu_streaming "$PANES")
kill_app

fi

# ---- 3. cold start ---------------------------------------------------------------------------
declare -A T_WIN T_ATT T_FIRST T_REN T_DRAWN T_CPU T_PH
if want start; then
log "== cold start: 4 panes with scrollback"
fresh_home
launch
poll settled 30 >/dev/null
focus_pane
xdotool key ctrl+shift+d; sleep 0.5 # split right: the new pane has the focus
xdotool key ctrl+shift+e; sleep 0.5 # split it down
xdotool key alt+Left; sleep 0.3
xdotool key ctrl+shift+e; sleep 0.5 # split the left one down
poll attached 4 30 >/dev/null || { import -window root "$ART/fail-split.png"; log "no 4 panes"; exit 1; }
i=0
for xy in "320 220" "960 220" "320 600" "960 600"; do # click into each pane of the 2x2 grid
  i=$((i + 1))
  focus_pane $xy; sleep 0.5
  type_until "seq -f 'pane $i line %g of scrollback' 5000 && echo ok > $H/done$i" "$H/done$i" || { import -window root "$ART/fail-seq.png"; log "typing into pane $i failed"; exit 1; }
done
poll settled 30 >/dev/null
n=$(grep -l "line 5000 of scrollback" "$H"/scrollback/*.log | wc -l)
[ "$n" = 4 ] || { import -window root "$ART/fail-seq.png"; log "$n panes of 4 have their scrollback"; exit 1; }
sleep 1
import -window root "$ART/coldstart-before.png"
kill_app
for variant in $VARIANTS; do
  for r in $(seq "$RUNS"); do
   for which in this ${ALT_BIN:+alt}; do
    [ "$variant" = cold ] && kill_daemon
    if [ "$which" = alt ]; then launch "$ALT_BIN"; else launch; fi
    key="$variant${ALT_BIN:+/$which}"
    # PERF=1: a CPU profile of the WebKit web process from the window to the screens drawn.
    PERF_PID=""
    if [ "${PERF:-}" = 1 ]; then
      wk=$(for p in $(pgrep -P "$APP_PID" || true); do case "$(cat "/proc/$p/comm" 2>/dev/null)" in WebKitWeb*) echo "$p" ;; esac; done | head -1)
      [ -n "$wk" ] && { perf record -q -k CLOCK_REALTIME -F 1999 -g -p "$wk" -o "$ART/perf-${key//\//-}-$r.data" 2>>"$ART/perf.err" & PERF_PID=$!; }
    fi
    out=$(APP_PID=$APP_PID poll attached 4 60) || { import -window root "$ART/fail-$variant.png"; log "$variant start: panes never attached"; exit 1; }
    [ -n "$PERF_PID" ] && { kill -INT "$PERF_PID"; wait "$PERF_PID" 2>/dev/null || true; }
    import -window root "$ART/coldstart-$variant-$r.png"
    read -r ta tf tr tcpu _ <<<"$out"
    T_WIN[$key]+="$((T_WINDOW - T_EXEC)) "; T_ATT[$key]+="$((ta - T_EXEC)) "; T_FIRST[$key]+="$((tf - T_EXEC)) "; T_REN[$key]+="$((tr - T_EXEC)) "
    T_DRAWN[$key]+="$((tf - T_WINDOW)) "; T_CPU[$key]+="$tcpu "
    log "$key start run $r: window $((T_WINDOW - T_EXEC)) ms, 4 panes attached $((ta - T_EXEC)) ms, screens drawn $((tf - T_EXEC)) ms, full replays written $((tr - T_EXEC)) ms, WebKit web process CPU to the screens $tcpu ms ($(echo "$out" | cut -d' ' -f5- | jq_py "sum(s['sent'] for s in d)") bytes in the last attaches)"
    echo "$out" | cut -d' ' -f5- >> "$ART/start-streams.json"
    # The page's phases, from the window appearing (the report of the full replays may come a moment later).
    ph=""; for _ in $(seq 20); do ph=$(phases "$T_WINDOW"); case "$ph" in *full=*) break ;; esac; sleep 0.1; done
    log "  page (ms from the window): ${ph:-no marks}"
    T_PH[$key]+="$ph;"; cp "$H/marks.json" "$ART/marks-${key//\//-}-$r.json" 2>/dev/null || true
    # Where the time went, host side (ms from exec): the page's connection, the first and last
    # attach asked, the last first byte sent, the last acknowledgement.
    log "  $(echo "$out" | cut -d' ' -f5- | jq_py "'host (ms from exec): connected %d, first attaches began %d..%d, last attaches began %d..%d, their first bytes sent by %d, last ack %d' % (d[0].get('viewerUnixMs', 0) - $T_EXEC, min(s.get('firstAttachUnixMs', 0) for s in d) - $T_EXEC, max(s.get('firstAttachUnixMs', 0) for s in d) - $T_EXEC, min(s.get('attachUnixMs', 0) for s in d) - $T_EXEC, max(s.get('attachUnixMs', 0) for s in d) - $T_EXEC, max(s.get('firstSentUnixMs', 0) for s in d) - $T_EXEC, max(s['lastAckUnixMs'] for s in d) - $T_EXEC)")"
    poll settled 30 >/dev/null || true
    kill_app
   done
  done
done

fi

# ---- report ----------------------------------------------------------------------------------
echo
echo "== real window (WebKitGTK $("$PY" -c "import gi; gi.require_version('WebKit2','4.1'); from gi.repository import WebKit2 as W; print('%d.%d.%d' % (W.get_major_version(), W.get_minor_version(), W.get_micro_version()))"), Xvfb, xterm.js $RENDERER renderer; medians of $RUNS)"
want throughput && printf 'cat %s MiB: reprise %s MB/s (%sx%s), bare xterm.js %s MB/s (%s), ratio %s\n' "$MIB" "$APP_MED" "$COLS" "$ROWS" "$BARE_MED" "$BARE_INFO" \
  "$(awk -v a="$APP_MED" -v b="$BARE_MED" 'BEGIN {printf "%.2f", a/b}')"
want memory && printf 'memory (app + WebKit + daemon RSS): 1 pane %d MiB, 10 panes %d MiB, %d panes %d MiB; per extra pane %.1f MiB (1 → 10), %.1f MiB (1 → %d); target <= 3 MiB\n' \
  $((M1 / 1024)) $((M10 / 1024)) "$PANES" $((MN / 1024)) "$(awk -v a="$M10" -v b="$M1" 'BEGIN {print (a-b)/1024/9}')" \
  "$(awk -v a="$MN" -v b="$M1" -v n="$PANES" 'BEGIN {print (a-b)/1024/(n-1)}')" "$PANES"
want memory && printf 'WebKit web process CPU, one pane printing %s KB/s: 1 pane %s %%, %d panes open %s %% (ratio %s; target ~1)\n' "$RATE" "$C1" "$PANES" "$CN" \
  "$(awk -v a="$CN" -v b="$C1" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "-"}')"
want start && for variant in $VARIANTS; do
 for which in this ${ALT_BIN:+alt}; do
  key="$variant${ALT_BIN:+/$which}"
  med() { echo "$1" | tr ' ' '\n' | grep . | median; }
  printf 'start with 4 panes (%s, daemon %s%s): window %s ms, panes attached %s ms, screens drawn %s ms (%s ms after the window; target <= 600; WebKit web process CPU until then %s ms), full replays in xterm.js %s ms\n' "$variant" \
    "$([ "$variant" = warm ] && echo kept || echo killed)" "$([ -n "$ALT_BIN" ] && { [ "$which" = alt ] && echo ", $ALT_BIN" || echo ", $BIN"; })" \
    "$(med "${T_WIN[$key]}")" "$(med "${T_ATT[$key]}")" "$(med "${T_FIRST[$key]}")" "$(med "${T_DRAWN[$key]}")" "$(med "${T_CPU[$key]}")" "$(med "${T_REN[$key]}")"
  # The page's phases, medians over the runs, ms from the window appearing.
  printf '  page phases (ms from the window, medians): %s\n' "$(echo "${T_PH[$key]}" | "$PY" -c "
import sys, statistics
runs = [dict(kv.split('=') for kv in r.split()) for r in sys.stdin.read().split(';') if r.strip()]
keys = []
for r in runs: keys += [k for k in r if k not in keys]
print(' '.join('%s %d' % (k, statistics.median(int(r[k]) for r in runs if k in r)) for k in keys) or 'none')")"
 done
done
echo "screenshots: $ART"
