#!/usr/bin/env bash
# Renders perfgate's PR comment as GitHub shows it and checks what a reader
# sees (.ci/render/render.mjs): the demo's comment and a 12-workload
# regression (go run ./internal/commentgen), in headless Chromium from
# Debian with the markdown renderer, GitHub's stylesheet and mermaid pinned
# in .ci/render/package-lock.json. It fails when a mermaid block does not
# parse, when chart labels overlap, when text bars are out of scale, or
# when the page above the first collapsed <details> is taller than the
# budget.
#
#   bash .ci/render-comment.sh          screenshots to docs/img/ (make render-comment)
#   bash .ci/render-comment.sh --test   screenshots to a temporary directory (make render-test)
#
# As root (or in CI with password-less sudo) it installs what is missing:
# chromium, fonts, node and npm from apt; the npm packages always go into
# PERFGATE_RENDER_CACHE (default ~/.cache/perfgate-render). Without root
# and with chromium or node missing, --test skips with a loud message and
# the screenshot run fails. CHROMIUM names another browser binary.
#
# Budgets (px above the first collapsed <details> at GitHub's 780 px
# comment width): RENDER_BUDGET_DEMO, RENDER_BUDGET_12, and
# RENDER_BUDGET_UNDECIDED for the A/A and inconclusive comments.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

mode="shots"
case "${1:-}" in
--test) mode="test" ;;
"") ;;
*) echo "render-comment: unknown argument $1 (want --test or nothing)" >&2; exit 2 ;;
esac

# Budgets above the first collapsed <details>. Since issue 23 the list of
# regressed metrics shows its 8 most severe rows (the barred ones) and
# collapses the rest, so the height no longer grows with the number of
# regressed metrics: the 12-workload comment (22 regressed) measured
# 564 px, the demo's 628 px with its not-compared warning (before: 1,792
# and 1,158 to 2,263 px, every list row wrapping to two lines).
budget_demo=${RENDER_BUDGET_DEMO:-1100}
budget_12=${RENDER_BUDGET_12:-900}
# An undecided comment (A/A, inconclusive) must show its verdict, the
# ordered list and what would decide each undecided metric in the first
# screen: 900 px (issue 23).
budget_undecided=${RENDER_BUDGET_UNDECIDED:-900}
# The first screen (issue 23): the demo's, the A/A and the inconclusive
# comment show the verdict, the ordered list and what decides each
# undecided metric within it.
screen=${RENDER_FIRST_SCREEN:-900}
cache=${PERFGATE_RENDER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perfgate-render}
GO=${GO:-go}

find_chromium() {
	if [ -n "${CHROMIUM:-}" ]; then
		if [ -x "$CHROMIUM" ]; then echo "$CHROMIUM"; fi
		return
	fi
	command -v chromium || command -v chromium-browser || command -v google-chrome || true
}

# missing lists the tools this host lacks.
missing() {
	local m=()
	[ -n "$(find_chromium)" ] || m+=(chromium)
	command -v node >/dev/null || m+=(node)
	command -v npm >/dev/null || m+=(npm)
	echo "${m[@]:-}"
}

# as_root runs a command as root: directly when root, through sudo without
# a password in CI (GitHub's runners), else not at all.
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif [ "${CI:-}" = true ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo -n "$@"
	else
		return 1
	fi
}

# fonts_missing says whether the fonts GitHub's page falls back to here
# (Arial's metrics, colour emoji) are absent: without them the page is
# measured in other fonts and emoji show as boxes.
fonts_missing() {
	! fc-list 2>/dev/null | grep -q 'Liberation Sans' || ! fc-list 2>/dev/null | grep -q 'Noto Color Emoji'
}

need=$(missing)
if [ -z "$need" ] && fonts_missing; then
	if command -v apt-get >/dev/null && as_root true; then
		need=fonts
	else
		echo "render-comment: note: fonts-liberation or fonts-noto-color-emoji missing; heights are measured in other fonts"
	fi
fi
if [ -n "$need" ]; then
	if command -v apt-get >/dev/null && as_root true; then
		echo "render-comment: installing $need from apt"
		pkgs=(fonts-liberation fonts-noto-color-emoji)
		case " $need " in *" chromium "*) pkgs+=(chromium) ;; esac
		case " $need " in *" node "* | *" npm "*) pkgs+=(nodejs npm) ;; esac
		as_root apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
	elif [ "$mode" = test ]; then
		echo "################################################################"
		echo "render-comment: SKIPPED: $need missing and not root to install it"
		echo "(apt-get install chromium fonts-liberation fonts-noto-color-emoji nodejs npm)."
		echo "The rendered PR comment was NOT checked."
		echo "################################################################"
		exit 0
	else
		echo "render-comment: $need missing; install chromium fonts-liberation fonts-noto-color-emoji nodejs npm (Debian packages)" >&2
		exit 1
	fi
fi
chromium=$(find_chromium)

# The npm packages, pinned by the lock file, into the cache; reinstalled
# only when the lock file changes.
mkdir -p "$cache"
if ! cmp -s .ci/render/package-lock.json "$cache/package-lock.json" || [ ! -d "$cache/node_modules" ]; then
	echo "render-comment: npm ci into $cache"
	cp .ci/render/package.json .ci/render/package-lock.json "$cache/"
	npm ci --prefix "$cache" --no-audit --no-fund --loglevel=error >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-render.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ "$mode" = test ]; then
	img=$work/img
else
	img=docs/img
fi

echo "render-comment: the demo (about 30 s), a 12-workload regression, an A/A and an inconclusive comment"
$GO build -o "$work/perfgate" ./cmd/perfgate
"$work/perfgate" demo --out "$work/demo" >"$work/demo.log" 2>&1 || {
	echo "render-comment: perfgate demo failed:" >&2
	tail -20 "$work/demo.log" >&2
	exit 1
}
demo_md=$(sed -n 's/^The PR comment perfgate would post: //p' "$work/demo.log")
if [ ! -f "$demo_md" ]; then
	echo "render-comment: perfgate demo did not say where comment.md is (got \"$demo_md\")" >&2
	exit 1
fi
$GO build -o "$work/commentgen" ./internal/commentgen
"$work/commentgen" -workloads 12 -history 8 -o "$work/comment-12.md" >/dev/null
"$work/commentgen" -workloads 4 -scenario aa -o "$work/comment-aa.md" >/dev/null
"$work/commentgen" -workloads 4 -scenario inconclusive -o "$work/comment-inconclusive.md" >/dev/null

node .ci/render/render.mjs --modules "$cache" --chromium "$chromium" --html-dir "$work/html" \
	"demo=$demo_md,$img/comment-demo.png,$budget_demo,$screen" \
	"12-workloads=$work/comment-12.md,$img/comment-12.png,$budget_12,$screen" \
	"aa=$work/comment-aa.md,$img/comment-aa.png,$budget_undecided,$screen" \
	"inconclusive=$work/comment-inconclusive.md,$img/comment-inconclusive.png,$budget_undecided,$screen"
echo "render-comment: ok in $((SECONDS - start)) s"
