package ggufgen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// File is a decoded GGUF file of the subset Encode writes.
type File struct {
	Version uint32
	KV      []KV
	Tensors []Tensor
}

// Value returns the value of key, or nil.
func (f *File) Value(key string) any {
	for _, kv := range f.KV {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// maxCount bounds element counts and string lengths read from a file, so a
// corrupt length fails instead of allocating gigabytes.
const maxCount = 1 << 28

// decoder reads little-endian GGUF primitives from a byte slice.
type decoder struct {
	b   []byte
	off int
}

var errShort = errors.New("unexpected end of file")

func (d *decoder) take(n uint64) ([]byte, error) {
	if n > uint64(len(d.b)-d.off) {
		return nil, fmt.Errorf("at byte %d: %w", d.off, errShort)
	}
	s := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return s, nil
}

func (d *decoder) u32() (uint32, error) {
	b, err := d.take(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64() (uint64, error) {
	b, err := d.take(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

func (d *decoder) count() (uint64, error) {
	n, err := d.u64()
	if err == nil && n > maxCount {
		err = fmt.Errorf("at byte %d: count %d too large", d.off-8, n)
	}
	return n, err
}

func (d *decoder) str() (string, error) {
	n, err := d.count()
	if err != nil {
		return "", err
	}
	b, err := d.take(n)
	return string(b), err
}

// scalar reads one value of type t (not an array).
func (d *decoder) scalar(t uint32) (any, error) {
	switch t {
	case typeUint32:
		return d.u32()
	case typeInt32:
		v, err := d.u32()
		return int32(v), err
	case typeFloat32:
		v, err := d.u32()
		return math.Float32frombits(v), err
	case typeBool:
		b, err := d.take(1)
		if err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case typeString:
		return d.str()
	}
	return nil, fmt.Errorf("at byte %d: unsupported value type %d", d.off-4, t)
}

func (d *decoder) value() (any, error) {
	t, err := d.u32()
	if err != nil || t != typeArray {
		if err != nil {
			return nil, err
		}
		return d.scalar(t)
	}
	et, err := d.u32()
	if err != nil {
		return nil, err
	}
	n, err := d.count()
	if err != nil {
		return nil, err
	}
	switch et {
	case typeString:
		out := make([]string, 0, min(n, 1<<16))
		for range n {
			s, err := d.str()
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	case typeFloat32, typeInt32:
		raw, err := d.take(4 * n)
		if err != nil {
			return nil, err
		}
		if et == typeFloat32 {
			out := make([]float32, n)
			for i := range out {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
			return out, nil
		}
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		return out, nil
	}
	return nil, fmt.Errorf("at byte %d: unsupported array element type %d", d.off-12, et)
}

// Decode reads a GGUF v3 file whose metadata uses the types Encode writes
// and whose tensors are F32. Errors name the byte offset of the problem.
func Decode(r io.Reader) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("gguf: read: %w", err)
	}
	f, err := decode(&decoder{b: b})
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	return f, nil
}

func decode(d *decoder) (*File, error) {
	magic, err := d.u32()
	if err != nil {
		return nil, err
	}
	if magic != Magic {
		return nil, fmt.Errorf("not a GGUF file (magic %#x)", magic)
	}
	f := &File{}
	if f.Version, err = d.u32(); err != nil {
		return nil, err
	}
	if f.Version != Version {
		return nil, fmt.Errorf("version %d, want %d", f.Version, Version)
	}
	nt, err := d.count()
	if err != nil {
		return nil, err
	}
	nkv, err := d.count()
	if err != nil {
		return nil, err
	}
	for range nkv {
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		v, err := d.value()
		if err != nil {
			return nil, fmt.Errorf("metadata %s: %w", k, err)
		}
		f.KV = append(f.KV, KV{k, v})
	}
	offsets := make([]uint64, 0, min(nt, 1<<16))
	for range nt {
		var t Tensor
		if t.Name, err = d.str(); err != nil {
			return nil, err
		}
		nd, err := d.u32()
		if err != nil {
			return nil, err
		}
		if nd == 0 || nd > 4 {
			return nil, fmt.Errorf("tensor %s: %d dimensions", t.Name, nd)
		}
		for range nd {
			x, err := d.count()
			if err != nil {
				return nil, err
			}
			t.Dims = append(t.Dims, x)
		}
		typ, err := d.u32()
		if err != nil {
			return nil, err
		}
		if typ != typeF32 {
			return nil, fmt.Errorf("tensor %s: type %d, only F32 is read", t.Name, typ)
		}
		off, err := d.u64()
		if err != nil {
			return nil, err
		}
		if off%Alignment != 0 {
			return nil, fmt.Errorf("tensor %s: offset %d not aligned to %d", t.Name, off, Alignment)
		}
		f.Tensors = append(f.Tensors, t)
		offsets = append(offsets, off)
	}
	base := alignUp(uint64(d.off))
	for i := range f.Tensors {
		t := &f.Tensors[i]
		n := uint64(1)
		for _, x := range t.Dims {
			if x == 0 || n > maxCount/x {
				return nil, fmt.Errorf("tensor %s: dimensions %v: empty or over %d elements", t.Name, t.Dims, maxCount)
			}
			n *= x
		}
		start := base + offsets[i]
		if start > uint64(len(d.b)) || 4*n > uint64(len(d.b))-start {
			return nil, fmt.Errorf("tensor %s: data at %d+%d beyond the file (%d bytes): %w", t.Name, start, 4*n, len(d.b), errShort)
		}
		raw := d.b[start : start+4*n]
		t.Data = make([]float32, n)
		for k := range t.Data {
			t.Data[k] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:]))
		}
	}
	return f, nil
}
