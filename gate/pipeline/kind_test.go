package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

func TestByKindRoutes(t *testing.T) {
	serving, cmd := newFake(1), newFake(2)
	b := ByKind{Serving: serving, Command: cmd}
	sm := &workload.Manifest{Name: "s", Cell: "s"}
	cm := &workload.Manifest{Name: "c", Cell: "c", Kind: workload.KindCommand, Command: &workload.Command{Argv: []string{"x", "{out}"}}}
	for _, m := range []*workload.Manifest{sm, cm} {
		srv, err := b.Prepare(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.RunTrials(context.Background(), m, b.NewResult(m, srv), 2); err != nil {
			t.Fatal(err)
		}
	}
	if len(serving.calls["s"]) != 1 || len(serving.calls["c"]) != 0 || len(cmd.calls["c"]) != 1 || len(cmd.calls["s"]) != 0 {
		t.Errorf("serving calls %v, command calls %v", serving.calls, cmd.calls)
	}

	for _, tt := range []struct {
		b    ByKind
		m    *workload.Manifest
		want string
	}{
		{ByKind{Command: cmd}, sm, "needs a server"},
		{ByKind{Serving: serving}, cm, "cannot run here"},
	} {
		_, err := tt.b.Prepare(context.Background(), tt.m)
		res := tt.b.NewResult(tt.m, result.Server{})
		rerr := tt.b.RunTrials(context.Background(), tt.m, res, 1)
		if err == nil || !strings.Contains(err.Error(), tt.want) || rerr == nil || res.Complete {
			t.Errorf("%s: prepare %v, run %v, complete %v; want errors naming %q", tt.m.Cell, err, rerr, res.Complete, tt.want)
		}
	}
}
