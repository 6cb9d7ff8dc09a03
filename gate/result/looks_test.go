package result

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLooksRoundTrip: a result judged at look 2 of 3 keeps its looks
// through a write and a read, and a file without the field (older files,
// perfgate run) still reads, with nil looks.
func TestLooksRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	want := sample()
	want.Looks = &Looks{Index: 2, Max: 3}
	want.Trials = append(want.Trials, Trial{Index: 1, Valid: true, Look: 1, Values: map[string]float64{"ttft_ms.p99": 13}})
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"looks": {`) {
		t.Fatalf("looks not written:\n%s", data)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Looks, want.Looks) || got.Trials[1].Look != 1 {
		t.Errorf("looks %+v, trial look %d; want %+v and 1", got.Looks, got.Trials[1].Look, want.Looks)
	}

	old, _ := Marshal(sample())
	if strings.Contains(string(old), "looks") {
		t.Fatalf("a result without looks writes the key:\n%s", old)
	}
	r, err := Unmarshal("old.json", old)
	if err != nil || r.Looks != nil {
		t.Errorf("a file without looks: %+v, %v", r.Looks, err)
	}

	for _, bad := range []string{`{"index": 0, "max": 3}`, `{"index": 4, "max": 3}`} {
		data := strings.Replace(string(old), `"trials": [`, `"looks": `+bad+`, "trials": [`, 1)
		if _, err := Unmarshal("bad.json", []byte(data)); err == nil || !strings.Contains(err.Error(), "looks") {
			t.Errorf("looks %s accepted (%v)", bad, err)
		}
	}
}

func TestLooksCombine(t *testing.T) {
	cases := []struct {
		a, b, want *Looks
	}{
		{nil, nil, nil},
		{&Looks{1, 3}, nil, &Looks{1, 3}},
		{nil, &Looks{2, 3}, &Looks{2, 3}},
		{&Looks{2, 3}, &Looks{1, 1}, &Looks{2, 3}},
		{&Looks{1, 2}, &Looks{1, 3}, &Looks{1, 3}},
	}
	for _, c := range cases {
		if got := c.a.Combine(c.b); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v.Combine(%+v) = %+v, want %+v", c.a, c.b, got, c.want)
		}
	}
}
