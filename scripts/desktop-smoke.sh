#!/usr/bin/env bash
# Smoke test of the real desktop window under Xvfb: launch the built app,
# type a command with xdotool, check through the filesystem and the CLI that
# it ran in the pane's shell, take screenshots; kill the app, relaunch it and
# check the same shell (same PID) is attached. Then issue 16: a notification
# over a private D-Bus session bus, and its default action
# (scripts/desktop-notify.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ART="$(realpath "${1:-test-artifacts}")"
mkdir -p "$ART"
BIN="$PWD/build/bin/reprise"
[ -x "$BIN" ] || { echo "desktop-smoke: $BIN not built (make build)"; exit 1; }

H="$(mktemp -d /tmp/rdesk.XXXXXX)"
APP_PID=""; XVFB_PID=""
cleanup() {
  [ -n "$APP_PID" ] && { kill -9 "$APP_PID"; wait "$APP_PID"; } 2>/dev/null || true
  [ -f "$H/run/ptyd.lock" ] && kill -9 "$(cat "$H/run/ptyd.lock")" 2>/dev/null || true
  stop_notify_bus
  stop_home "$H" || true
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
  cp "$H"/logs/*.log "$ART/" 2>/dev/null || true
  rm -rf "$H"
}
trap cleanup EXIT
. scripts/stop-home.sh
. scripts/desktop-notify.sh

. scripts/xvfb.sh
start_xvfb 90 || { echo "desktop-smoke: Xvfb did not start on $DISPLAY"; exit 1; }

# A fake Claude Code (internal/fakeagents) on PATH, and a HOME of its own.
mkdir -p "$H/bin" "$H/u"
go build -o "$H/bin/claude" ./internal/fakeagents/cmd/claude
export WEBKIT_DISABLE_COMPOSITING_MODE=1 SHELL=/bin/bash REPRISE_HOME="$H" HOME="$H/u" PATH="$H/bin:$PATH"
start_notify_bus || exit 1
launch() {
  "$BIN" --home "$H" >>"$ART/desktop-app.out" 2>&1 &
  APP_PID=$!
  local wid=""
  for _ in $(seq 100); do
    # The title follows the active pane ("bash — Reprise", issue 16).
    wid=$(xdotool search --name 'Reprise$' 2>/dev/null | head -1 || true)
    [ -n "$wid" ] && break
    sleep 0.2
  done
  [ -n "$wid" ] || { echo "desktop-smoke: no window appeared"; return 1; }
  WID=$wid
  xdotool windowsize --sync "$WID" 1200 760 || true
  xdotool windowfocus --sync "$WID" || true
}

wait_file() { for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }

# Type into the focused pane until the shell has run it (the page needs a
# moment to connect; retype if nothing happened).
type_until() {
  local cmd="$1" file="$2"
  for _ in 1 2 3 4 5 6; do
    xdotool mousemove --window "$WID" 600 400 click 1 || true
    xdotool type --delay 15 "$cmd"
    xdotool key Return
    wait_file "$file" && return 0
    sleep 1
  done
  return 1
}

# --- Issue 14: typing from before the window is up reaches the shell whole ---
# Keys are typed in a loop (xdotool, where the window will be) from before the
# app starts until well after its page is up. Each command appends a line to
# a file; every command the shell ran since must be one typed whole (its
# history), every line in the file whole, and the last ones must have run. On
# main the first keys went to a pane that was not attached yet and were lost,
# so a cut command ran (`echo ok>notes.txt` as `>notes.txt`).
early_typing_check() {
  local out="$H/early.txt" hist="$H/early-hist.txt" n=14 i
  kill -9 "$APP_PID"; wait "$APP_PID" 2>/dev/null || true; APP_PID=""
  rm -f "$out" "$hist"
  xdotool mousemove 600 400
  ( for i in $(seq 1 "$n"); do xdotool type --delay 12 "echo E$i-early >> $out"; xdotool key Return; done ) &
  local typer=$!
  launch
  wait "$typer"
  for _ in $(seq 100); do grep -q "^E$n-early\$" "$out" 2>/dev/null && break; sleep 0.1; done
  sleep 0.5
  import -window root "$ART/desktop-5-early-typing.png"
  xdotool type --delay 12 "history -w $hist"; xdotool key Return
  wait_file "$hist" || { echo "desktop-smoke: early typing: history -w never ran"; return 1; }
  # What the shell ran after the last command typed before this check.
  local ran bad
  ran=$(awk '/pid2\.txt/ {n=NR} {l[NR]=$0} END {for (i=n+1; i<=NR; i++) print l[i]}' "$hist" | grep -v '^history -w ')
  bad=$(printf '%s\n' "$ran" | grep -Ev "^echo E[0-9]+-early >> ${out//./\\.}\$" || true)
  [ -z "$bad" ] || { echo "desktop-smoke: early typing: the shell ran cut commands:"; printf '  %s\n' "$bad"; return 1; }
  if grep -Ev '^E[0-9]+-early$' "$out"; then echo "desktop-smoke: early typing: cut lines in $out"; return 1; fi
  for i in $((n - 2)) $((n - 1)) "$n"; do
    grep -qx "E$i-early" "$out" || { echo "desktop-smoke: early typing: command $i (typed once the window was up) did not run"; return 1; }
  done
  echo "desktop-smoke: typing from before the window was up: $(wc -l <"$out") of $n commands ran, each whole, none cut"
}
# --- end of the issue 14 block ---

launch
sleep 2
type_until "echo smoke-\$((6*7)) > $H/typed.txt; echo \$\$ > $H/pid1.txt" "$H/pid1.txt" || { import -window root "$ART/desktop-fail.png"; echo "desktop-smoke: typed command never ran"; exit 1; }
grep -q smoke-42 "$H/typed.txt"
sleep 1.5 # let WebKit paint the echo before the screenshot
import -window root "$ART/desktop-1-typed.png"
PID1=$(cat "$H/pid1.txt")
"$BIN" terminals list --json --home "$H" > "$ART/desktop-terminals.json"
grep -q "\"pid\": $PID1" "$ART/desktop-terminals.json" || { echo "desktop-smoke: shell $PID1 not listed"; exit 1; }

# A second launch for the same home while the window is open brings that window to the front and
# says so; with no session bus to ask it, it says Reprise is running. Either way it ends by itself
# and opens no second window (on main it exited 1 without a word, or, with no bus, opened a window
# that said "Connecting…" for ever) and the first window keeps its shell.
second_launch() { # $1: label; the rest: env assignments
  local label="$1" rc=0; shift
  env "$@" timeout 20 "$BIN" --home "$H" >"$ART/desktop-second-$label.out" 2>&1 || rc=$?
  [ "$rc" != 124 ] || { import -window root "$ART/desktop-fail-second-$label.png"; echo "desktop-smoke: a second launch ($label) did not end within 20 s"; return 1; }
  grep -q "already running for this home" "$ART/desktop-second-$label.out" ||
    { echo "desktop-smoke: a second launch ($label) said: $(cat "$ART/desktop-second-$label.out")"; return 1; }
  [ "$(xdotool search --name ' — Reprise$' 2>/dev/null | wc -l)" = 1 ] || { echo "desktop-smoke: a second launch ($label) left a second window"; return 1; }
  kill -0 "$APP_PID" || { echo "desktop-smoke: the first window died on a second launch ($label)"; return 1; }
  SECOND_RC=$rc
}
second_launch bus || exit 1
[ "$SECOND_RC" = 0 ] && grep -q "its window was brought to the front" "$ART/desktop-second-bus.out" ||
  { echo "desktop-smoke: a second launch exited $SECOND_RC: $(cat "$ART/desktop-second-bus.out")"; exit 1; }
second_launch nobus DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent || exit 1
[ "$SECOND_RC" = 1 ] || { echo "desktop-smoke: a second launch with no bus exited $SECOND_RC"; exit 1; }
echo "desktop-smoke: a second launch for the same home showed the running window (or, with no bus, said Reprise runs) and opened none"

# Issue 20: WebKit's web process runs with glibc's mmap threshold fixed (webkitenv.go: freed
# multi-MiB buffers go back to the system instead of staying in its heap); the pane's shell keeps
# the environment the app was started with.
envof() { tr '\0' '\n' < "/proc/$1/environ" | sed -n 's/^GLIBC_TUNABLES=//p'; }
WK=$(for p in $(pgrep -P "$APP_PID"); do case "$(cat "/proc/$p/comm")" in WebKitWeb*) echo "$p" ;; esac; done | head -1)
[ -n "$WK" ] || { echo "desktop-smoke: no WebKit web process under the app"; exit 1; }
case ":$(envof "$WK"):" in *:glibc.malloc.mmap_threshold=*) ;; *) echo "desktop-smoke: the web process has GLIBC_TUNABLES='$(envof "$WK")', no mmap threshold"; exit 1 ;; esac
[ "$(envof "$PID1")" = "${GLIBC_TUNABLES:-}" ] || { echo "desktop-smoke: the shell got GLIBC_TUNABLES='$(envof "$PID1")'"; exit 1; }
echo "desktop-smoke: the web process has GLIBC_TUNABLES=$(envof "$WK"); the shell has the app's own"

# Kill the app hard; the daemon keeps the shell.
kill -9 "$APP_PID"; wait "$APP_PID" 2>/dev/null || true; APP_PID=""
kill -0 "$PID1" || { echo "desktop-smoke: the shell died with the window"; exit 1; }
launch
sleep 2
type_until "echo \$\$ > $H/pid2.txt" "$H/pid2.txt" || { import -window root "$ART/desktop-fail2.png"; echo "desktop-smoke: no input after relaunch"; exit 1; }
PID2=$(cat "$H/pid2.txt")
sleep 1.5
import -window root "$ART/desktop-2-relaunched.png"
if [ "$PID1" != "$PID2" ]; then echo "desktop-smoke: relaunch attached shell $PID2, want $PID1"; exit 1; fi
echo "desktop-smoke: typed command ran in shell $PID1; after kill -9 and relaunch the same shell is attached"
early_typing_check || { import -window root "$ART/desktop-fail-early.png"; exit 1; }

# Resume in the real window: an agent prompted with a codeword is killed
# with its shell; the pane shows the banner; xdotool clicks Resume; the
# resumed agent prints the codeword in the same pane.
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
TID=$("$BIN" agents create --agent claude --prompt "remember WALNUT-42" --cwd "$H/u" --home "$H")
for _ in $(seq 100); do
  "$BIN" sessions list --json --home "$H" | json "any(s['resumable'] and s['live'] for s in d)" | grep -q True && break; sleep 0.1
done
APID=$("$BIN" terminals list --json --home "$H" | json "[t['pid'] for t in d if t['id']=='$TID'][0]")
kill -9 -- "-$APID"
for _ in $(seq 100); do
  "$BIN" sessions list --json --home "$H" | json "any(s['candidate'] for s in d)" | grep -q True && break; sleep 0.1
done
sleep 1.5
import -window root "$ART/desktop-3-banner.png"
# The Resume button is the banner's blue (#005FB8) block on the right, just
# under the pane header.
read -r BX BY < <(convert "$ART/desktop-3-banner.png" txt:- | awk -F'[,: ]+' '/#005FB8/ && $2>=50 && $2<=100 && $1>640 {xs+=$1; ys+=$2; n++} END {if (n) print int(xs/n), int(ys/n)}')
[ -n "${BX:-}" ] || { echo "desktop-smoke: no Resume button in the banner (see desktop-3-banner.png)"; exit 1; }
xdotool mousemove "$BX" "$BY" click 1
for _ in $(seq 100); do
  "$BIN" sessions list --json --home "$H" | json "any(s['live'] and s['terminalId']!='$TID' for s in d)" | grep -q True && break; sleep 0.1
done
NEW=$("$BIN" sessions list --json --home "$H" | json "[s['terminalId'] for s in d if s['live']][0]")
for _ in $(seq 100); do grep -q "ack: remember WALNUT-42" "$H/scrollback/$NEW.log" 2>/dev/null && break; sleep 0.1; done
grep -q "ack: remember WALNUT-42" "$H/scrollback/$NEW.log" || { echo "desktop-smoke: the resumed agent did not show the codeword"; exit 1; }
xdotool mousemove 640 700
sleep 1.5
import -window root "$ART/desktop-4-resumed.png"
echo "desktop-smoke: clicking Resume in the window brought the conversation back (terminal $NEW)"
notify_check || { import -window root "$ART/desktop-fail-notify.png"; exit 1; }
