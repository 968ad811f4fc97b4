# Sourced by desktop-smoke.sh: issue 16's notifications in the real window.
#
# start_notify_bus (before the app starts): a private session bus
# (dbus-daemon --session), exported as DBUS_SESSION_BUS_ADDRESS; on it a fake
# notification daemon (internal/fakenotify: it owns
# org.freedesktop.Notifications, prints each Notify call as JSON and invokes
# an action when asked) and dbus-monitor, both logging into $ART.
#
# notify_check (the app running, its window focused): a fake Claude started
# from the CLI in a new tab is held at its first prompt by a user-level
# UserPromptSubmit hook until the window has switched back to the first tab;
# then it asks for a permission (Notification hook). The window must send one
# Notify over D-Bus naming the agent (dbus-monitor sees it); the test then
# invokes the notification's default action as a desktop would on a click,
# and checks the agent's pane came in front with the keyboard: "y" typed into
# the window reaches the agent (it runs its tool: "ran Bash" in its output).
NOTIFY_PIDS=()
start_notify_bus() {
  local addr_file="$H/dbus-address"
  dbus-daemon --session --nofork --nopidfile --print-address=1 >"$addr_file" 2>"$ART/dbus-daemon.err" &
  NOTIFY_PIDS+=($!)
  for _ in $(seq 50); do [ -s "$addr_file" ] && break; sleep 0.1; done
  [ -s "$addr_file" ] || { echo "desktop-smoke: dbus-daemon printed no address"; return 1; }
  export DBUS_SESSION_BUS_ADDRESS="$(head -1 "$addr_file")"
  go build -o "$H/bin/fakenotifyd" ./internal/fakenotify/cmd/fakenotifyd
  "$H/bin/fakenotifyd" >"$ART/notifyd.jsonl" 2>"$ART/notifyd.err" &
  NOTIFY_PIDS+=($!)
  for _ in $(seq 50); do grep -q '^ready$' "$ART/notifyd.jsonl" 2>/dev/null && break; sleep 0.1; done
  grep -q '^ready$' "$ART/notifyd.jsonl" || { echo "desktop-smoke: the fake notification daemon did not start"; return 1; }
  dbus-monitor --address "$DBUS_SESSION_BUS_ADDRESS" "interface='org.freedesktop.Notifications'" >"$ART/dbus-monitor.log" 2>&1 &
  NOTIFY_PIDS+=($!)
  sleep 0.3
}

stop_notify_bus() {
  local p
  for p in "${NOTIFY_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
}

notify_check() {
  local gate="$H/notify-gate" tid id
  rm -f "$gate"
  mkdir -p "$H/u/.claude"
  cat >"$H/u/.claude/settings.json" <<JSON
{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "for i in \$(seq 300); do [ -e '$gate' ] && exit 0; sleep 0.1; done"}]}]}}
JSON
  xdotool windowfocus --sync "$WID" || true
  tid=$("$BIN" agents create --agent claude --prompt "ask to deploy" --cwd "$H/u" --home "$H")
  # The new tab comes in front; go back to the first one, then let the turn on.
  sleep 2
  xdotool mousemove --window "$WID" 600 400 click 1
  xdotool key ctrl+Page_Up
  sleep 1
  import -window root "$ART/desktop-6-background-agent.png"
  touch "$gate"
  for _ in $(seq 100); do grep -q '"summary"' "$ART/notifyd.jsonl" && break; sleep 0.1; done
  import -window root "$ART/desktop-7-notified.png"
  grep -q '"summary":"Claude Code needs your input"' "$ART/notifyd.jsonl" ||
    { echo "desktop-smoke: no notification for the agent in the background tab (see notifyd.jsonl, dbus-monitor.log)"; return 1; }
  grep -q 'member=Notify' "$ART/dbus-monitor.log" && grep -q 'string "Claude Code needs your input"' "$ART/dbus-monitor.log" ||
    { echo "desktop-smoke: dbus-monitor saw no Notify naming the agent (see dbus-monitor.log)"; return 1; }
  [ "$(grep -c '"summary"' "$ART/notifyd.jsonl")" = 1 ] ||
    { echo "desktop-smoke: more than one notification for one turn (see notifyd.jsonl)"; return 1; }
  id=$(grep '"summary":"Claude Code needs your input"' "$ART/notifyd.jsonl" | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  dbus-send --session --dest=org.freedesktop.Notifications --type=method_call --print-reply \
    /org/freedesktop/Notifications dev.reprise.FakeNotifications.Invoke "uint32:$id" string:default >/dev/null
  grep -q 'member=ActionInvoked' "$ART/dbus-monitor.log" || sleep 0.5
  sleep 1.5
  import -window root "$ART/desktop-8-after-click.png"
  # The keyboard is in the agent's pane: its answer runs the tool.
  xdotool type --delay 20 "y"; xdotool key Return
  for _ in $(seq 100); do grep -q "ran Bash" "$H/scrollback/$tid.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "ran Bash" "$H/scrollback/$tid.log" ||
    { echo "desktop-smoke: after the notification's default action the agent's pane did not have the keyboard (see desktop-8-after-click.png)"; return 1; }
  rm -f "$H/u/.claude/settings.json"
  echo "desktop-smoke: an agent needing input in a background tab raised one D-Bus notification naming it; its default action brought the pane in front"
}
