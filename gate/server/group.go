package server

import "context"

// groupKey carries the launched server's process group id in the context
// Supervise hands its callback, so per-trial hooks deep in the load
// generator (runner health) can tell the server's GPU processes from
// others without every caller passing the id along.
type groupKey struct{}

// Group returns the process group id (the pid) of the server Supervise
// launched, 0 when ctx does not come from Supervise (the server was given
// by URL).
func Group(ctx context.Context) int {
	g, _ := ctx.Value(groupKey{}).(int)
	return g
}

func withGroup(ctx context.Context, pgid int) context.Context {
	return context.WithValue(ctx, groupKey{}, pgid)
}
