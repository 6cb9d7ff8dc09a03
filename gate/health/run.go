package health

import (
	"context"
	"errors"
	"fmt"
)

// run runs a program through Run, scrubbing its output and error, unless
// it hung before in this run (ErrHung) or ctx has ended: an interrupted
// run starts no tool.
func (k *Hook) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k.mu.Lock()
	hung := k.hung[name]
	k.mu.Unlock()
	if hung != nil {
		return nil, hung
	}
	out, err := k.Run(ctx, name, args...)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		hung = fmt.Errorf("%s %w (%s), so it is not asked again in this run; "+
			"a wedged GPU driver does this: check the runner (nvidia-smi by hand, dmesg) and rerun",
			name, ErrHung, clip(oneLine(k.Scrub.String(err.Error()))))
		k.mu.Lock()
		if k.hung == nil {
			k.hung = map[string]error{}
		}
		k.hung[name] = hung
		k.mu.Unlock()
		return nil, hung
	}
	if len(out) > 0 {
		out = []byte(k.Scrub.String(string(out)))
	}
	return out, k.Scrub.Error(err)
}
