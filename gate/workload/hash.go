package workload

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
)

// hashVersion starts the canonical encoding; bump it when the encoding
// (not the expansion) changes.
const hashVersion = "perfgate.manifest/v2\n"

// number is a float64 that encodes +Inf as the string "inf" (JSON has no
// infinity), the way vLLM's result files write request_rate.
type number float64

func (n number) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(n), 1) {
		return []byte(`"inf"`), nil
	}
	return []byte(strconv.FormatFloat(float64(n), 'g', -1, 64)), nil
}

// hashSettings are the cell settings covered by the hash besides the
// requests: everything that changes what is sent or how goodput is judged.
// Trials, gate rules, the timeout and gpus are policy or reporting, not
// load, so they can change without invalidating a baseline (gpus in
// particular must differ to compare replica layouts per GPU).
type hashSettings struct {
	API         API      `json:"api"`
	Model       string   `json:"model"`
	Concurrency int      `json:"concurrency"`
	Rate        number   `json:"rate"`
	Burstiness  number   `json:"burstiness"`
	Sampling    Sampling `json:"sampling"`
	SLO         SLO      `json:"slo"`
	// PromptFormat is set only for text prompts, so the hashes of
	// workloads written before the key existed do not change.
	PromptFormat string `json:"prompt_format,omitempty"`
	// The request options of docs/workloads.md that change what is sent.
	// Each is left out when unset, so the hash of a workload without them
	// is what it was before they existed. A header read from the
	// environment is covered by its name and variable, never its value:
	// rotating a token must not invalidate a baseline, and the hash input
	// must not hold a secret.
	ExtraBody json.RawMessage `json:"extra_body,omitempty"`
	Headers   []Header        `json:"headers,omitempty"`
	RampUp    *RampUp         `json:"ramp_up,omitempty"`
	// Written only when set, so earlier cells keep their hashes: a
	// capacity cell's kind and search settings (they decide which loads
	// are probed), and a rate given as a share of saturation.
	Kind            string        `json:"kind,omitempty"`
	Capacity        *CapacitySpec `json:"capacity,omitempty"`
	SaturationShare float64       `json:"saturation_share,omitempty"`
}

// Hash returns the hex sha256 of the canonical encoding of m: the version
// line, the settings as compact JSON (length-prefixed), then each warmup
// ('w') and measured ('r') request in order. A request is its prompt form
// ('i' token ids as 4-byte little-endian integers, 'p' the UTF-8 prompt,
// 'm' the messages as compact JSON), length-prefixed, followed by
// input_tokens, max_tokens and the arrival in integer nanoseconds as
// 8-byte little-endian integers. Every variable part carries its length,
// so no two manifests share an encoding; floats in the settings use
// strconv's shortest round-trip form, identical on every platform. The
// binary form keeps hashing a 3.8 M-token manifest to a few milliseconds.
func Hash(m *Manifest) string {
	h := sha256.New()
	w := bufio.NewWriterSize(h, 64<<10)
	w.WriteString(hashVersion)
	kind := ""
	if m.IsCapacity() {
		kind = KindCapacity
	}
	settings, _ := json.Marshal(hashSettings{
		Kind: kind,
		API:  m.API, Model: m.Model, Concurrency: m.Concurrency, Rate: number(m.Rate),
		Burstiness: number(m.Burstiness), Sampling: m.Sampling, SLO: m.SLO,
		PromptFormat: m.PromptFormat,
		ExtraBody:    m.ExtraBody, Headers: m.Headers, RampUp: m.RampUp,
		Capacity: m.Capacity, SaturationShare: m.SaturationShare,
	})
	var buf []byte
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(settings)))
	w.Write(append(buf, settings...))
	for i := range m.Warmups {
		buf = appendRequest(append(buf[:0], 'w'), &m.Warmups[i])
		w.Write(buf)
	}
	for i := range m.Requests {
		buf = appendRequest(append(buf[:0], 'r'), &m.Requests[i])
		w.Write(buf)
	}
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// appendRequest appends the canonical encoding of one request.
func appendRequest(b []byte, r *Request) []byte {
	le := binary.LittleEndian
	switch {
	case r.PromptIDs != nil:
		b = le.AppendUint64(append(b, 'i'), uint64(len(r.PromptIDs)))
		for _, id := range r.PromptIDs {
			b = le.AppendUint32(b, uint32(id))
		}
	case r.Messages != nil:
		msgs, _ := json.Marshal(r.Messages)
		b = append(le.AppendUint64(append(b, 'm'), uint64(len(msgs))), msgs...)
	default:
		b = append(le.AppendUint64(append(b, 'p'), uint64(len(r.Prompt))), r.Prompt...)
	}
	b = le.AppendUint64(b, uint64(r.InputTokens))
	b = le.AppendUint64(b, uint64(r.MaxTokens))
	return le.AppendUint64(b, uint64(r.Arrival.Nanoseconds()))
}
