# perfgate — build, test, lint, benchmark. `make help` lists targets.
GO        ?= go
BIN       ?= bin/perfgate
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/perfgate/perfgate/gate/cli.Version=$(VERSION)

.PHONY: help build test lint vet fmt-check bench fuzz demo clean

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/perfgate
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/perfgate

test: lint ## vet, gofmt check, and the race-enabled test suite (what CI runs)
	$(GO) test -race -count=1 ./...

lint: vet fmt-check ## go vet and gofmt

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench: ## Go benchmarks (speed and memory targets live here, not in unit tests)
	$(GO) test -run '^$$' -bench . -benchmem ./...

FUZZTIME ?= 30s
fuzz: ## run each fuzz target for FUZZTIME (default 30s)
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin
