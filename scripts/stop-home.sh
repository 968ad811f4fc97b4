# Sourced by the scripts that run a throwaway Reprise home. stop_home DIR
# kills every process whose environment has REPRISE_HOME=DIR — the app, the
# daemon, the panes' shells, agents and the hooks they run — and waits until
# none is left, so nothing writes into DIR while it is removed. (A daemon
# killed with -9 leaves its shells running; they and a fake agent kept
# writing into the home and made `rm -rf` fail.) Returns 1 if some survive.
stop_home() {
  local dir="$1" p round pids=()
  # Commands this function runs must not match: they would inherit it.
  unset REPRISE_HOME
  for round in $(seq 100); do
    pids=()
    for p in /proc/[0-9]*; do
      p="${p#/proc/}"
      [ "$p" = "$$" ] && continue
      grep -qzxF "REPRISE_HOME=$dir" "/proc/$p/environ" 2>/dev/null && pids+=("$p")
    done
    [ "${#pids[@]}" -eq 0 ] && return 0
    kill -9 "${pids[@]}" 2>/dev/null || true
    sleep 0.1
  done
  echo "stop_home: still running in $dir after 100 rounds: ${pids[*]}" >&2
  return 1
}
