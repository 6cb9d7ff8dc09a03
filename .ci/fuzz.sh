#!/usr/bin/env bash
# Runs every fuzz target of the main module for FUZZTIME each and prints a
# table of executions per target at the end.
#
# -fuzzminimizetime is the point: Go's default (60s per minimization) lets one
# interesting input eat a whole 30s -fuzztime in minimization, so a target
# "ran" for its time but executed almost nothing. A few seconds of
# minimization still shrinks a crasher enough to read.
set -euo pipefail
cd "$(dirname "$0")/.."
GO="${GO:-go}"
FUZZTIME="${FUZZTIME:-30s}"
FUZZMINIMIZETIME="${FUZZMINIMIZETIME:-5s}"
# FUZZPKGS narrows the run, e.g. FUZZPKGS=./gate/workload.
read -r -a pkgs <<<"${FUZZPKGS:-./...}"
log="$(mktemp "${TMPDIR:-/tmp}/perfgate-fuzz.XXXXXX")"
trap 'rm -f "$log"' EXIT
summary=()
for pkg in $("$GO" list "${pkgs[@]}"); do
  for f in $("$GO" test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "== $pkg $f"
    if ! "$GO" test -run '^$' -fuzz "^$f\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" "$pkg" 2>&1 | tee "$log"; then
      echo "fuzz: $pkg $f failed (the failing input is under testdata/fuzz/$f)" >&2
      exit 1
    fi
    # The last progress line holds the total: "fuzz: elapsed: 30s, execs: 123456 (4115/sec), ...".
    execs="$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
    summary+=("$(printf '%12s  %s %s' "${execs:-?}" "${pkg#github.com/perfgate/perfgate/}" "$f")")
  done
done
echo
echo "executions per target (fuzztime $FUZZTIME, minimize $FUZZMINIMIZETIME):"
printf '%s\n' "${summary[@]}"
