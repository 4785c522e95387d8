package tokenizer

import "strings"

// bpeModel is the byte-level BPE state built once at load. BPE works on raw
// bytes: every string the algorithm can meet (single bytes, vocab tokens,
// both sides and the result of each merge) is interned to a symbol id, so a
// merge is one map lookup on a pair of ids. Symbol ids below nVocab are the
// token ids themselves.
type bpeModel struct {
	pre       preInfo
	nVocab    int32
	byteSym   [256]int32          // symbol of each single byte, or -1
	merges    map[uint64]bpeMerge // (left, right) symbol pair -> merge
	rawTok    map[string]int32    // raw bytes of each token -> id
	singleTok [256]int32          // token whose text is exactly this one byte, or -1
}

type bpeMerge struct {
	rank   int32
	result int32 // symbol id of left+right
}

func pairKey(l, r int32) uint64 { return uint64(uint32(l))<<32 | uint64(uint32(r)) }

// newBPE decodes the vocab from its byte-level form and indexes the merges.
// Merges whose text is not byte-level, or that have no space, can never
// apply and are skipped (llama.cpp keeps them but never finds them).
func newBPE(tokens []string, merges []string, pre preInfo, textToID map[string]int32) *bpeModel {
	m := &bpeModel{pre: pre, nVocab: int32(len(tokens))}
	m.rawTok = make(map[string]int32, len(tokens))
	for id, t := range tokens {
		if raw, ok := byteLevelDecode(t); ok {
			m.rawTok[string(raw)] = int32(id)
		}
	}
	extra := map[string]int32{}
	intern := func(raw []byte) int32 {
		if id, ok := m.rawTok[string(raw)]; ok {
			return id
		}
		if id, ok := extra[string(raw)]; ok {
			return id
		}
		id := m.nVocab + int32(len(extra))
		extra[string(raw)] = id
		return id
	}
	m.merges = make(map[uint64]bpeMerge, len(merges))
	var buf []byte
	for rank, s := range merges {
		sp := strings.IndexByte(s[min(1, len(s)):], ' ')
		if sp < 0 {
			continue
		}
		sp += min(1, len(s))
		l, okL := byteLevelDecode(s[:sp])
		r, okR := byteLevelDecode(s[sp+1:])
		if !okL || !okR || len(l) == 0 || len(r) == 0 {
			continue
		}
		buf = append(append(buf[:0], l...), r...)
		key := pairKey(intern(l), intern(r))
		if _, dup := m.merges[key]; !dup {
			m.merges[key] = bpeMerge{rank: int32(rank), result: intern(buf)}
		}
	}
	for b := 0; b < 256; b++ {
		m.byteSym[b] = -1
		if id, ok := m.rawTok[string([]byte{byte(b)})]; ok {
			m.byteSym[b] = id
		} else if id, ok := extra[string([]byte{byte(b)})]; ok {
			m.byteSym[b] = id
		}
		m.singleTok[b] = -1
		if id, ok := textToID[string([]byte{byte(b)})]; ok {
			m.singleTok[b] = id
		}
	}
	return m
}

// bpeSym is one symbol of the word being merged: raw bytes [start,
// start+n), linked to its neighbours; n == 0 marks a symbol merged away.
type bpeSym struct {
	start, n   int32
	prev, next int32
	id         int32
}

type bpeBigram struct {
	rank, left, right, size, result int32
}

// bpeLess orders bigrams: lowest rank first, then leftmost.
func bpeLess(a, b *bpeBigram) bool {
	return a.rank < b.rank || a.rank == b.rank && a.left < b.left
}

// encodeWord merges one pre-tokenized word (raw bytes) and appends its
// tokens to out.
func (m *bpeModel) encodeWord(s *session, word []byte, out []int32) []int32 {
	if m.pre.ignoreMerges {
		if id, ok := m.rawTok[string(word)]; ok {
			return append(out, id)
		}
	}
	syms := s.bpeSyms[:0]
	for i, b := range word {
		syms = append(syms, bpeSym{start: int32(i), n: 1, prev: int32(i) - 1, next: int32(i) + 1, id: m.byteSym[b]})
	}
	syms[len(syms)-1].next = -1
	s.bpeSyms = syms
	h := s.bpeHeap[:0]
	for i := 1; i < len(syms); i++ {
		h = m.addBigram(h, syms, int32(i-1), int32(i))
	}
	for len(h) > 0 {
		var bg bpeBigram
		bg, h = heapPop(h, bpeLess)
		l, r := &syms[bg.left], &syms[bg.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != bg.size {
			continue // stale: one side changed since this pair was queued
		}
		l.n += r.n
		l.id = bg.result
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = bg.left
		}
		h = m.addBigram(h, syms, l.prev, bg.left)
		h = m.addBigram(h, syms, bg.left, l.next)
	}
	s.bpeHeap = h
	for i := int32(0); i >= 0; i = syms[i].next {
		out = m.emitSym(out, &syms[i], word)
	}
	return out
}

func (m *bpeModel) addBigram(h []bpeBigram, syms []bpeSym, l, r int32) []bpeBigram {
	if l < 0 || r < 0 || syms[l].id < 0 || syms[r].id < 0 {
		return h
	}
	mg, ok := m.merges[pairKey(syms[l].id, syms[r].id)]
	if !ok {
		return h
	}
	return heapPush(h, bpeBigram{rank: mg.rank, left: l, right: r, size: syms[l].n + syms[r].n, result: mg.result}, bpeLess)
}

// emitSym appends the token of a finished symbol. A symbol that is not a
// token falls back, as in llama.cpp, to the tokens whose text is a single
// byte of the symbol's byte-level text; bytes without one are dropped.
func (m *bpeModel) emitSym(out []int32, sym *bpeSym, word []byte) []int32 {
	if sym.id >= 0 && sym.id < m.nVocab {
		return append(out, sym.id)
	}
	for _, b := range word[sym.start : sym.start+sym.n] {
		enc := byteToUTF8[b]
		for j := 0; j < len(enc); j++ {
			if t := m.singleTok[enc[j]]; t >= 0 {
				out = append(out, t)
			}
		}
	}
	return out
}
