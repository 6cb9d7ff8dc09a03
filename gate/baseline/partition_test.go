package baseline

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestPartition(t *testing.T) {
	src := func(cell string, trials, invalid int, source string) Run {
		return Run{Source: source, Result: run(cell, trials, invalid)}
	}
	for _, tc := range []struct {
		name        string
		runs        []Run
		ok, skipped []string
	}{
		{"all pass", []Run{src("a", 5, 0, "a.json"), src("b", 5, 0, "b.json")}, []string{"a.json", "b.json"}, nil},
		{"one too few", []Run{src("a", 5, 0, "a.json"), src("b", 2, 0, "b.json")}, []string{"a.json"}, []string{"b.json"}},
		{"invalid share", []Run{src("a", 8, 3, "a.json"), src("b", 5, 0, "b.json")}, []string{"b.json"}, []string{"a.json"}},
		{"duplicate cell: both", []Run{src("a", 5, 0, "1.json"), src("a", 5, 0, "2.json"), src("b", 5, 0, "b.json")}, []string{"b.json"}, []string{"1.json", "2.json"}},
		{"none pass", []Run{src("a", 1, 0, "a.json")}, nil, []string{"a.json"}},
	} {
		ok, skipped := Partition(tc.runs, DefaultRequirements())
		var gotOK, gotSkip []string
		for _, r := range ok {
			gotOK = append(gotOK, r.Source)
		}
		for _, s := range skipped {
			gotSkip = append(gotSkip, s.Source)
			if s.Reason == nil || s.Cell == "" {
				t.Errorf("%s: skip %+v lacks its reason or cell", tc.name, s)
			}
		}
		if !reflect.DeepEqual(gotOK, tc.ok) || !reflect.DeepEqual(gotSkip, tc.skipped) {
			t.Errorf("%s: ok %v skipped %v, want %v %v", tc.name, gotOK, gotSkip, tc.ok, tc.skipped)
		}
	}
}

// TestWithout: runs a later screen skipped are dropped by source, the
// rest kept in order; SkipError names every skipped file.
func TestWithout(t *testing.T) {
	runs := []Run{{Source: "a.json"}, {Source: "b.json"}, {Source: "c.json"}}
	skipped := []Skip{{Source: "b.json", Cell: "b", Reason: errors.New("noisy")}}
	got := Without(runs, skipped)
	if len(got) != 2 || got[0].Source != "a.json" || got[1].Source != "c.json" {
		t.Errorf("Without = %v, want a.json and c.json", got)
	}
	if len(Without(runs, nil)) != 3 {
		t.Error("nothing skipped must keep every run")
	}
	if err := SkipError(skipped); err == nil || !strings.Contains(err.Error(), "b.json: noisy") {
		t.Errorf("SkipError = %v, want it to name b.json and its reason", err)
	}
	if SkipError(nil) != nil {
		t.Error("SkipError of nothing must be nil")
	}
}
