package workload

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// hashVersion starts the canonical encoding; bump it when the encoding
// (not the expansion) changes.
const hashVersion = "perfgate.manifest/v1\n"

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
}

// Hash returns the hex sha256 of the canonical encoding of m: a version
// line, the settings as compact JSON, then one line per warmup ("w ") and
// measured ("r ") request with its prompt (token ids, text or messages),
// input_tokens, max_tokens and arrival in integer nanoseconds. Floats are
// written with strconv's shortest round-trip form, so the encoding is the
// same on every platform.
func Hash(m *Manifest) string {
	h := sha256.New()
	w := bufio.NewWriterSize(h, 64<<10)
	w.WriteString(hashVersion)
	settings, _ := json.Marshal(hashSettings{
		API: m.API, Model: m.Model, Concurrency: m.Concurrency, Rate: number(m.Rate),
		Burstiness: number(m.Burstiness), Sampling: m.Sampling, SLO: m.SLO,
	})
	w.Write(settings)
	w.WriteByte('\n')
	var buf []byte
	for _, r := range m.Warmups {
		buf = appendRequest(append(buf[:0], "w "...), &r)
		w.Write(buf)
	}
	for _, r := range m.Requests {
		buf = appendRequest(append(buf[:0], "r "...), &r)
		w.Write(buf)
	}
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// appendRequest appends the canonical JSON line of one request.
func appendRequest(b []byte, r *Request) []byte {
	switch {
	case r.PromptIDs != nil:
		b = append(b, `{"ids":[`...)
		for i, id := range r.PromptIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(id), 10)
		}
		b = append(b, ']')
	case r.Messages != nil:
		msgs, _ := json.Marshal(r.Messages)
		b = append(append(b, `{"messages":`...), msgs...)
	default:
		p, _ := json.Marshal(r.Prompt)
		b = append(append(b, `{"prompt":`...), p...)
	}
	b = append(b, `,"input_tokens":`...)
	b = strconv.AppendInt(b, int64(r.InputTokens), 10)
	b = append(b, `,"max_tokens":`...)
	b = strconv.AppendInt(b, int64(r.MaxTokens), 10)
	b = append(b, `,"arrival_ns":`...)
	b = strconv.AppendInt(b, int64(r.Arrival/time.Nanosecond), 10)
	return append(b, "}\n"...)
}
