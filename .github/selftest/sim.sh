#!/usr/bin/env bash
# Starts, restarts or stops the simulator for selftest.yml.
#   sim.sh start [sim flags...]    build perfgate, start `perfgate sim`, export SIM_URL
#   sim.sh restart [sim flags...]  stop, then start with the given flags
#   sim.sh stop
# SIM_ADDR (default 127.0.0.1:8000; 127.0.0.1:0 for any free port) and
# SELFTEST_STATE (where the binary, pid and log live) let .ci/act-selftest.sh
# run this on a shared machine and clean up after it.
set -euo pipefail
cd "$(dirname "$0")/../.."
state="${SELFTEST_STATE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/perfgate-selftest}"
mkdir -p "$state"
addr="${SIM_ADDR:-127.0.0.1:8000}"

stop() {
  if [[ -f "$state/sim.pid" ]]; then
    pid="$(cat "$state/sim.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$state/sim.pid"
  fi
}

start() {
  if [[ ! -x "$state/perfgate" ]]; then
    go build -o "$state/perfgate" ./cmd/perfgate
  fi
  # setsid: the simulator outlives this step (as a background service would)
  # and does not hold the step's output pipe open.
  setsid "$state/perfgate" sim --addr "$addr" "$@" >"$state/sim.out" 2>"$state/sim.log" </dev/null &
  echo $! >"$state/sim.pid"
  # The simulator prints its base URL as the first line of its stdout.
  for _ in $(seq 100); do
    url="$(head -n 1 "$state/sim.out" 2>/dev/null || true)"
    if [[ "$url" == http://* ]] && curl -fsS "$url/v1/models" >/dev/null 2>&1; then
      echo "SIM_URL=$url" >>"${GITHUB_ENV:-/dev/null}"
      echo "simulator ready at $url ($*)"
      return 0
    fi
    sleep 0.1
  done
  echo "::error title=selftest::simulator did not become ready on $addr"
  cat "$state/sim.log"
  exit 1
}

cmd="${1:-}"
shift || true
case "$cmd" in
  start) start "$@" ;;
  restart) stop; start "$@" ;;
  stop) stop ;;
  *) echo "usage: sim.sh start|restart|stop [sim flags]" >&2; exit 2 ;;
esac
