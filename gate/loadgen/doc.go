// Package loadgen drives a workload manifest against an OpenAI-compatible
// streaming server and measures it the way `vllm bench serve` does, without
// that client's known flaws:
//
//   - one monotonic anchor per trial; every timestamp is an offset from it,
//     taken when bytes arrive and before any JSON parsing;
//   - an open-loop dispatcher with absolute deadlines (never cumulative
//     sleeps), each request in its own goroutine, the concurrency cap as a
//     semaphore, and latency also measured from the intended send time so
//     coordinated omission shows instead of hiding;
//   - one shared, keep-alive HTTP transport sized to the concurrency (a
//     fresh connection per request for an engine that closes connections
//     after streams), and a request whose kept-alive connection the
//     server had closed is sent again, counted (docs/run.md#connections);
//   - the client's own dispatch lag measured, so a saturated client
//     invalidates its trial instead of silently inflating TTFT.
//
// Requests are summarised into package metrics' accumulators as they
// finish, so memory does not hold per-request objects unless detailed
// records are asked for.
package loadgen
