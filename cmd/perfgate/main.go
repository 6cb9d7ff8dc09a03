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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(int(code))
}
