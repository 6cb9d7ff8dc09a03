// Package ollamae2e holds the end-to-end test of perfgate against a real
// inference engine: ollama, built from the Go module proxy by .ci/ollama.sh,
// serving a random-weight model that internal/ggufgen writes. The test is
// skipped unless PERFGATE_OLLAMA names the ollama binary (make e2e-ollama).
package ollamae2e
