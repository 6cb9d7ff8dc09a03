package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

func TestUnmeasured(t *testing.T) {
	cell := func(name string, valid ...bool) *result.Result {
		r := &result.Result{Workload: result.Workload{Cell: name}}
		for i, v := range valid {
			tr := result.Trial{Index: i, Valid: v}
			if !v {
				tr.InvalidReason = "3 of 24 requests failed"
			}
			r.Trials = append(r.Trials, tr)
		}
		return r
	}
	tests := []struct {
		name string
		rs   []*result.Result
		want []string // cells named; nil: no error
	}{
		{"all measured", []*result.Result{cell("a", true, false), cell("b", true)}, nil},
		{"no trials (cut short)", []*result.Result{cell("a")}, nil},
		{"one without a valid trial", []*result.Result{cell("a", true), cell("b", false, false)}, []string{"b"}},
		{"two", []*result.Result{cell("a", false), nil, cell("b", false, false)}, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Unmeasured(tt.rs)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Unmeasured = %v", err)
				}
				return
			}
			var ue *UnmeasuredError
			if !errors.As(err, &ue) || len(ue.Cells) != len(tt.want) {
				t.Fatalf("Unmeasured = %v", err)
			}
			for i, c := range ue.Cells {
				if c.Cell != tt.want[i] || c.Reason != "3 of 24 requests failed" {
					t.Errorf("cell %d = %+v", i, c)
				}
			}
			if !strings.Contains(err.Error(), "invalid_reason") || !strings.Contains(err.Error(), "none of its") {
				t.Errorf("message %q", err)
			}
		})
	}
}
