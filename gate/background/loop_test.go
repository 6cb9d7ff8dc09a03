package background

import (
	"context"
	"testing"
)

type key struct{}

// TestLoop checks the three promises hooks rely on: cancelling the
// trial's context does not end the goroutine, Halt does and returns only
// after it has, and the goroutine sees the trial context's values.
func TestLoop(t *testing.T) {
	var l Loop
	l.Halt() // nothing running: returns at once

	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "trial 3"))
	started := make(chan context.Context)
	finished := false
	l.Start(ctx, func(ctx context.Context) {
		started <- ctx
		<-ctx.Done()
		finished = true // read after Halt: Halt must wait for this write
	})
	gctx := <-started
	if v, _ := gctx.Value(key{}).(string); v != "trial 3" {
		t.Errorf("value in the goroutine = %q, want the trial context's", v)
	}
	cancel()
	if gctx.Err() != nil {
		t.Error("cancelling the trial's context ended the goroutine's")
	}
	l.Halt()
	if !finished {
		t.Error("Halt returned before the goroutine did")
	}
	l.Halt() // halted already: returns at once

	// A Loop starts again after Halt.
	ran := make(chan struct{})
	l.Start(context.Background(), func(context.Context) { close(ran) })
	<-ran
	l.Halt()
}
