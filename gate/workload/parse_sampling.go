package workload

import "math"

// maxTopK bounds sampling.top_k: the largest vocabularies have about 260k
// entries, so a larger value is a typo.
const maxTopK = 10_000_000

// samplingExtension decodes the sampling keys vLLM adds to the OpenAI
// API. The ranges are vLLM's own checks (SamplingParams), so a workload
// that passes validation is never refused by the server for them; the
// upper bound of repetition_penalty is ours: vLLM takes any positive
// value, but above 10 every repeated token is all but banned and the
// value is a typo.
func (d *decoder) samplingExtension(fl field, s *Sampling) {
	v := fl.value
	key := "sampling." + fl.key
	switch fl.key {
	case "top_k":
		// -1 and 0 both mean "all tokens" to vLLM (0 since v0.8); they are
		// kept as written so the request says what the file says.
		k := d.integer(v, key, -1, maxTopK)
		s.TopK = &k
	case "min_p":
		p := d.number(v, key, "in [0, 1]", func(x float64) bool { return x >= 0 && x <= 1 })
		s.MinP = &p
	case "frequency_penalty":
		p := d.number(v, key, "in [-2, 2]", func(x float64) bool { return math.Abs(x) <= 2 })
		s.FrequencyPenalty = &p
	case "presence_penalty":
		p := d.number(v, key, "in [-2, 2]", func(x float64) bool { return math.Abs(x) <= 2 })
		s.PresencePenalty = &p
	case "repetition_penalty":
		p := d.number(v, key, "in (0, 10]", func(x float64) bool { return x > 0 && x <= 10 })
		s.RepetitionPenalty = &p
	}
}
