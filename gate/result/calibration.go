package result

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
