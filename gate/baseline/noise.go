package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// NoiseSchema identifies a noise file: what `perfgate calibrate` measured
// about a profile's between- and within-session noise (docs/calibrate.md).
const NoiseSchema = "perfgate.noise/v1"

// Scale names of NoiseMetric.Scale: which scale the variances are on.
const (
	ScaleLog      = "log"      // natural logs of the values (relative metrics)
	ScaleAbsolute = "absolute" // the values themselves (ratio metrics)
)

// Noise is a profile's calibration: per workload cell and metric, the
// variance of trials within one server session and of the sessions' true
// levels, each with its degrees of freedom, and where they were measured.
// It lives in a subdirectory of the profile (see NoisePath), not beside
// the baselines, because every *.json directly in the profile directory is
// a baseline result file.
type Noise struct {
	Schema  string `json:"schema"`
	Profile string `json:"profile"`
	// CreatedAt is when the calibration finished.
	CreatedAt time.Time   `json:"created_at"`
	Tool      result.Tool `json:"tool"`
	// Restarts is K, the server starts; TrialsPerRestart the trials asked
	// for per start (invalid trials are left out, so a metric's Trials may
	// be fewer than Restarts·TrialsPerRestart).
	Restarts         int `json:"restarts"`
	TrialsPerRestart int `json:"trials_per_restart"`
	// Fingerprint is the environment of the first session (GPU, driver,
	// server command), to check the calibration matches the runner.
	Fingerprint   map[string]string `json:"fingerprint,omitempty"`
	ServerVersion string            `json:"server_version,omitempty"`
	GitSHA        string            `json:"git_sha,omitempty"`
	// Cells maps a workload cell to its metrics' noise.
	Cells map[string]NoiseCell `json:"cells"`
}

// NoiseCell is one workload cell's calibration. WorkloadHash is the
// manifest hash it was measured with: the noise of a changed workload is
// not this cell's any more.
type NoiseCell struct {
	WorkloadHash string                 `json:"workload_hash"`
	Metrics      map[string]NoiseMetric `json:"metrics"`
}

// NoiseMetric is one (cell, metric)'s fit of the one-way random-effects
// model (package noise), on the verdict's test scale.
type NoiseMetric struct {
	Scale      string  `json:"scale"`
	WithinVar  float64 `json:"within_var"`
	WithinDF   float64 `json:"within_df"`
	BetweenVar float64 `json:"between_var"`
	BetweenDF  float64 `json:"between_df"`
	// Truncated says the between estimate came out negative and was set
	// to 0. RawBetweenVar is the estimate before truncation (negative
	// then): pooling estimates across cells or profiles should average the
	// raw ones, which are unbiased, not the truncated ones, which are
	// biased upward (docs/calibrate.md).
	Truncated     bool    `json:"truncated,omitempty"`
	RawBetweenVar float64 `json:"raw_between_var"`
	// Sessions and Trials are the sessions and values the fit used.
	Sessions int `json:"sessions"`
	Trials   int `json:"trials"`
}

// NoisePath is the noise file of profile.
func (s Store) NoisePath(profile string) string {
	return filepath.Join(s.Dir(profile), "calibration", "noise.json")
}

// WriteNoise validates n and writes it atomically to profile's noise file,
// as stable indented JSON, and returns the path.
func (s Store) WriteNoise(profile string, n *Noise) (string, error) {
	if err := ValidateProfile(profile); err != nil {
		return "", err
	}
	data, err := MarshalNoise(n)
	if err != nil {
		return "", err
	}
	path := s.NoisePath(profile)
	if err := result.WriteFileAtomic(path, data); err != nil {
		return "", fmt.Errorf("writing noise file %s: %w", path, err)
	}
	return path, nil
}

// ReadNoise reads profile's noise file. A profile that was never
// calibrated gives an error for which errors.Is(err, os.ErrNotExist).
func (s Store) ReadNoise(profile string) (*Noise, error) {
	if err := ValidateProfile(profile); err != nil {
		return nil, err
	}
	path := s.NoisePath(profile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseNoise(path, data)
}

// MarshalNoise encodes n (validated) as stable, indented JSON.
func MarshalNoise(n *Noise) ([]byte, error) {
	if err := n.Validate(nil); err != nil {
		return nil, err
	}
	return result.MarshalStable(n)
}

// decodeStrict decodes the one JSON object of data into v, refusing
// unknown fields and anything after it (what names the object in that
// error); errors start with name and the line. The store's own files are
// strict: a key perfgate does not know is a typo or a newer schema, and
// reading past it would judge with a setting silently dropped.
func decodeStrict(name, what string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s:%d: %w", name, jsonErrorLine(data, err), err)
	}
	if dec.More() {
		return fmt.Errorf("%s:%d: data after %s", name, lineAt(data, dec.InputOffset()), what)
	}
	return nil
}

// ParseNoise decodes and validates a noise file; name is used in errors,
// which carry the line of the offending key or value.
func ParseNoise(name string, data []byte) (*Noise, error) {
	var n Noise
	if err := decodeStrict(name, "the noise object", data, &n); err != nil {
		return nil, err
	}
	if err := n.Validate(data); err != nil {
		return nil, fmt.Errorf("%s:%w", name, err)
	}
	if len(n.Fingerprint) == 0 {
		n.Fingerprint = nil // written as absent, so read back the same
	}
	return &n, nil
}

// Validate checks the invariants the verdict relies on: the schema, a
// profile, K >= 2 sessions, and finite, non-negative variances and degrees
// of freedom on the scale the verdict tests the metric on. data, when
// given, is the file the noise was read from, for line numbers; errors
// start with "LINE: ".
func (n *Noise) Validate(data []byte) error {
	at := func(keys ...string) string {
		if data == nil {
			return ""
		}
		return fmt.Sprintf("%d: ", keyLine(data, keys...))
	}
	if n.Schema != NoiseSchema {
		return fmt.Errorf("%sschema is %q, want %q", at("schema"), n.Schema, NoiseSchema)
	}
	if err := ValidateProfile(n.Profile); err != nil {
		return fmt.Errorf("%sprofile: %w", at("profile"), err)
	}
	if n.Restarts < 2 {
		return fmt.Errorf("%srestarts is %d: a between-session variance needs at least 2 sessions", at("restarts"), n.Restarts)
	}
	if n.TrialsPerRestart < 1 {
		return fmt.Errorf("%strials_per_restart is %d, want at least 1", at("trials_per_restart"), n.TrialsPerRestart)
	}
	if len(n.Cells) == 0 {
		return fmt.Errorf("%scells is empty: a calibration without a workload cell calibrates nothing", at("cells"))
	}
	for _, cell := range slices.Sorted(maps.Keys(n.Cells)) {
		c := n.Cells[cell]
		if c.WorkloadHash == "" {
			return fmt.Errorf("%scells[%q]: workload_hash is empty", at("cells", cell), cell)
		}
		if len(c.Metrics) == 0 {
			return fmt.Errorf("%scells[%q]: metrics is empty", at("cells", cell), cell)
		}
		for _, id := range slices.Sorted(maps.Keys(c.Metrics)) {
			m := c.Metrics[id]
			where := fmt.Sprintf("%scells[%q].metrics[%q]: ", at("cells", cell, id), cell, id)
			want := ScaleLog
			if verdict.Absolute(id) {
				want = ScaleAbsolute
			}
			if m.Scale != want {
				return fmt.Errorf("%sscale is %q, but the verdict tests %s on the %q scale", where, m.Scale, id, want)
			}
			for _, v := range []struct {
				key string
				x   float64
			}{{"within_var", m.WithinVar}, {"within_df", m.WithinDF}, {"between_var", m.BetweenVar}, {"between_df", m.BetweenDF}} {
				if math.IsNaN(v.x) || math.IsInf(v.x, 0) || v.x < 0 {
					return fmt.Errorf("%s%s is %v, want a finite number >= 0", where, v.key, v.x)
				}
			}
			if math.IsNaN(m.RawBetweenVar) || math.IsInf(m.RawBetweenVar, 0) {
				return fmt.Errorf("%sraw_between_var is %v, want a finite number", where, m.RawBetweenVar)
			}
			if want := math.Max(m.RawBetweenVar, 0); math.Abs(m.BetweenVar-want) > 1e-12*math.Max(1, want) || m.Truncated != (m.RawBetweenVar < 0) {
				return fmt.Errorf("%sbetween_var %v and truncated %v do not follow from raw_between_var %v (between_var = max(raw, 0), truncated when raw < 0)", where, m.BetweenVar, m.Truncated, m.RawBetweenVar)
			}
			if m.Sessions < 2 || m.Trials < m.Sessions {
				return fmt.Errorf("%s%d sessions and %d trials: want at least 2 sessions and a trial per session", where, m.Sessions, m.Trials)
			}
			if m.BetweenDF > float64(m.Sessions-1)+1e-9 {
				return fmt.Errorf("%sbetween_df %v exceeds sessions-1 = %d", where, m.BetweenDF, m.Sessions-1)
			}
		}
	}
	return nil
}

// Priors turns the calibration into the verdict's priors (Source
// "calibration"). current maps each cell about to be compared to its
// workload hash; a cell whose hash differs from the calibrated one is left
// out and named in stale, since its noise was measured on another
// workload. A nil current takes every cell.
func (n *Noise) Priors(current map[string]string) (p verdict.Priors, stale []string) {
	p = verdict.Priors{}
	for _, cell := range slices.Sorted(maps.Keys(n.Cells)) {
		c := n.Cells[cell]
		if current != nil {
			h, ok := current[cell]
			if !ok {
				continue
			}
			if h != c.WorkloadHash {
				stale = append(stale, cell)
				continue
			}
		}
		m := make(map[string]verdict.Prior, len(c.Metrics))
		for id, x := range c.Metrics {
			m[id] = verdict.Prior{WithinVar: x.WithinVar, WithinDF: x.WithinDF,
				BetweenVar: x.BetweenVar, BetweenDF: x.BetweenDF, Source: "calibration", Sessions: x.Sessions}
		}
		p[cell] = m
	}
	return p, stale
}

// CalibrationPriors reads profile's noise file and returns its priors for
// the cells about to be compared (current: cell -> workload hash, see
// Priors), the calibrated cells whose workload changed since, and the
// file's path. A profile that was never calibrated gives nil priors and no
// error: the verdict then applies its documented default.
func (s Store) CalibrationPriors(profile string, current map[string]string) (p verdict.Priors, stale []string, path string, err error) {
	n, err := s.ReadNoise(profile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, "", nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	p, stale = n.Priors(current)
	return p, stale, s.NoisePath(profile), nil
}

// jsonErrorLine is the line of a decoding error: encoding/json gives byte
// offsets for syntax and type errors; an unknown field is found by name.
func jsonErrorLine(data []byte, err error) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return lineAt(data, se.Offset)
	case errors.As(err, &te):
		return lineAt(data, te.Offset)
	}
	const unknown = `json: unknown field "`
	if msg := err.Error(); len(msg) > len(unknown) && msg[:len(unknown)] == unknown {
		return keyLine(data, msg[len(unknown):len(msg)-1])
	}
	return 1
}

func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// keyLine finds the line of the last of keys, each searched after the
// previous one (a cell's metric after the cell's key), or 1.
func keyLine(data []byte, keys ...string) int {
	off := 0
	for _, k := range keys {
		q, _ := json.Marshal(k)
		i := bytes.Index(data[off:], q)
		if i < 0 {
			break
		}
		off += i
	}
	return lineAt(data, int64(off))
}
