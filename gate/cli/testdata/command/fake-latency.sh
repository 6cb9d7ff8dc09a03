#!/bin/sh
# A fake `vllm bench latency --output-json OUT` for the kind: command tests:
# $1 is the output path, $2 the trial index. The batch latency is 1.2 s
# times FAKE_LATENCY_SCALE (default 1), with a deterministic +-2 % spread
# over the trials so the verdict sees some noise.
out=$1
trial=$2
scale=${FAKE_LATENCY_SCALE:-1}
echo "INFO: fake vllm bench latency, trial $trial"
awk -v s="$scale" -v t="$trial" 'BEGIN {
  avg = 1.2 * s * (1 + ((t * 7) % 5 - 2) * 0.01)
  printf "{\"avg_latency\": %.6f, \"latencies\": [%.6f], \"percentiles\": {\"10\": %.6f, \"25\": %.6f, \"50\": %.6f, \"75\": %.6f, \"90\": %.6f, \"99\": %.6f}}\n",
    avg, avg, avg * 0.9, avg * 0.95, avg, avg * 1.05, avg * 1.1, avg * 1.2
}' > "$out"
echo "Avg latency: done"
