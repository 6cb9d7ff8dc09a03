package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
	"gopkg.in/yaml.v3"
)

// Prompt formats of the random and prefix-repetition datasets
// (dataset.prompt_format).
const (
	// PromptTokenIDs sends token ids: exact lengths, the completions
	// default. Servers that accept only text (ollama) answer 400.
	PromptTokenIDs = "token_ids"
	// PromptText sends deterministic word prompts whose word counts are
	// fitted to the server's tokenizer before the first trial (Calibrate),
	// so a prompt of input_tokens is about that many tokens on any model.
	PromptText = "text"
)

// ProbeWords are the word counts of the two calibration prompts: every
// entry of the word list once, in order, and that text twice. Prompts draw
// their words uniformly from the list, so the first probe costs exactly
// the expected tokens of len(words) drawn words: no sample of random
// words, whose mix would stray from the mean (one token for "the",
// several for a word the vocabulary lacks). Word-level tokenizers
// (SentencePiece, and BPE after its split at spaces) never merge across a
// space, so the difference of the two counts is the text's tokens and the
// rest is what every request costs whatever its length (BOS, the chat
// template).
var ProbeWords = [2]int{len(words), 2 * len(words)}

// segment is one stretch of a text prompt: a shared prefix or a request's
// own words. Its words are the first words of the stream named key, so
// the text for any word count is a prefix of the text for a larger one and
// a shared prefix stays shared after calibration.
type segment struct {
	key    string
	tokens int // the tokens it should cost
}

func (d *decoder) promptFormat(v *yaml.Node, ds *Dataset) {
	n0 := len(d.errs)
	s := d.str(v, "dataset.prompt_format")
	if len(d.errs) > n0 {
		return
	}
	if s != PromptText && s != PromptTokenIDs {
		d.errorf(v.Line, "dataset.prompt_format must be text or token_ids, got %q", s)
		return
	}
	ds.PromptFormat = s
}

// crossCheckPromptFormat refuses combinations that cannot be sent.
func (d *decoder) crossCheckPromptFormat(f *File) {
	ds := &f.Dataset
	switch {
	case ds.PromptFormat == PromptTokenIDs && f.API == Chat:
		d.errorf(f.lines.promptFormat, "dataset.prompt_format token_ids only applies to the completions API (chat prompts are text)")
	case ds.PromptFormat == PromptText && f.lines.tokenIDs > 0:
		d.errorf(f.lines.tokenIDs, "dataset.token_ids does not apply to prompt_format text (the prompts are words)")
	}
}

// textMode reports whether f generates calibrated word prompts.
func (f *File) textMode() bool {
	return generated(f.Dataset.Kind) && f.Dataset.PromptFormat == PromptText
}

// nominal is the calibration a text manifest is expanded with: one token
// per word and nothing per request. The hash covers these prompts, so it
// does not depend on the server; Calibrate rewrites them for one.
var nominal = result.PromptCalibration{TokensPerWord: 1}

// render returns the text of segs under c: each segment's tokens divided
// by the tokens per word, the request's own words (the last segment) also
// paying for the overhead, at least one word each.
func render(seed uint64, segs []segment, c result.PromptCalibration) string {
	var out []byte
	for i, sg := range segs {
		t := float64(sg.tokens)
		if i == len(segs)-1 {
			t -= c.OverheadTokens
		}
		n := max(1, int(math.Round(t/c.TokensPerWord)))
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, text(n, newStream(seed, "text/"+sg.key))...)
	}
	return string(out)
}

// textItem is an item of a text manifest: its segments and lengths, the
// text rendered nominally.
func (f *File) textItem(segs []segment, input, output int) item {
	return item{text: render(f.Dataset.Seed, segs, nominal), segs: segs, input: input, output: output}
}

// CalibrationProbes returns the two requests whose prompt token counts
// calibrate m (ProbeWords words each, one output token or min_tokens),
// shaped for m's API; nil when m does not send calibrated text.
func (m *Manifest) CalibrationProbes() []Request {
	if m.PromptFormat != PromptText {
		return nil
	}
	once := strings.Join(words, " ")
	out := make([]Request, len(ProbeWords))
	for i, w := range ProbeWords {
		txt := once
		if i == 1 {
			txt = once + " " + once
		}
		// One output token, or sampling.min_tokens: a server refuses
		// min_tokens above max_tokens.
		out[i] = Request{Index: i, InputTokens: w, MaxTokens: max(1, m.Sampling.MinTokens)}
		if m.API == Chat {
			out[i].Messages = []Message{{Role: "user", Content: txt}}
		} else {
			out[i].Prompt = txt
		}
	}
	return out
}

// FitCalibration fits the tokens per word and per request from the token
// counts the server gave for the probes (counts[i] for ProbeWords[i]).
// A tokenizer that counts fewer tokens for the longer probe, or none per
// word, cannot size prompts: that is an error naming the counts.
func FitCalibration(method string, counts [2]int) (result.PromptCalibration, error) {
	w0, w1 := float64(ProbeWords[0]), float64(ProbeWords[1])
	perWord := float64(counts[1]-counts[0]) / (w1 - w0)
	if !(perWord > 0) || counts[0] <= 0 {
		return result.PromptCalibration{}, fmt.Errorf("prompt calibration (%s): the server counted %d tokens for %d words and %d for %d; text prompts cannot be sized from that",
			method, counts[0], ProbeWords[0], counts[1], ProbeWords[1])
	}
	over := max(0, float64(counts[0])-perWord*w0)
	return result.PromptCalibration{
		Method:         method,
		Samples:        []result.CalibrationSample{{Words: ProbeWords[0], Tokens: counts[0]}, {Words: ProbeWords[1], Tokens: counts[1]}},
		TokensPerWord:  perWord,
		OverheadTokens: math.Round(over*10) / 10,
	}, nil
}

// Calibrate returns a copy of m whose text prompts are rendered with c, so
// each request's prompt costs about its input_tokens on the server that
// gave c. The copy keeps m's hash (which covers the nominal prompts and
// so names the workload, not the server) and records c in Calibration.
// A manifest without calibrated text is returned as it is.
func (m *Manifest) Calibrate(c result.PromptCalibration) (*Manifest, error) {
	if m.PromptFormat != PromptText {
		return m, nil
	}
	if !(c.TokensPerWord > 0) || math.IsInf(c.TokensPerWord, 0) || c.OverheadTokens < 0 || math.IsNaN(c.OverheadTokens) {
		return nil, fmt.Errorf("workload %s: calibration of %v tokens per word and %v per request is not usable", m.Cell, c.TokensPerWord, c.OverheadTokens)
	}
	out := *m
	out.Calibration = &c
	out.Requests = rerender(m.seed, m.API, m.Requests, c)
	out.Warmups = rerender(m.seed, m.API, m.Warmups, c)
	return &out, nil
}

func rerender(seed uint64, api API, reqs []Request, c result.PromptCalibration) []Request {
	out := make([]Request, len(reqs))
	for i, r := range reqs {
		out[i] = r
		if r.segs == nil {
			continue
		}
		txt := render(seed, r.segs, c)
		if api == Chat {
			out[i].Messages = []Message{{Role: "user", Content: txt}}
		} else {
			out[i].Prompt = txt
		}
	}
	return out
}

// textSegments are the segments of measured request i: its shared prefix
// (prefix i mod numPrefixes, when there are any) and its own words.
func textSegments(streamPrefix string, i, numPrefixes, prefixTokens, in int) []segment {
	own := segment{key: streamPrefix + "request/" + strconv.Itoa(i), tokens: in}
	if numPrefixes == 0 {
		return []segment{own}
	}
	return []segment{{key: streamPrefix + "prefix/" + strconv.Itoa(i%numPrefixes), tokens: prefixTokens}, own}
}

// warmupSegments are the segments of warmup i: one warmup prefix (never a
// measured one, see warmups) and words of its own.
func warmupSegments(i, prefixTokens, input int) []segment {
	own := segment{key: "warmup/" + strconv.Itoa(i), tokens: max(input-prefixTokens, 1)}
	if prefixTokens == 0 {
		return []segment{own}
	}
	return []segment{{key: "warmup/prefix", tokens: prefixTokens}, own}
}
