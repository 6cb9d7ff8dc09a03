#!/usr/bin/env bash
# Lints every workflow (.github/workflows, examples/workflows) with actionlint,
# which also checks `uses: ./` steps against action.yml's inputs. With
# ShellCheck on PATH, actionlint runs it on every `run:` script and this
# script runs it on the helper scripts too. action.yml's own scripts are
# checked by internal/actioncheck (part of `make test`).
#
# actionlint comes from the Go module proxy at a pinned version.
set -euo pipefail
cd "$(dirname "$0")/.."
ACTIONLINT_VERSION=v1.7.12

if ! command -v shellcheck >/dev/null 2>&1 && [[ "${CI:-}" == true && "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  # CI machines are fresh: install shellcheck from the distribution.
  apt-get update -qq >/dev/null 2>&1 || true
  apt-get install -y -qq shellcheck >/dev/null 2>&1 || echo "actionlint.sh: could not install shellcheck; run scripts are linted without it"
fi
if command -v shellcheck >/dev/null 2>&1; then
  echo "actionlint.sh: shellcheck $(shellcheck --version | sed -n 's/^version: //p')"
else
  echo "actionlint.sh: shellcheck not found; run: scripts are not shell-linted"
fi

go run "github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}" -no-color \
  .github/workflows/*.yml examples/workflows/*.yml

if command -v shellcheck >/dev/null 2>&1; then
  shellcheck .ci/*.sh .github/selftest/*.sh
fi
echo "actionlint.sh: ok"
