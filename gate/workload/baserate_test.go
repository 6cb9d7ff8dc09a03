package workload

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

const shareSrc = "name: two\ndataset: {kind: random, input_tokens: 8, output_tokens: 4, seed: 3}\nload: {requests: 20, rate: 80%-of-saturation, concurrency: 8, burstiness: 2}\nwarmups: 2\nslo: {ttft_ms: 100}\n"

func shareManifest(t *testing.T, src string) *Manifest {
	t.Helper()
	f, err := Parse("two.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return ms[0]
}

// TestAtBaselineRateDiffersOnlyInRate: the manifest a share cell runs at
// the baseline's rate is the share manifest at that rate (what its own
// trials run when saturation puts them there), every request, warmup and
// setting unchanged; only the cell, hash, spec and the record of the rate
// differ, and the spec only in cell and rate.
func TestAtBaselineRateDiffersOnlyInRate(t *testing.T) {
	m := shareManifest(t, shareSrc)
	at, err := m.AtBaselineRate(32)
	if err != nil {
		t.Fatal(err)
	}
	same := *at
	same.Cell, same.Hash, same.Spec, same.BaselineRate = "", "", nil, nil
	want := *m.At(32, m.Concurrency)
	want.Cell, want.Hash, want.Spec = "", "", nil
	if !reflect.DeepEqual(same, want) {
		t.Error("the manifest at the baseline's rate differs from the share manifest at that rate in more than its identity")
	}
	if at.Rate != 32 || at.SaturationShare != 0 || at.Concurrency != 8 || at.Cell != "two@baseline-rate" {
		t.Errorf("rate %v share %v concurrency %d cell %q", at.Rate, at.SaturationShare, at.Concurrency, at.Cell)
	}
	if r := at.BaselineRate; r == nil || *r != (result.BaselineRate{Cell: "two", ShareHash: m.Hash, Share: 0.8, RateRPS: 32}) {
		t.Errorf("baseline rate %+v", r)
	}
	ss, err := result.Workload{Spec: m.Spec}.ParseSpec()
	if err != nil {
		t.Fatal(err)
	}
	as, err := result.Workload{Spec: at.Spec}.ParseSpec()
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := as.Shape(); !ok || l.Rate != 32 {
		t.Errorf("spec shape %+v %v, want rate 32", l, ok)
	}
	ss.Cell, ss.Load.Rate, ss.Load.SaturationShare = as.Cell, 32, 0
	if !reflect.DeepEqual(ss, as) {
		t.Errorf("spec at the rate %+v differs from the share spec %+v in more than cell and rate", as, ss)
	}
	// The share manifest is not changed.
	if m.SaturationShare != 0.8 || m.Cell != "two" || m.BaselineRate != nil {
		t.Error("AtBaselineRate changed the share manifest")
	}
}

// TestAtRateHash: the hash at a rate is a function of the share hash and
// the rate alone (both arms compute it apart), and changes with either.
func TestAtRateHash(t *testing.T) {
	m := shareManifest(t, shareSrc)
	at, _ := m.AtBaselineRate(32)
	if at.Hash != AtRateHash(m.Hash, 32) || at.Hash == m.Hash {
		t.Errorf("hash %s, want AtRateHash(share hash, 32), distinct from the share hash", at.Hash)
	}
	again := shareManifest(t, shareSrc)
	if a2, _ := again.AtBaselineRate(32); a2.Hash != at.Hash {
		t.Error("the same share workload at the same rate hashes differently")
	}
	other := shareManifest(t, strings.Replace(shareSrc, "seed: 3", "seed: 4", 1))
	o, _ := other.AtBaselineRate(32)
	for name, h := range map[string]string{"another rate": AtRateHash(m.Hash, 32.000001), "another share workload": o.Hash} {
		if h == at.Hash {
			t.Errorf("%s: same hash", name)
		}
	}
}

func TestAtBaselineRateRefuses(t *testing.T) {
	plain := shareManifest(t, strings.Replace(shareSrc, "80%-of-saturation", "4", 1))
	if _, err := plain.AtBaselineRate(32); err == nil || !strings.Contains(err.Error(), "not a share of saturation") {
		t.Errorf("fixed-rate cell: %v", err)
	}
	m := shareManifest(t, shareSrc)
	for _, r := range []float64{0, -1, MinRate / 2, math.Inf(1)} {
		if _, err := m.AtBaselineRate(r); err == nil {
			t.Errorf("rate %v accepted", r)
		}
	}
}
