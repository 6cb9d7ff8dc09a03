package result

import (
	"fmt"
	"math"
)

// PromptCalibration is the fit that sized a cell's text prompts: the
// server counted Samples[i].Tokens prompt tokens for a probe of
// Samples[i].Words words, which gives TokensPerWord and the tokens every
// request costs besides its words (BOS, a chat template).
type PromptCalibration struct {
	// Method is "tokenize" (the server's /tokenize endpoint) or "usage"
	// (usage.prompt_tokens of a one-token request).
	Method         string              `json:"method"`
	Samples        []CalibrationSample `json:"samples"`
	TokensPerWord  float64             `json:"tokens_per_word"`
	OverheadTokens float64             `json:"overhead_tokens"`
}

// CalibrationSample is one calibration probe.
type CalibrationSample struct {
	Words  int `json:"words"`
	Tokens int `json:"tokens"`
}

// CalibrationDrift says how the text prompts of two results of one cell
// differ, or "" when they were sized alike. The hash covers the nominal
// prompts, so it matches however the prompts were sized; a different fit
// (another tokenizer or chat template) sent other word counts, and a
// change between the two is partly the prompts'. Fits within 1 % per word
// and half a token per request are alike: both come from exact counts.
func CalibrationDrift(baseline, candidate *PromptCalibration) string {
	switch {
	case baseline == nil && candidate == nil:
		return ""
	case baseline == nil || candidate == nil:
		return "text prompts were calibrated in one run only: the two ran different prompts"
	}
	b, c := baseline, candidate
	if math.Abs(c.TokensPerWord-b.TokensPerWord) <= 0.01*b.TokensPerWord && math.Abs(c.OverheadTokens-b.OverheadTokens) <= 0.5 {
		return ""
	}
	return fmt.Sprintf("text prompts were sized differently (%.3f tokens a word and %.1f per request in the baseline, %.3f and %.1f in the candidate): the server's tokenizer or chat template changed, and so did the prompts",
		b.TokensPerWord, b.OverheadTokens, c.TokensPerWord, c.OverheadTokens)
}
