package trust

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/history"
)

func sha(c byte) string { return strings.Repeat(string(c), 40) }

func TestPickSession(t *testing.T) {
	c := &history.Cell{Sessions: []history.Session{{Commit: sha('a')}, {Commit: sha('b')}, {Commit: sha('c')}}}
	ancestors := map[string]bool{sha('a'): true, sha('b'): true}
	isAnc := func(s string) bool { return ancestors[s] }
	for _, tc := range []struct {
		mergeBase string
		at        int
		how       string
	}{
		{"", 2, PickedNewest},
		{sha('b'), 1, PickedExact},
		{sha('b')[:7], 1, PickedExact},
		{sha('e'), 1, PickedAncestor}, // b is the newest entry main had when e branched off
	} {
		if at, how := PickSession(c, tc.mergeBase, isAnc); at != tc.at || how != tc.how {
			t.Errorf("merge base %q: session %d (%s), want %d (%s)", tc.mergeBase, at, how, tc.at, tc.how)
		}
	}
	if at, how := PickSession(c, sha('e'), func(string) bool { return false }); at != 2 || how != PickedNewest {
		t.Errorf("no ancestor known: %d %s", at, how)
	}
}

func TestUnderReview(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, true}, // a local run: a branch may have edited its baselines
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request"}, true},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request_target"}, true},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "merge_group"}, true},
		{map[string]string{"GITHUB_ACTIONS": "true"}, true},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push"}, false},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "schedule"}, false},
	} {
		if got := UnderReview(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.env, got, tc.want)
		}
	}
}
