package result

import (
	"strings"
	"testing"
)

func TestCalibrationDrift(t *testing.T) {
	fit := func(perWord, over float64) *PromptCalibration {
		return &PromptCalibration{Method: "usage", TokensPerWord: perWord, OverheadTokens: over}
	}
	for _, c := range []struct {
		name string
		b, c *PromptCalibration
		want string
	}{
		{"token-id cells", nil, nil, ""},
		{"same fit", fit(1.3, 1), fit(1.3, 1), ""},
		{"within 1 % and half a token", fit(1.3, 1), fit(1.309, 1.4), ""},
		{"another tokenizer", fit(1.3, 1), fit(1.6, 1), "sized differently (1.300 tokens a word"},
		{"another chat template", fit(1.3, 1), fit(1.3, 9), "and 9.0 in the candidate"},
		{"one side only", fit(1.3, 1), nil, "calibrated in one run only"},
	} {
		got := CalibrationDrift(c.b, c.c)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
