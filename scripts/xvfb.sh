# Sourced by the scripts that drive the real window. start_xvfb BASE starts
# Xvfb (1280x800x24) on a display from BASE to BASE+99, exports DISPLAY, sets
# XVFB_PID, and returns 1 if the server does not answer within 5 s. -noreset: by default
# Xvfb resets itself when its last client leaves, and an app launched in that moment fails
# with "failed to init GTK" (seen twice in the start benchmark, which kills and relaunches).
start_xvfb() {
  local disp=":$(($1 + RANDOM % 100))"
  Xvfb "$disp" -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 &
  XVFB_PID=$!
  export DISPLAY="$disp"
  for _ in $(seq 50); do
    xdotool getmouselocation >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
