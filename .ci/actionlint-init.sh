#!/usr/bin/env bash
# Lints the workflows `perfgate init` writes (gate/bootstrap.RenderWorkflow
# over the embedded examples, for a stored-baseline and an A/B PR check)
# with the same actionlint, configuration and ShellCheck as actionlint.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ACTIONLINT_VERSION=v1.7.12
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
INIT_WORKFLOWS_OUT="$out" go test ./gate/bootstrap/ -run '^TestRenderWorkflow$' -count=1 >/dev/null
files=("$out"/stored/*.yml "$out"/ab/*.yml)
go run "github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}" -no-color \
  -config-file .github/actionlint.yaml "${files[@]}"
echo "actionlint-init.sh: ok (${#files[@]} workflows)"
