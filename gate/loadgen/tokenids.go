package loadgen

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// invalidTokenWords are what servers say when they refuse token ids: vLLM
// "Token id N is out of vocabulary", llama.cpp "Prompt contains invalid
// tokens", and the generic "invalid token id".
var invalidTokenWords = []string{"invalid token", "out of vocabulary", "out-of-vocabulary", "token id"}

// invalidTokenHint is the remedy for a trial whose server refused the
// token-id prompts it was sent, whatever the engine: "" when the manifest
// sends text, or no error sample reads as such a refusal.
func invalidTokenHint(m *workload.Manifest, t result.Trial) string {
	if !sendsTokenIDs(m) {
		return ""
	}
	for typ, body := range t.ErrorSamples {
		low := strings.ToLower(body)
		for _, w := range invalidTokenWords {
			if strings.Contains(low, w) {
				return fmt.Sprintf("%d request(s) failed with %s because the server refused token ids (%q): the model's vocabulary may be smaller than the ids sent; set dataset.prompt_format: text (docs/workloads.md)",
					t.Errors[typ], typ, clipString(body, 120))
			}
		}
	}
	return ""
}

// refusalHint completes the error of a trial in which every request
// failed: the text-only engine's remedy, else the invalid-token one.
func refusalHint(m *workload.Manifest, p engine.Profile, t result.Trial) string {
	if h := textOnlyHint(m, p); h != "" {
		return h
	}
	if h := invalidTokenHint(m, t); h != "" {
		return "; " + h
	}
	return ""
}

func sendsTokenIDs(m *workload.Manifest) bool {
	return m.API != workload.Chat && len(m.Requests) > 0 && m.Requests[0].PromptIDs != nil
}

// fitVocab keeps random token ids inside a vocabulary of vocab tokens (as
// the server reported it; 0: unknown, m is returned as it is). An id at or
// above it is folded into [lo, vocab), lo being the workload's lowest id
// bound or a quarter of the vocabulary when that is smaller, which keeps
// clear of the low ids tokenizers reserve. The same ids fold the same way
// on every run against the same model, so runs stay comparable; the
// warning says that the prompts are not the workload's as written. The
// manifest is copied, never changed in place.
func fitVocab(m *workload.Manifest, vocab int) (*workload.Manifest, string) {
	if vocab <= 0 || !sendsTokenIDs(m) {
		return m, ""
	}
	over := func(rs []workload.Request) bool {
		for _, rq := range rs {
			for _, id := range rq.PromptIDs {
				if id >= vocab {
					return true
				}
			}
		}
		return false
	}
	if !over(m.Requests) && !over(m.Warmups) {
		return m, ""
	}
	lo := min(workload.DefaultTokenIDMin, vocab/4)
	fold := func(rs []workload.Request) []workload.Request {
		out := make([]workload.Request, len(rs))
		for i, rq := range rs {
			ids := make([]int, len(rq.PromptIDs))
			for j, id := range rq.PromptIDs {
				if id >= vocab {
					id = lo + (id-lo)%(vocab-lo)
				}
				ids[j] = id
			}
			rq.PromptIDs = ids
			out[i] = rq
		}
		return out
	}
	cp := *m
	cp.Requests, cp.Warmups = fold(m.Requests), fold(m.Warmups)
	return &cp, fmt.Sprintf("the server's model has a vocabulary of %d tokens, below the workload's random token ids: ids at or above it were folded into %d-%d, so the prompts differ from the same workload against a larger vocabulary (compare only with runs of the same model; dataset.prompt_format: text avoids token ids)", vocab, lo, vocab-1)
}
