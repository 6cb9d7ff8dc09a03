package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"

	"github.com/perfgate/perfgate/gate/result"
)

// atRateVersion starts the input of AtRateHash; bump it when that input
// changes.
const atRateVersion = "perfgate.at-rate/v1\n"

// AtRateHash is the workload hash of a share-of-saturation cell run at a
// fixed absolute rate (req/s): the sha256 of the version line, the share
// cell's hash and the rate in its shortest round-trip form. It is a
// function of those two alone, so both arms of the comparison at the
// baseline's rate compute it without the other's manifest: the
// candidate from its manifest, the baseline from its result file. Equal
// hashes then mean one share workload (every request, setting and
// arrival as timed for 1 req/s, which the share hash covers) at one
// absolute rate; a changed workload or another rate gives another hash,
// and the verdict refuses to compare the two.
func AtRateHash(shareHash string, rate float64) string {
	sum := sha256.Sum256([]byte(atRateVersion + shareHash + "\n" + strconv.FormatFloat(rate, 'g', -1, 64)))
	return hex.EncodeToString(sum[:])
}

// AtBaselineRate returns share-of-saturation cell m as its comparison at
// a baseline's absolute rate (req/s): m.At(rate, m.Concurrency), the cell
// whose trials m itself runs when its own saturation puts it at rate.
// The requests, warmups, settings and concurrency cap are m's; the
// arrivals are m's re-timed for rate. Only the identity differs: the
// cell is result.BaselineRateCell(m.Cell), the hash AtRateHash(m.Hash,
// rate), the spec m's with the rate fixed (result.SpecAtRate), and
// BaselineRate records where the rate came from.
func (m *Manifest) AtBaselineRate(rate float64) (*Manifest, error) {
	if m.SaturationShare <= 0 {
		return nil, fmt.Errorf("workload %s: its rate is not a share of saturation", m.Cell)
	}
	if !(rate >= MinRate) || math.IsInf(rate, 0) {
		return nil, fmt.Errorf("workload %s: baseline rate %v req/s is not a rate the cell can run at", m.Cell, rate)
	}
	cell := result.BaselineRateCell(m.Cell)
	spec, err := result.SpecAtRate(m.Spec, cell, rate)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", m.Cell, err)
	}
	out := m.At(rate, m.Concurrency)
	out.Cell, out.Hash, out.Spec = cell, AtRateHash(m.Hash, rate), spec
	out.BaselineRate = &result.BaselineRate{Cell: m.Cell, ShareHash: m.Hash, Share: m.SaturationShare, RateRPS: rate}
	return out, nil
}
