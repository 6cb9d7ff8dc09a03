package sim

import "container/list"

// prefixCache remembers which full prompt blocks have been computed, keyed
// by a chained block hash (the hash of block i covers blocks 0..i and the
// cache_salt), the same shape as vLLM's automatic prefix caching. It is an
// LRU bounded by the KV cache's block count.
//
// Simplification (documented in docs/simulator.md): cached blocks are not
// shared with running sequences in the KV accounting; a hit only saves the
// prefill work, each sequence still holds its own blocks.
type prefixCache struct {
	capacity int
	order    *list.List // front = most recently used; values are uint64 hashes
	index    map[uint64]*list.Element
}

func newPrefixCache(capacity int) *prefixCache {
	return &prefixCache{capacity: capacity, order: list.New(), index: map[uint64]*list.Element{}}
}

// blockHashes returns the chained hashes of the full blocks of prompt.
func blockHashes(prompt []uint64, salt string, blockSize int) []uint64 {
	n := len(prompt) / blockSize
	out := make([]uint64, n)
	h := fnvString(fnvOffset, salt)
	for b := range n {
		for _, id := range prompt[b*blockSize : (b+1)*blockSize] {
			h = fnvUint64(h, id)
		}
		out[b] = h
	}
	return out
}

// hits counts the leading blocks present in the cache and marks them used.
func (p *prefixCache) hits(hashes []uint64) int {
	n := 0
	for _, h := range hashes {
		e, ok := p.index[h]
		if !ok {
			break
		}
		p.order.MoveToFront(e)
		n++
	}
	return n
}

// insert adds blocks, evicting the least recently used beyond capacity.
func (p *prefixCache) insert(hashes []uint64) {
	for _, h := range hashes {
		if e, ok := p.index[h]; ok {
			p.order.MoveToFront(e)
			continue
		}
		p.index[h] = p.order.PushFront(h)
	}
	p.trim()
}

func (p *prefixCache) trim() {
	for p.order.Len() > p.capacity {
		e := p.order.Back()
		delete(p.index, e.Value.(uint64))
		p.order.Remove(e)
	}
}

func (p *prefixCache) reset() {
	p.order.Init()
	clear(p.index)
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvUint64(h, v uint64) uint64 {
	for range 8 {
		h ^= v & 0xff
		h *= fnvPrime
		v >>= 8
	}
	return h
}

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}
