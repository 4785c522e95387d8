// Package ngramcache is llama.cpp's ngram-cache drafter (llama-lookup): n-gram
// → successor-count tables built from the current context (keys of 1 to 4
// tokens), optionally from a dynamic cache file carried across runs and a
// static cache file built from a corpus (bigram keys), read and written in
// llama.cpp's lookup-cache file format.
package ngramcache

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// MaxN is LLAMA_NGRAM_MAX: the longest key. StaticN is LLAMA_NGRAM_STATIC:
// the key length of static caches.
const (
	MaxN    = 4
	StaticN = 2
)

// Ngram is a key of 1..4 tokens; unused slots are -1 (LLAMA_TOKEN_NULL).
type Ngram [MaxN]int32

// Key builds an Ngram from up to MaxN tokens.
func Key(toks []int32) Ngram {
	k := Ngram{-1, -1, -1, -1}
	copy(k[:], toks)
	return k
}

// Cache maps an n-gram to the counts of the tokens that followed it.
type Cache map[Ngram]map[int32]int32

// Update counts, for every n in [nMin, nMax], the n-grams of inp that end
// at index ≥ len(inp)−nNew, each with the token after it.
func (c Cache) Update(nMin, nMax int, inp []int32, nNew int) {
	for n := nMin; n <= nMax; n++ {
		for i := max(len(inp)-nNew, n); i < len(inp); i++ {
			k := Key(inp[i-n : i])
			part := c[k]
			if part == nil {
				part = map[int32]int32{}
				c[k] = part
			}
			part[inp[i]]++
		}
	}
}

// Merge adds every count of add into c.
func (c Cache) Merge(add Cache) {
	for k, part := range add {
		dst := c[k]
		if dst == nil {
			dst = make(map[int32]int32, len(part))
			c[k] = dst
		}
		for tok, n := range part {
			dst[tok] = satAdd(dst[tok], n)
		}
	}
}

// Save writes c in llama.cpp's format: for each n-gram, 4 int32 tokens,
// an int32 count of entries, then (token, count) int32 pairs; little
// endian, no header. Records are sorted so that the bytes are reproducible
// (llama.cpp writes hash-map order, which its loader does not depend on).
func (c Cache) Save(w io.Writer) error {
	bw := bufio.NewWriter(w)
	keys := make([]Ngram, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Ngram) int { return slices.Compare(a[:], b[:]) })
	var buf [8]byte
	put := func(v int32) {
		binary.LittleEndian.PutUint32(buf[:4], uint32(v))
		bw.Write(buf[:4])
	}
	for _, k := range keys {
		part := c[k]
		if len(part) == 0 {
			continue
		}
		for _, t := range k {
			put(t)
		}
		put(int32(len(part)))
		toks := make([]int32, 0, len(part))
		for t := range part {
			toks = append(toks, t)
		}
		slices.Sort(toks)
		for _, t := range toks {
			put(t)
			put(part[t])
		}
	}
	return bw.Flush()
}

// maxEntries bounds one record's entry count, so a corrupt length cannot
// ask for an unbounded allocation (no vocabulary has 2^24 tokens).
const maxEntries = 1 << 24

// Load reads a cache in llama.cpp's format. A truncated record, a
// non-positive entry count or token count, or an n-gram whose first token
// is -1 is an error naming the byte offset.
func Load(r io.Reader) (Cache, error) {
	br := bufio.NewReader(r)
	c := Cache{}
	var off int64
	var b [4]byte
	read := func() (int32, error) {
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return 0, err
		}
		off += 4
		return int32(binary.LittleEndian.Uint32(b[:])), nil
	}
	for {
		start := off
		var k Ngram
		for i := range k {
			v, err := read()
			if err != nil {
				if i == 0 && errors.Is(err, io.EOF) {
					return c, nil
				}
				return nil, fmt.Errorf("ngramcache: record at byte %d: truncated n-gram", start)
			}
			k[i] = v
		}
		if k[0] < 0 {
			return nil, fmt.Errorf("ngramcache: record at byte %d: empty n-gram", start)
		}
		n, err := read()
		if err != nil {
			return nil, fmt.Errorf("ngramcache: record at byte %d: truncated entry count", start)
		}
		if n <= 0 || n > maxEntries {
			return nil, fmt.Errorf("ngramcache: record at byte %d: entry count %d out of range", start, n)
		}
		part := c[k]
		if part == nil {
			part = make(map[int32]int32, min(n, 64))
			c[k] = part
		}
		for range n {
			tok, err1 := read()
			cnt, err2 := read()
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("ngramcache: record at byte %d: truncated entries", start)
			}
			if cnt <= 0 {
				return nil, fmt.Errorf("ngramcache: record at byte %d: count %d for token %d is not positive", start, cnt, tok)
			}
			part[tok] = satAdd(part[tok], cnt)
		}
	}
}

// satAdd adds positive counts without wrapping past MaxInt32 (a file may
// repeat a record; llama.cpp's int32 would overflow).
func satAdd(a, b int32) int32 {
	if s := int64(a) + int64(b); s <= math.MaxInt32 {
		return int32(s)
	}
	return math.MaxInt32
}
