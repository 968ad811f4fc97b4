#!/usr/bin/env bash
# The real window's first frames under Xvfb with a light GTK theme (issue 17): the window must
# never show a dark background before the page paints (it was always rgb(30,30,30), for a second
# or more on a real desktop). Grabs the screen ~40 times from the launch and fails if a frame's
# middle is dark. Needs build/bin/reprise and reprise-desktop (make build), Xvfb, ImageMagick.
#   scripts/desktop-first-paint.sh [ARTIFACTS]
set -uo pipefail
cd "$(dirname "$0")/.."
ART="$(realpath -m "${1:-test-artifacts}")/desktop-first-paint"
BIN="$PWD/build/bin/reprise"
[ -x "$BIN" ] && [ -x "$PWD/build/bin/reprise-desktop" ] || { echo "desktop-first-paint: build/bin not built (make build)"; exit 1; }
mkdir -p "$ART" && rm -f "$ART"/f*.png
H="$(mktemp -d /tmp/rpaint.XXXXXX)"; mkdir -p "$H/u"
APP_PID=""; XVFB_PID=""
. scripts/stop-home.sh
. scripts/xvfb.sh
cleanup() {
  [ -n "$APP_PID" ] && { kill -9 "$APP_PID"; wait "$APP_PID"; } 2>/dev/null || true
  [ -f "$H/run/ptyd.lock" ] && kill -9 "$(cat "$H/run/ptyd.lock")" 2>/dev/null || true
  stop_home "$H" || true
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
  rm -rf "$H"
}
trap cleanup EXIT
start_xvfb 150 || { echo "desktop-first-paint: Xvfb did not start"; exit 1; }
export WEBKIT_DISABLE_COMPOSITING_MODE=1 SHELL=/bin/bash REPRISE_HOME="$H" HOME="$H/u" GTK_THEME=Adwaita
"$BIN" --home "$H" >"$ART/app.out" 2>&1 &
APP_PID=$!
for i in $(seq -w 1 40); do import -window root "$ART/f$i.png" 2>/dev/null || true; done
seen=0; dark=0
for f in "$ART"/f*.png; do
  # The middle of the window; rgb(0,0,0) is the bare X root before the window maps.
  px=$(convert "$f" -format '%[fx:int(255*p{640,400}.r)] %[fx:int(255*p{640,400}.g)] %[fx:int(255*p{640,400}.b)]' info: 2>/dev/null) || continue
  read -r r g b <<<"$px"
  [ "$r$g$b" = "000" ] && continue
  seen=$((seen + 1))
  if [ "$r" -lt 128 ] && [ "$g" -lt 128 ] && [ "$b" -lt 128 ]; then
    dark=$((dark + 1)); echo "desktop-first-paint: $(basename "$f") is dark (rgb $r,$g,$b)"
  fi
done
[ "$seen" -gt 0 ] || { echo "desktop-first-paint: no window appeared"; exit 1; }
[ "$dark" -eq 0 ] || { echo "desktop-first-paint: FAIL: $dark of $seen frames dark on a light desktop"; exit 1; }
echo "desktop-first-paint: ok: $seen frames, none dark"
