package ggufgen

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestRoundTrip writes the tiny model and reads it back: every metadata
// entry and every tensor, value for value, and the alignment of the data.
func TestRoundTrip(t *testing.T) {
	l := Tiny()
	kvs, tensors, err := l.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	f, err := Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 {
		t.Errorf("version %d", f.Version)
	}
	if !reflect.DeepEqual(f.KV, kvs) {
		t.Errorf("metadata differs after the round trip")
	}
	if len(f.Tensors) != len(tensors) {
		t.Fatalf("%d tensors, wrote %d", len(f.Tensors), len(tensors))
	}
	for i := range tensors {
		if !reflect.DeepEqual(f.Tensors[i], tensors[i]) {
			t.Errorf("tensor %s differs after the round trip", tensors[i].Name)
		}
	}
	if want := 3 + 9*l.Layers; len(tensors) != want {
		t.Errorf("%d tensors, want %d for %d blocks", len(tensors), want, l.Layers)
	}
}

// TestModelShape checks the facts an engine relies on when it loads the
// model: hyperparameters consistent with the tensor shapes, and a
// vocabulary with the special tokens at their ids, all 256 byte tokens and
// every prefix of every word piece (SentencePiece reaches a word only
// through its prefixes).
func TestModelShape(t *testing.T) {
	l := Tiny()
	var buf bytes.Buffer
	if err := l.Write(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if a := f.Value("general.architecture"); a != "llama" {
		t.Fatalf("architecture %v", a)
	}
	tokens := f.Value("tokenizer.ggml.tokens").([]string)
	types := f.Value("tokenizer.ggml.token_type").([]int32)
	scores := f.Value("tokenizer.ggml.scores").([]float32)
	if len(types) != len(tokens) || len(scores) != len(tokens) {
		t.Fatalf("%d tokens, %d types, %d scores", len(tokens), len(types), len(scores))
	}
	if len(tokens) < 300 || len(tokens) > 1000 {
		t.Errorf("vocabulary of %d tokens, want a few hundred", len(tokens))
	}
	if tokens[0] != "<unk>" || tokens[1] != "<s>" || tokens[2] != "</s>" {
		t.Errorf("special tokens %q", tokens[:3])
	}
	if f.Value("tokenizer.ggml.eos_token_id") != uint32(2) || f.Value("tokenizer.ggml.bos_token_id") != uint32(1) {
		t.Errorf("bos/eos ids %v/%v", f.Value("tokenizer.ggml.bos_token_id"), f.Value("tokenizer.ggml.eos_token_id"))
	}
	index := map[string]int{}
	bytesSeen := 0
	for i, tok := range tokens {
		if _, dup := index[tok]; dup {
			t.Errorf("token %q twice", tok)
		}
		index[tok] = i
		if types[i] == tokenByte {
			bytesSeen++
		}
	}
	if bytesSeen != 256 || index["<0x0A>"] == 0 {
		t.Errorf("%d byte tokens; <0x0A> at %d", bytesSeen, index["<0x0A>"])
	}
	for _, w := range l.Words {
		for i := 1; i <= len(w); i++ {
			if _, ok := index[wordMark+w[:i]]; !ok {
				t.Errorf("word %q: prefix %q missing", w, w[:i])
			}
		}
	}
	vocab := uint64(len(tokens))
	shape := map[string][]uint64{}
	for _, ts := range f.Tensors {
		shape[ts.Name] = ts.Dims
	}
	d, kv := uint64(l.Width), uint64(l.Width/l.Heads*l.KVHeads)
	for name, want := range map[string][]uint64{
		"token_embd.weight": {d, vocab}, "output.weight": {d, vocab}, "output_norm.weight": {d},
		"blk.0.attn_k.weight": {d, kv}, "blk.3.ffn_down.weight": {uint64(l.FFN), d},
	} {
		if !reflect.DeepEqual(shape[name], want) {
			t.Errorf("%s: dims %v, want %v", name, shape[name], want)
		}
	}
}

// TestNeverEndOfSequence checks the output layer's bias against special
// tokens: with the dominant first dimension every text piece outscores
// </s> and every byte token by a wide margin.
func TestNeverEndOfSequence(t *testing.T) {
	l := Tiny()
	_, tensors, err := l.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, _, types := l.Vocab()
	var out []float32
	for _, ts := range tensors {
		if ts.Name == "output.weight" {
			out = ts.Data
		}
	}
	d := l.Width
	for tok, typ := range types {
		w := out[tok*d]
		if (typ == tokenNormal) != (w > 0) {
			t.Errorf("token %d (type %d): first output weight %v", tok, typ, w)
		}
	}
}

func TestDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := Tiny().Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := Tiny().Write(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes of the same model differ")
	}
	other := Tiny()
	other.Seed = 2
	var c bytes.Buffer
	if err := other.Write(&c); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("a different seed wrote the same weights")
	}
}

func TestInvalid(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Llama)
		want string
	}{
		{func(l *Llama) { l.Heads = 5 }, "multiple of heads"},
		{func(l *Llama) { l.KVHeads = 3 }, "multiple of kv heads"},
		{func(l *Llama) { l.Layers = 0 }, "must be positive"},
		{func(l *Llama) { l.Width, l.Heads, l.KVHeads = 12, 4, 4 }, "even"},
	} {
		l := Tiny()
		tc.edit(&l)
		if err := l.Write(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", l, err, tc.want)
		}
	}
	if err := Encode(&bytes.Buffer{}, nil, []Tensor{{Name: "x", Dims: []uint64{2, 2}, Data: []float32{1}}}); err == nil {
		t.Error("a tensor with too few values was written")
	}
	if err := Encode(&bytes.Buffer{}, []KV{{"k", 1.5}}, nil); err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("unsupported metadata type: %v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := Tiny().Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for name, b := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("GGUG"), good[4:]...),
		"version":   append(append([]byte{}, good[:4]...), append([]byte{2, 0, 0, 0}, good[8:]...)...),
		"truncated": good[:len(good)-100],
		"header":    good[:30],
	} {
		if _, err := Decode(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	small := Tiny()
	small.Layers, small.Words = 1, []string{"the", "of"}
	if err := small.Write(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := Decode(bytes.NewReader(b))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := Encode(&out, g.KV, g.Tensors); err != nil {
			t.Fatalf("a decoded file does not encode: %v", err)
		}
		h, err := Decode(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("re-encoded file does not decode: %v", err)
		}
		var again bytes.Buffer
		if err := Encode(&again, h.KV, h.Tensors); err != nil || !bytes.Equal(out.Bytes(), again.Bytes()) {
			t.Fatalf("re-encoding is not stable (%v)", err)
		}
	})
}
