package ggufgen

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
)

// Llama describes a random-weight model of the llama architecture. The zero
// value is not valid; start from Tiny.
type Llama struct {
	Name    string
	Layers  int // transformer blocks
	Width   int // embedding length
	Heads   int // attention heads; Width must divide by it
	KVHeads int // key/value heads (grouped-query attention when < Heads)
	FFN     int // feed-forward length
	Context int // trained context length the engine may use
	Seed    uint64
	// Words become whole-word tokens of the vocabulary (with the
	// SentencePiece word-start mark), so a prompt of these words is about
	// one token a word and other words fall back to letters and bytes.
	Words []string
}

// Tiny is a four-block model of width 64: it loads in milliseconds and
// decodes at hundreds of tokens a second on one CPU core.
func Tiny() Llama {
	return Llama{Name: "perfgate-tiny", Layers: 4, Width: 64, Heads: 4, KVHeads: 2, FFN: 192, Context: 4096, Seed: 1, Words: DefaultWords}
}

// DefaultWords are common English words, so text of ordinary words
// tokenizes partly into whole-word tokens and partly into letters: the
// tokens-per-word ratio is above one, as with real tokenizers on rare
// words, which is what a length calibration must cope with.
var DefaultWords = strings.Fields(`the of and to in is was for on that with as by at from his her it an
are were be this which or had not but have one all their they has been more its new who also
first can when two there other after some into time only over most would years out made many
then him about than may such these year could so she three up used where well between both under
city war state world people through later known while part called being since`)

// Token types of the SentencePiece vocabulary (llama.cpp's llama_token_type).
const (
	tokenNormal  = 1
	tokenUnknown = 2
	tokenControl = 3
	tokenByte    = 6
)

// Special token ids, SentencePiece's convention for llama.
const (
	unkID = 0
	bosID = 1
	eosID = 2
)

// wordMark is SentencePiece's U+2581 LOWER ONE EIGHTH BLOCK, which stands
// for the space before a word.
const wordMark = "\u2581"

// Vocab returns the tokens, scores and types of l's SentencePiece
// vocabulary: <unk>, <s>, </s>, the 256 byte-fallback tokens <0x00> to
// <0xFF>, the word mark and the letters a-z, then for every word the chain
// of its prefixes with the word mark (▁t, ▁th, ▁the). SentencePiece
// merges adjacent pieces only into pieces that exist, so a whole-word
// token is reachable only through such a chain. Longer pieces score
// higher and so merge first.
func (l Llama) Vocab() (tokens []string, scores []float32, types []int32) {
	add := func(tok string, score float32, typ int32) {
		tokens = append(tokens, tok)
		scores = append(scores, score)
		types = append(types, typ)
	}
	add("<unk>", 0, tokenUnknown)
	add("<s>", 0, tokenControl)
	add("</s>", 0, tokenControl)
	for b := 0; b < 256; b++ {
		add(fmt.Sprintf("<0x%02X>", b), 0, tokenByte)
	}
	seen := map[string]bool{}
	piece := func(p string) {
		if !seen[p] {
			seen[p] = true
			add(p, float32(len([]rune(p))), tokenNormal)
		}
	}
	piece(wordMark)
	for c := 'a'; c <= 'z'; c++ {
		piece(string(c))
	}
	for _, w := range l.Words {
		r := []rune(w)
		for i := 1; i <= len(r); i++ {
			piece(wordMark + string(r[:i]))
		}
	}
	return tokens, scores, types
}

// check reports a configuration the engines would refuse.
func (l Llama) check() error {
	switch {
	case l.Layers < 1 || l.Width < 1 || l.FFN < 1 || l.Context < 1:
		return fmt.Errorf("ggufgen: layers, width, ffn and context must be positive: %+v", l)
	case l.Heads < 1 || l.Width%l.Heads != 0:
		return fmt.Errorf("ggufgen: width %d must be a multiple of heads %d", l.Width, l.Heads)
	case l.KVHeads < 1 || l.Heads%l.KVHeads != 0:
		return fmt.Errorf("ggufgen: heads %d must be a multiple of kv heads %d", l.Heads, l.KVHeads)
	case (l.Width/l.Heads)%2 != 0:
		return fmt.Errorf("ggufgen: head width %d must be even for rotary embeddings", l.Width/l.Heads)
	}
	return nil
}

// Write writes l as a GGUF file to w.
func (l Llama) Write(w io.Writer) error {
	kvs, tensors, err := l.Build()
	if err != nil {
		return err
	}
	return Encode(w, kvs, tensors)
}

// Build returns the metadata and tensors of l: the llama.* hyperparameters
// and tokenizer.ggml.* vocabulary llama.cpp and ollama read, and the
// weights of every block drawn from a seeded generator.
func (l Llama) Build() ([]KV, []Tensor, error) {
	if err := l.check(); err != nil {
		return nil, nil, err
	}
	tokens, scores, types := l.Vocab()
	headDim := l.Width / l.Heads
	kvWidth := headDim * l.KVHeads
	kvs := []KV{
		{"general.architecture", "llama"},
		{"general.name", l.Name},
		{"general.file_type", uint32(0)}, // all F32
		{"llama.context_length", uint32(l.Context)},
		{"llama.embedding_length", uint32(l.Width)},
		{"llama.block_count", uint32(l.Layers)},
		{"llama.feed_forward_length", uint32(l.FFN)},
		{"llama.attention.head_count", uint32(l.Heads)},
		{"llama.attention.head_count_kv", uint32(l.KVHeads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(headDim)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.vocab_size", uint32(len(tokens))},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.bos_token_id", uint32(bosID)},
		{"tokenizer.ggml.eos_token_id", uint32(eosID)},
		{"tokenizer.ggml.unknown_token_id", uint32(unkID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
	g := rand.New(rand.NewPCG(l.Seed, 0x6767756667656e)) // "ggufgen"
	normal := func(n int, std float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(g.NormFloat64() * std)
		}
		return out
	}
	ones := func(n int) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	v, d := len(tokens), l.Width
	embd := normal(d*v, 0.02)
	// Dimension 0 of every embedding is large, and the blocks' weights
	// are small, so after the final norm that dimension dominates every
	// hidden state with the same sign. The output row of each special and
	// byte token is strongly negative there, of each text piece positive:
	// the model never samples end-of-sequence (a server that ignores
	// ignore_eos still returns max_tokens) and never a lone byte, so its
	// output is valid UTF-8 text of letters and words.
	for t := 0; t < v; t++ {
		embd[t*d] = 4
	}
	output := normal(d*v, 0.5)
	for t := 0; t < v; t++ {
		if types[t] == tokenNormal {
			output[t*d] = 2
		} else {
			output[t*d] = -4
		}
	}
	tensors := []Tensor{
		{"token_embd.weight", []uint64{uint64(d), uint64(v)}, embd},
		{"output_norm.weight", []uint64{uint64(d)}, ones(d)},
		{"output.weight", []uint64{uint64(d), uint64(v)}, output},
	}
	std := 0.02 / math.Sqrt(float64(l.Layers))
	for i := 0; i < l.Layers; i++ {
		blk := func(name string, dims ...int) Tensor {
			u := make([]uint64, len(dims))
			n := 1
			for k, x := range dims {
				u[k], n = uint64(x), n*x
			}
			data := normal(n, std)
			if len(dims) == 1 {
				data = ones(n)
			}
			return Tensor{fmt.Sprintf("blk.%d.%s.weight", i, name), u, data}
		}
		tensors = append(tensors,
			blk("attn_norm", d),
			blk("attn_q", d, d),
			blk("attn_k", d, kvWidth),
			blk("attn_v", d, kvWidth),
			blk("attn_output", d, d),
			blk("ffn_norm", d),
			blk("ffn_gate", d, l.FFN),
			blk("ffn_up", d, l.FFN),
			blk("ffn_down", l.FFN, d),
		)
	}
	return kvs, tensors, nil
}
