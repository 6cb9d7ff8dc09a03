#!/usr/bin/env bash
# Builds ollama from the Go module proxy (CPU only) and runs perfgate's
# end-to-end test against it: a real engine in CI, with a random-weight
# model the test writes itself (internal/ggufgen), so nothing but Go
# modules and two Debian packages is downloaded.
#
# The binary is cached under $PERFGATE_CACHE (default ~/.cache/perfgate),
# keyed by the ollama and miniaudio versions, so only the first run pays
# for the build (about 4 minutes on 2 cores). Nothing fetched here is
# committed: the module zip omits llama.cpp's vendor/ directory, so its
# headers come from Debian (nlohmann-json3-dev, libstb-dev) and from the
# Go module github.com/gen2brain/malgo (miniaudio.h).
#
#   .ci/ollama.sh            build (or reuse) the binary, run the e2e test
#   .ci/ollama.sh --build    only build; print the binary's path
set -euo pipefail
cd "$(dirname "$0")/.."

OLLAMA_VERSION=0.17.4
MALGO_VERSION=v0.11.24
cache=${PERFGATE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/perfgate}
dir=$cache/ollama-v$OLLAMA_VERSION-malgo-$MALGO_VERSION
bin=$dir/ollama

need_headers() {
	local missing=()
	[ -f /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
	[ -f /usr/include/stb/stb_image.h ] || missing+=(libstb-dev)
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "ollama.sh: the build needs ${missing[*]} (apt-get install ${missing[*]}); not root, so not installing" >&2
		return 1
	fi
	echo "ollama.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
		{ apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
}

build() {
	need_headers
	local work
	work=$(mktemp -d)
	trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' RETURN
	# Outside any module, so the download touches no go.mod.
	local src malgo
	src=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/ollama/ollama@v$OLLAMA_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	malgo=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/gen2brain/malgo@$MALGO_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	if [ ! -d "$src" ] || [ ! -f "$malgo/miniaudio.h" ]; then
		echo "ollama.sh: go mod download gave no source ($src, $malgo)" >&2
		return 1
	fi
	mkdir -p "$work/include/miniaudio"
	cp "$malgo/miniaudio.h" "$work/include/miniaudio/"
	cp -r "$src" "$work/src"
	chmod -R u+w "$work/src"
	mkdir -p "$dir"
	local start=$SECONDS
	echo "ollama.sh: building ollama v$OLLAMA_VERSION (CPU only; a few minutes cold)" >&2
	(cd "$work/src" && CGO_ENABLED=1 CGO_CPPFLAGS="-I$work/include" GOFLAGS=-mod=mod \
		go build -trimpath -ldflags "-X github.com/ollama/ollama/version.Version=$OLLAMA_VERSION" -o "$bin.tmp" .)
	mv "$bin.tmp" "$bin"
	echo "ollama.sh: built $bin in $((SECONDS - start)) s" >&2
}

# The build writes $bin.tmp and renames it, so a binary there is complete.
if [ -x "$bin" ]; then
	echo "ollama.sh: cached $bin" >&2
else
	build
fi
if [ "${1:-}" = --build ]; then
	echo "$bin"
	exit 0
fi
start=$SECONDS
PERFGATE_OLLAMA=$bin go test -count=1 -timeout 15m -run 'TestOllama' -v ./internal/ollamae2e
echo "ollama.sh: e2e test took $((SECONDS - start)) s" >&2
