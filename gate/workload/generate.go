package workload

import "time"

// item is one request's content before the API shapes it: token ids or
// text, the intended input length, and max_tokens.
type item struct {
	ids    []int
	text   string
	input  int
	output int
	segs   []segment     // prompt_format text: how to re-render text under a calibration
	at     time.Duration // a trace's arrival offset; unused otherwise
}

// content generates a prompt of n tokens with s: token ids for the
// completions API (exact length), words for chat (approximate).
func (f *File) content(n int, s *stream) ([]int, string) {
	if f.API == Chat {
		return nil, text(n, s)
	}
	r := f.Dataset.TokenIDs
	ids := make([]int, n)
	for i := range ids {
		ids[i] = s.intRange(r.Min, r.Max)
	}
	return ids, ""
}

// join prepends a shared prefix to a prompt.
func join(prefixIDs []int, prefixText string, ids []int, txt string) ([]int, string) {
	if ids != nil || prefixIDs != nil {
		out := make([]int, 0, len(prefixIDs)+len(ids))
		return append(append(out, prefixIDs...), ids...), ""
	}
	if prefixText == "" {
		return nil, txt
	}
	return nil, prefixText + " " + txt
}

// generate expands a random or prefix-repetition dataset into n items.
// Lengths are uniform in vLLM's [floor(L(1-r)), ceil(L(1+r))] for both the
// input (without the prefix) and the output. A random dataset shares one
// prefix of prefix_tokens among all requests (vLLM's --random-prefix-len);
// a prefix-repetition dataset draws num_prefixes distinct prefixes, gives
// request i prefix i mod num_prefixes and shuffles the order, so each
// prefix is reused by requests spread over the whole run.
func (f *File) generate(n int, streamPrefix string) []item {
	ds := f.Dataset
	seed := ds.Seed
	lengths := newStream(seed, streamPrefix+"lengths")
	tokens := newStream(seed, streamPrefix+"tokens")
	inLo, inHi := lengthRange(ds.InputTokens, ds.RangeRatio)
	outLo, outHi := lengthRange(ds.OutputTokens, ds.RangeRatio)

	numPrefixes := 0
	if ds.PrefixTokens > 0 {
		numPrefixes = 1
		if ds.Kind == KindPrefixRepetition {
			numPrefixes = ds.NumPrefixes
		}
	}
	type prefix struct {
		ids  []int
		text string
	}
	prefixes := make([]prefix, numPrefixes)
	for k := range prefixes {
		if f.textMode() {
			break // each text segment has a stream of its own (textSegments)
		}
		prefixes[k].ids, prefixes[k].text = f.content(ds.PrefixTokens, tokens)
	}

	items := make([]item, n)
	for i := range items {
		in := lengths.intRange(inLo, inHi)
		out := lengths.intRange(outLo, outHi)
		if f.textMode() {
			items[i] = f.textItem(textSegments(streamPrefix, i, numPrefixes, ds.PrefixTokens, in), in+ds.PrefixTokens, out)
			continue
		}
		ids, txt := f.content(in, tokens)
		if numPrefixes > 0 {
			p := prefixes[i%numPrefixes]
			ids, txt = join(p.ids, p.text, ids, txt)
		}
		items[i] = item{ids: ids, text: txt, input: in + ds.PrefixTokens, output: out}
	}
	if ds.Kind == KindPrefixRepetition {
		order := newStream(seed, streamPrefix+"order")
		order.shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	}
	return items
}

// warmups generates n warmup items whose lengths follow the measured items
// (warmup i copies the lengths of measured item i mod len) but whose
// content comes from a separate stream, with fresh prefixes: warming with a
// measured prompt (as `vllm bench serve` does) would put its prefix in the
// server's cache and flatter the first measured request.
func (f *File) warmups(n int, measured []item) []item {
	if n == 0 || len(measured) == 0 {
		return nil
	}
	s := newStream(f.Dataset.Seed, "warmup/content")
	gen, p := generated(f.Dataset.Kind), f.Dataset.PrefixTokens
	var prefixIDs []int
	var prefixText string
	if gen && p > 0 && !f.textMode() {
		prefixIDs, prefixText = f.content(p, s)
	}
	out := make([]item, n)
	for i := range out {
		m := measured[i%len(measured)]
		if gen && f.textMode() {
			out[i] = f.textItem(warmupSegments(i, p, m.input), m.input, m.output)
			continue
		}
		if !gen { // file datasets send text; so do their warmups
			out[i] = item{text: text(max(m.input, 1), s), input: m.input, output: m.output}
			continue
		}
		ids, txt := f.content(m.input-p, s)
		if p > 0 {
			ids, txt = join(prefixIDs, prefixText, ids, txt)
		}
		out[i] = item{ids: ids, text: txt, input: m.input, output: m.output}
	}
	return out
}
