#!/usr/bin/env bash
# Runs .github/workflows/selftest.yml for real with nektos/act on this host
# (no Docker: -P ubuntu-latest=-self-hosted), twice, against a local fake
# GitHub API, and checks what a user would see:
#   - the unchanged candidate passes and the 1.3x slower one fails naming a
#     decode metric (checked inside the workflow by .github/selftest/check.sh);
#   - the fake API received exactly one created comment, edited afterwards,
#     and never an unauthenticated request;
#   - the second workflow run starts perfgate fast: every use of the action
#     logs "perfgate: start-up N ms (binary: ...)", measured by action.yml
#     from the start of its first step (locate: hashing the source, the
#     cache lookup) to the moment it starts `perfgate gate`, after the
#     cache restore and the output/profile look-up. In the second run the
#     binary must come from the cache, not a build, and each start-up must
#     be under 10 s. Not counted: act's own scheduling before the action's
#     first step.
#
# Offline notes: act skips actions/checkout for the local repository (it
# copies the work tree instead). It fetches every other remote action before
# the job starts, even one whose `if:` is false, so actions/setup-go (only
# used when Go is missing, never here) is mapped with --local-repository to a
# stand-in that fails loudly if it is ever run. actions/cache (restore and
# save) and actions/upload-artifact are mapped to stand-ins that keep the
# cache and the artifacts in directories of this script's work area, which
# outlive a workflow run: the second run restores what the first saved, as
# a warm hosted runner restores from the GitHub cache.
#
# Needs: go, git, curl, tar; the Go module proxy for the first `go install` of act.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ACT_VERSION=v0.2.89
TOKEN="ghs_actselftest$RANDOM$RANDOM"
REPO=perfgate/selftest

work="$(mktemp -d "${TMPDIR:-/tmp}/perfgate-act.XXXXXX")"
fake_pid=""
cleanup() {
  if [[ -n "$fake_pid" ]]; then kill "$fake_pid" 2>/dev/null || true; fi
  if [[ -f "$work/state/sim.pid" ]]; then kill "$(cat "$work/state/sim.pid")" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

bin="${PERFGATE_CI_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/perfgate-ci/bin}"
if [[ ! -x "$bin/act" ]] || ! "$bin/act" --version | grep -q "${ACT_VERSION#v}"; then
  echo "act-selftest: installing act $ACT_VERSION"
  GOBIN="$bin" go install "github.com/nektos/act@$ACT_VERSION"
fi

# A clean repository holding the work tree as it is (committed or not), with
# an origin that names the repository the fake API serves.
mkdir -p "$work/repo" "$work/state"
(
  cd "$root"
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do if [[ -e "$f" ]]; then printf '%s\0' "$f"; fi; done |
    xargs -0 tar -cf - --
) | tar -xf - -C "$work/repo"
(
  cd "$work/repo"
  git init -q
  git remote add origin "https://github.com/$REPO.git"
  git add -A
  git -c user.name=selftest -c user.email=selftest@example.invalid commit -qm "act selftest"
)

# The fake GitHub API.
(cd "$root" && go build -o "$work/fakegithub" ./internal/fakegithub/cmd/fakegithub)
"$work/fakegithub" -token "$TOKEN" -repo "$REPO" -url-file "$work/api-url" -timeout 30m >/dev/null 2>"$work/fakegithub.log" &
fake_pid=$!
for _ in $(seq 50); do [[ -s "$work/api-url" ]] && break; sleep 0.1; done
api="$(cat "$work/api-url")"
summary="${api%/api/v3}/_fake/summary"

# A pull_request event from a branch of the same repository, so the
# workflow turns comments on. Like every real pull_request event it names
# its base commit (here this checkout's HEAD), which the Action passes as
# --merge-base: without it the gate fails closed on baselines outside the
# checkout (issue 20).
cat >"$work/event.json" <<JSON
{
  "action": "synchronize",
  "number": 42,
  "pull_request": {
    "number": 42,
    "head": {"sha": "0000000000000000000000000000000000000042", "ref": "feature", "repo": {"full_name": "$REPO"}},
    "base": {"ref": "main", "sha": "$(git rev-parse HEAD)", "repo": {"full_name": "$REPO"}}
  },
  "repository": {"full_name": "$REPO", "name": "selftest", "owner": {"login": "perfgate"}}
}
JSON

mkdir -p "$work/setup-go-standin"
cat >"$work/setup-go-standin/action.yml" <<'YAML'
name: setup-go stand-in
description: Stands in for actions/setup-go under act offline; fails if it is ever run.
runs:
  using: composite
  steps:
    - shell: bash
      run: echo "::error::actions/setup-go cannot run offline; put Go on PATH" && exit 1
YAML

# actions/cache/{restore,save}@v4 stand-ins: one directory per key.
mkdir -p "$work/cache-standin/restore" "$work/cache-standin/save" "$work/cache" "$work/artifacts"
cat >"$work/cache-standin/restore/action.yml" <<'YAML'
name: cache restore stand-in
description: Restores path from $ACT_STANDIN_CACHE/<key> (exact key only), like actions/cache/restore.
inputs:
  path: {required: true}
  key: {required: true}
outputs:
  cache-hit:
    value: ${{ steps.r.outputs.hit }}
runs:
  using: composite
  steps:
    - id: r
      shell: bash
      env: {P: "${{ inputs.path }}", K: "${{ inputs.key }}"}
      run: |
        if [[ -d "$ACT_STANDIN_CACHE/$K" ]]; then
          mkdir -p "$P" && cp -a "$ACT_STANDIN_CACHE/$K/." "$P/" && echo "hit=true" >> "$GITHUB_OUTPUT"
          echo "cache stand-in: restored $K"
        else
          echo "hit=false" >> "$GITHUB_OUTPUT"
          echo "cache stand-in: miss $K"
        fi
YAML
cat >"$work/cache-standin/save/action.yml" <<'YAML'
name: cache save stand-in
description: Saves path to $ACT_STANDIN_CACHE/<key>, like actions/cache/save (a key is never overwritten).
inputs:
  path: {required: true}
  key: {required: true}
runs:
  using: composite
  steps:
    - shell: bash
      env: {P: "${{ inputs.path }}", K: "${{ inputs.key }}"}
      run: |
        if [[ ! -d "$ACT_STANDIN_CACHE/$K" ]]; then
          mkdir -p "$ACT_STANDIN_CACHE/$K" && cp -a "$P/." "$ACT_STANDIN_CACHE/$K/"
          echo "cache stand-in: saved $K"
        fi
YAML
mkdir -p "$work/upload-standin"
cat >"$work/upload-standin/action.yml" <<'YAML'
name: upload-artifact stand-in
description: Copies path to $ACT_STANDIN_ARTIFACTS/<name>, replacing an artifact of that name (overwrite true).
inputs:
  name: {required: true}
  path: {required: true}
  if-no-files-found: {default: warn}
  overwrite: {default: "false"}
runs:
  using: composite
  steps:
    - shell: bash
      env: {P: "${{ inputs.path }}", N: "${{ inputs.name }}"}
      run: |
        rm -rf "${ACT_STANDIN_ARTIFACTS:?}/$N" && mkdir -p "$ACT_STANDIN_ARTIFACTS/$N" && cp -a "$P/." "$ACT_STANDIN_ARTIFACTS/$N/"
        echo "upload stand-in: artifact $N from $P"
YAML

run_act() { # n
  echo "act-selftest: workflow run $1"
  (
    cd "$work/repo"
    "$bin/act" pull_request \
      -W .github/workflows/selftest.yml \
      -P ubuntu-latest=-self-hosted \
      -e "$work/event.json" \
      -s "GITHUB_TOKEN=$TOKEN" \
      --env "GITHUB_API_URL=$api" \
      --env "SIM_ADDR=127.0.0.1:0" \
      --env "SELFTEST_STATE=$work/state" \
      --env "ACT_STANDIN_CACHE=$work/cache" \
      --env "ACT_STANDIN_ARTIFACTS=$work/artifacts" \
      --local-repository "actions/setup-go@v5=$work/setup-go-standin" \
      --local-repository "actions/cache@v4=$work/cache-standin" \
      --local-repository "actions/upload-artifact@v4=$work/upload-standin"
  ) >"$work/act-$1.log" 2>&1 || {
    echo "act-selftest: workflow run $1 failed; last lines of its log:"
    tail -n 80 "$work/act-$1.log"
    [[ -f "$work/state/sim.log" ]] && { echo "--- simulator log"; tail -n 20 "$work/state/sim.log"; }
    return 1
  }
  grep -E '^\[.*\]   \| ok: ' "$work/act-$1.log" || true
  if grep -qF "$TOKEN" "$work/act-$1.log"; then
    echo "act-selftest: the token appears in the log of run $1"
    return 1
  fi
}

check_api() { # run, want_edited_at_least
  local created="" edited="" unauthorized="" comments="" marked="" first_line="" k v
  while IFS='=' read -r k v; do
    case "$k" in
      created) created="$v" ;; edited) edited="$v" ;; unauthorized) unauthorized="$v" ;;
      comments) comments="$v" ;; marked) marked="$v" ;; first_line) first_line="$v" ;;
    esac
  done < <(curl -fsS "$summary?format=env&marker=%3C%21--%20perfgate%3Aselftest%20--%3E")
  echo "act-selftest: after run $1: created=$created edited=$edited unauthorized=$unauthorized comments=$comments with-marker=$marked"
  if [[ "$created" != 1 || "$comments" != 1 || "$marked" != 1 || "$unauthorized" != 0 || "${edited:-0}" -lt "$2" ]]; then
    echo "act-selftest: want exactly 1 comment, created once, carrying <!-- perfgate:selftest -->, edited at least $2 times, no unauthorized requests"
    return 1
  fi
  # Each workflow run ends with the slowed candidate, so the comment a
  # reviewer sees must open with the regression.
  echo "act-selftest: comment first line: $first_line"
  if [[ "$first_line" != *egression* ]]; then
    echo "act-selftest: the comment's first line does not announce the regression"
    return 1
  fi
}

check_startup() { # run, want_warm
  local lines n=0 worst=0 ms from
  lines="$(grep -oE 'perfgate: start-up [0-9]+ ms \(binary: [^)]*\)' "$work/act-$1.log" || true)"
  while IFS= read -r line; do
    [[ -n "$line" ]] || continue
    ms="$(sed -E 's/.*start-up ([0-9]+) ms.*/\1/' <<<"$line")"
    from="$(sed -E 's/.*\(binary: ([^)]*)\)/\1/' <<<"$line")"
    n=$((n + 1))
    echo "act-selftest: run $1, gate step $n: start-up $ms ms, binary: $from"
    ((ms > worst)) && worst=$ms
    if [[ "$2" == warm ]]; then
      # The job's first gate step starts on a fresh RUNNER_TEMP, so its
      # binary must come through the cache; later steps reuse it.
      if [[ $n == 1 && "$from" != cache ]]; then
        echo "act-selftest: run $1's first gate step got its binary from '$from', want the cache"
        return 1
      fi
      if [[ "$from" == "built from source" ]]; then
        echo "act-selftest: run $1 built perfgate again; the cache did not serve it"
        return 1
      fi
      if ((ms >= 10000)); then
        echo "act-selftest: start-up $ms ms in run $1, want under 10 s on a warm runner"
        return 1
      fi
    fi
  done <<<"$lines"
  if ((n < 3)); then
    echo "act-selftest: run $1 logged $n start-up lines, want one per gate step (3)"
    return 1
  fi
  echo "act-selftest: run $1: slowest start-up $worst ms over $n gate steps"
  # act's own clock on the whole step, trials included: an upper bound on
  # the start-up that includes act's scheduling too.
  local whole
  whole="$(grep -oE 'Success - Main Gate the unchanged candidate \[[^]]*\]' "$work/act-$1.log" | grep -oE '\[[^]]*\]' || true)"
  echo "act-selftest: run $1: act timed the whole 'Gate the unchanged candidate' step, start-up and trials, at ${whole:-?}"
}

check_artifact() { # run
  if [[ ! -s "$work/artifacts/perfgate-selftest/comparison.json" || ! -s "$work/artifacts/perfgate-selftest/report.md" ]]; then
    echo "act-selftest: run $1 uploaded no perfgate-selftest artifact with comparison.json and report.md"
    ls -R "$work/artifacts" || true
    return 1
  fi
  echo "act-selftest: run $1 uploaded artifact perfgate-selftest"
}

run_act 1
check_api 1 1 # the slowed run edits the comment the unchanged run created
check_startup 1 cold
check_artifact 1
run_act 2
check_api 2 3
check_startup 2 warm
check_artifact 2
echo "act-selftest: ok"
