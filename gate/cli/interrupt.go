package cli

import "time"

// gateGrace is how long requests in flight may finish after the first
// SIGINT or SIGTERM in `perfgate gate` before they are cut off and the
// partial results written (exit 3). A cancelled GitHub Actions job gets
// SIGINT, SIGTERM 7.5 s later and SIGKILL 2.5 s after that: the grace,
// the interrupted trial's metrics scrape (at most 1 s), a launched
// server's stop (server.InterruptStopGrace, twice at most: the leader and
// what survives it) and the writing must fit in the 7.5 s. `perfgate run`
// takes its grace from --grace.
const gateGrace = 4 * time.Second
