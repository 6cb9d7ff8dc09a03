# perfgate — build, test, lint, benchmark. `make help` lists targets.
GO        ?= go
BIN       ?= bin/perfgate
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/perfgate/perfgate/gate/cli.Version=$(VERSION)

.PHONY: help build test unit conformance lint vet fmt-check staticcheck bench fuzz demo actionlint act-selftest render-comment render-test e2e-ollama clean

help: ## list targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/perfgate
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/perfgate

test: lint unit conformance actionlint act-selftest render-test e2e-ollama ## everything CI runs

unit: ## the race-enabled Go test suite
	$(GO) test -race -count=1 -timeout 30m ./...

# The simulator against the official OpenAI Go client. A module of its own
# (gate/sim/conformance/go.mod), so vet and the race build of the main
# module never compile that 250k-line client; built once here, without -race.
conformance: ## the simulator against the official OpenAI Go client (own module, no -race)
	cd gate/sim/conformance && $(GO) vet ./... && $(GO) test -count=1 ./...

demo: ## see the gate catch a decode slowdown on the simulator (about 30 s)
	$(GO) run ./cmd/perfgate demo

actionlint: ## lint action.yml, every workflow and the workflows `perfgate init` writes (actionlint + shellcheck)
	bash .ci/actionlint.sh
	bash .ci/actionlint-init.sh

act-selftest: ## run the self-test workflow through action.yml with nektos/act against a fake GitHub API
	bash .ci/act-selftest.sh

render-comment: ## render the demo's, a 12-workload, an A/A and an inconclusive PR comment in headless Chromium to docs/img/*.png, with the checks of render-test
	GO=$(GO) bash .ci/render-comment.sh

render-test: ## the PR comment in Chromium: mermaid parses, chart labels do not overlap, tables fit 780 px without wrapping a number, verdict, list and what decides each undecided metric in the first 900 px, height within budget (skipped loudly without chromium when not root)
	GO=$(GO) bash .ci/render-comment.sh --test

e2e-ollama: ## a real engine: build ollama v0.17.4 from the Go module proxy (cached), gate it serving a random-weight GGUF model (docs/engines-testing.md)
	bash .ci/ollama.sh

lint: vet fmt-check staticcheck ## go vet, gofmt and staticcheck

# staticcheck comes through the module proxy at a pinned version (about
# 25 s of CPU over the module with a cold cache), so CI needs no install step.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck:
	$(GO) run $(STATICCHECK) ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench: ## Go benchmarks (speed and memory targets live here, not in unit tests)
	$(GO) test -run '^$$' -bench . -benchmem ./...

FUZZTIME ?= 30s
FUZZMINIMIZETIME ?= 5s
FUZZPKGS ?= ./...
fuzz: ## run each fuzz target for FUZZTIME (default 30s), minimizing for at most FUZZMINIMIZETIME; prints executions per target
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMINIMIZETIME=$(FUZZMINIMIZETIME) FUZZPKGS="$(FUZZPKGS)" bash .ci/fuzz.sh

clean:
	rm -rf bin
