// Package ggufgen writes small random-weight language models in the GGUF
// file format, so tests can run a real inference engine (ollama, the
// llama.cpp server) without downloading a model. The models produce noise,
// but they load, tokenize, batch and stream like real ones: what a serving
// benchmark measures is the engine, not the weights.
//
// The format is GGUF version 3 as specified in the ggml repository
// (docs/gguf.md): a header, typed key/value metadata, tensor descriptors,
// then the tensor data, each tensor aligned to general.alignment bytes.
// The package writes it from that description; it carries a reader of the
// same subset so tests can check what was written.
package ggufgen

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Magic is the first four bytes of a GGUF file ("GGUF" in ASCII, read as
// a little-endian uint32).
const Magic = 0x46554747

// Version is the GGUF version written.
const Version = 3

// Alignment is the alignment of the data section and of every tensor in
// it, the format's default (general.alignment is then not required).
const Alignment = 32

// Value types of the metadata, numbered as the specification numbers them.
const (
	typeUint32  = 4
	typeInt32   = 5
	typeFloat32 = 6
	typeBool    = 7
	typeString  = 8
	typeArray   = 9
)

// Tensor element types (ggml_type): only F32 is written; the weights of a
// test model are too small for quantization to matter.
const typeF32 = 0

// KV is one metadata entry. Value is one of uint32, int32, float32, bool,
// string, []string, []float32 or []int32.
type KV struct {
	Key   string
	Value any
}

// Tensor is one named tensor. Dims are in ggml order: Dims[0] is the
// fastest-varying (innermost) dimension, so a matrix that maps width a to
// width b is {a, b}. Data holds the product of Dims values.
type Tensor struct {
	Name string
	Dims []uint64
	Data []float32
}

// elements returns the number of elements the dimensions describe.
func (t *Tensor) elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// encoder writes little-endian GGUF primitives, keeping the first error.
type encoder struct {
	w   *bufio.Writer
	n   int64 // bytes written, for alignment
	err error
}

func (e *encoder) bytes(b []byte) {
	if e.err != nil {
		return
	}
	var k int
	k, e.err = e.w.Write(b)
	e.n += int64(k)
}

func (e *encoder) u32(v uint32) { e.bytes(binary.LittleEndian.AppendUint32(nil, v)) }
func (e *encoder) u64(v uint64) { e.bytes(binary.LittleEndian.AppendUint64(nil, v)) }

// str writes a GGUF string: a uint64 byte length, then the UTF-8 bytes
// without a terminator.
func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.bytes([]byte(s))
}

func (e *encoder) pad() {
	if r := e.n % Alignment; r != 0 {
		e.bytes(make([]byte, Alignment-r))
	}
}

// value writes a metadata value with its type tag.
func (e *encoder) value(key string, v any) {
	switch x := v.(type) {
	case uint32:
		e.u32(typeUint32)
		e.u32(x)
	case int32:
		e.u32(typeInt32)
		e.u32(uint32(x))
	case float32:
		e.u32(typeFloat32)
		e.u32(math.Float32bits(x))
	case bool:
		e.u32(typeBool)
		if x {
			e.bytes([]byte{1})
		} else {
			e.bytes([]byte{0})
		}
	case string:
		e.u32(typeString)
		e.str(x)
	case []string:
		e.u32(typeArray)
		e.u32(typeString)
		e.u64(uint64(len(x)))
		for _, s := range x {
			e.str(s)
		}
	case []float32:
		e.u32(typeArray)
		e.u32(typeFloat32)
		e.u64(uint64(len(x)))
		for _, f := range x {
			e.u32(math.Float32bits(f))
		}
	case []int32:
		e.u32(typeArray)
		e.u32(typeInt32)
		e.u64(uint64(len(x)))
		for _, i := range x {
			e.u32(uint32(i))
		}
	default:
		if e.err == nil {
			e.err = fmt.Errorf("gguf: metadata %s: unsupported value type %T", key, v)
		}
	}
}

// Encode writes a GGUF v3 file of kvs and tensors to w. Tensor data offsets
// are assigned in order, each aligned to Alignment.
func Encode(w io.Writer, kvs []KV, tensors []Tensor) error {
	for i := range tensors {
		t := &tensors[i]
		if uint64(len(t.Data)) != t.elements() {
			return fmt.Errorf("gguf: tensor %s: %d values for dimensions %v", t.Name, len(t.Data), t.Dims)
		}
	}
	e := &encoder{w: bufio.NewWriterSize(w, 1<<20)}
	e.u32(Magic)
	e.u32(Version)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		e.value(kv.Key, kv.Value)
	}
	var offset uint64
	for i := range tensors {
		t := &tensors[i]
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(typeF32)
		e.u64(offset)
		offset += alignUp(4 * t.elements())
	}
	e.pad()
	buf := make([]byte, 0, 1<<16)
	for i := range tensors {
		for _, f := range tensors[i].Data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
			if len(buf) == cap(buf) {
				e.bytes(buf)
				buf = buf[:0]
			}
		}
		e.bytes(buf)
		buf = buf[:0]
		e.pad()
	}
	if e.err != nil {
		return fmt.Errorf("gguf: write: %w", e.err)
	}
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("gguf: write: %w", err)
	}
	return nil
}

func alignUp(n uint64) uint64 { return (n + Alignment - 1) / Alignment * Alignment }
