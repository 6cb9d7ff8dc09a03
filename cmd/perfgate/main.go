// Command perfgate is a performance regression gate for LLM serving engines
// that speak the OpenAI HTTP API. All behaviour lives in gate/cli; main only
// wires the process (arguments, standard streams, signals) to it and turns the
// result into an exit code.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/perfgate/perfgate/gate/cli"
)

func main() {
	// The first Ctrl-C (or SIGTERM) cancels ctx: commands stop dispatching,
	// let in-flight requests finish within a grace period and write partial
	// results (gate: within the 7.5 s a CI runner waits before SIGTERM).
	// Restoring the default handler right then lets a second signal kill
	// the process at once; a server perfgate launched dies with it (its
	// parent-death signal, see gate/server).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cli.Main(ctx, os.Args[1:], cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(int(code))
}
