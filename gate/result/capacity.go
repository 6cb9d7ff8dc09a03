package result

import (
	"encoding/json"
	"fmt"
)

// KindCapacity is a workload that searches for the largest load at which
// its SLO holds (`kind: capacity`); each trial is one search.
const KindCapacity = "capacity"

// Capacity search axes: the offered request rate or the concurrency cap.
const (
	OverRate        = "rate"
	OverConcurrency = "concurrency"
)

// CapacitySpec is a capacity cell's search settings, as its spec records
// them: the share of requests that must meet the SLO, the axis searched,
// the probe budget (the saturation probe included) and the relative width
// of the bracket at which the search stops. MaxConcurrency is the top of
// the bracket of a concurrency search.
type CapacitySpec struct {
	GoodputShare   float64 `json:"goodput_share"`
	Over           string  `json:"over"`
	MaxProbes      int     `json:"max_probes"`
	Resolution     float64 `json:"resolution"`
	MaxConcurrency int     `json:"max_concurrency,omitempty"`
}

// Capacity is what one capacity search (one trial of a capacity cell)
// found. Capacity is the estimate of the load at which the goodput share
// crosses Target; Low and High bound it by the probes' binomial
// uncertainty: Low is the largest load probed whose share was surely at
// or above the target (0 when none was), High the smallest load probed
// whose share was surely below it (0 when none was: the search then has
// no upper bound from the probes).
type Capacity struct {
	Over   string  `json:"over"`
	Target float64 `json:"goodput_share"`
	// Capacity is in req/s (over rate) or requests in flight (over
	// concurrency).
	Capacity float64 `json:"capacity"`
	Low      float64 `json:"low"`
	High     float64 `json:"high,omitempty"`
	// Saturation is the request throughput of the unlimited-rate probe,
	// in req/s.
	Saturation float64 `json:"saturation_throughput"`
	// Converged is false when the probe budget ran out before the
	// bracket narrowed to the resolution.
	Converged bool `json:"converged"`
	// Probes are every probe in the order it ran, the saturation probe
	// first.
	Probes   []Probe  `json:"probes"`
	Warnings []string `json:"warnings,omitempty"`
}

// Probe is one short measured run of a capacity search.
type Probe struct {
	// Load is the rate (req/s) or concurrency probed; Unlimited marks the
	// saturation probe (rate inf, no concurrency cap), whose Load is 0.
	Load      float64 `json:"load"`
	Unlimited bool    `json:"unlimited,omitempty"`
	// Good of Total requests succeeded and met every SLO.
	Good  int `json:"good"`
	Total int `json:"total"`
	// Share is Good/Total; ShareLow and ShareHigh its 95 % Wilson
	// interval.
	Share     float64 `json:"share"`
	ShareLow  float64 `json:"share_low"`
	ShareHigh float64 `json:"share_high"`
	// Pass reports Share >= the target.
	Pass bool `json:"pass"`
	// Throughput is completed requests per second of the probe.
	Throughput float64 `json:"throughput"`
	// Latency holds the probe's latency percentiles by metric id
	// (ttft_ms.p99, tpot_ms.p99, e2el_ms.p99), in ms.
	Latency map[string]float64 `json:"latency,omitempty"`
	// Invalid is the probe trial's invalid reason, when it had one.
	Invalid string `json:"invalid,omitempty"`
}

// Saturation records the two-step protocol of a serving cell whose rate is
// a share of saturation (`load.rate: 80%-of-saturation`): the request
// throughput an unlimited-rate run measured, and the absolute rate the
// trials then ran at (Share x ThroughputRPS).
type Saturation struct {
	Share         float64 `json:"share"`
	ThroughputRPS float64 `json:"throughput_rps"`
	RateRPS       float64 `json:"rate_rps"`
	// Requests and DurationS describe the saturation run.
	Requests  int     `json:"requests"`
	DurationS float64 `json:"duration_s"`
}

// BaselineRateSuffix ends the cell name of a share-of-saturation cell's
// second comparison: the candidate run at the absolute rate the
// baseline's trials ran at (Saturation.RateRPS), compared with those
// trials. The share cell asks whether the knee moved (each arm at its own
// share of its own saturation); this one asks what latency the load
// production sees gets. "@" follows the cell qualifiers of a sweep
// (name@c16) and is safe in file names.
const BaselineRateSuffix = "@baseline-rate"

// BaselineRateCell is the name of share cell's comparison at the
// baseline's absolute rate.
func BaselineRateCell(cell string) string { return cell + BaselineRateSuffix }

// BaselineRate marks a result of a comparison at the baseline's absolute
// rate, on both arms: the candidate's trials run at RateRPS, and the
// baseline side, which perfgate builds from the share cell's baseline
// trials each time it compares (it is never stored as a baseline of its
// own). Cell and ShareHash name the share-of-saturation cell the rate
// came from; the result's own workload hash is derived from ShareHash and
// RateRPS alone (workload.AtRateHash), so the two arms match exactly when
// they ran one share workload at one absolute rate.
type BaselineRate struct {
	Cell      string  `json:"cell"`
	ShareHash string  `json:"share_hash"`
	Share     float64 `json:"share"`
	RateRPS   float64 `json:"rate_rps"`
}

// SpecAtRate returns a share-of-saturation cell's spec as the spec of its
// comparison at an absolute rate: the cell renamed to cell, the rate
// fixed at rate (req/s) and the share cleared. Nothing else changes, so
// the report and the verdict (its gate list) read the share cell's
// settings.
func SpecAtRate(spec []byte, cell string, rate float64) ([]byte, error) {
	s, err := Workload{Spec: spec}.ParseSpec()
	if err != nil {
		return nil, err
	}
	if s.Kind != KindServing || s.Load.SaturationShare <= 0 {
		return nil, fmt.Errorf("workload spec of %q: not a serving cell whose rate is a share of saturation", s.Cell)
	}
	s.Cell, s.Load.Rate, s.Load.SaturationShare = cell, rate, 0
	return json.Marshal(s)
}
