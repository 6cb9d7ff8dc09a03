package result

import (
	"bytes"
	"testing"
)

// TestTrialStart: a trial's server start survives a round trip, and a
// result of one session (every file written before trials.restarts) has
// no "start" key at all, so its bytes and its reading are unchanged.
func TestTrialStart(t *testing.T) {
	one := sample()
	data, err := Marshal(one)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(`"start"`)) {
		t.Errorf("a one-session result carries a start key:\n%s", data)
	}
	two := sample()
	two.Trials = append(two.Trials, two.Trials[0])
	two.Trials[0].Start, two.Trials[1].Index, two.Trials[1].Start = 1, 1, 2
	data, err = Marshal(two)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Unmarshal("two.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Trials[0].Start != 1 || got.Trials[1].Start != 2 {
		t.Errorf("starts read back %d, %d; want 1, 2", got.Trials[0].Start, got.Trials[1].Start)
	}
}
