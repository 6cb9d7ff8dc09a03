#!/usr/bin/env bash
# Checks the verdicts of selftest.yml's gate runs (passed in as env).
set -euo pipefail
fail=0
check() { # description, got, want
  if [[ "$2" == "$3" ]]; then
    echo "ok: $1 = $2"
  else
    echo "::error title=selftest::$1 = '$2', want '$3'"
    fail=1
  fi
}
check "bootstrap verdict (no baseline yet)" "${BOOTSTRAP:-}" invalid
check "unchanged candidate verdict" "${SAME:-}" pass
check "slowed candidate verdict" "${SLOWED:-}" regression
check "slowed candidate step outcome" "${SLOWED_OUTCOME:-}" failure
if [[ ! "${REGRESSED:-}" =~ (tpot|itl) ]]; then
  echo "::error title=selftest::regressed = '${REGRESSED:-}', want a tpot or itl metric"
  fail=1
else
  echo "ok: regressed = $REGRESSED"
fi
if [[ -z "${SAME_REPORT:-}" || ! -s "$SAME_REPORT" ]]; then
  echo "::error title=selftest::report-path '${SAME_REPORT:-}' is not a non-empty file"
  fail=1
fi
exit "$fail"
