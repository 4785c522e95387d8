package tokenizer

// spmModel is SentencePiece-style BPE as llama.cpp runs it: start from
// UTF-8 characters, repeatedly merge the adjacent pair whose concatenation
// is the vocab token with the highest score, and spell out anything left
// that is not a token as byte tokens <0xNN>.
type spmModel struct {
	byteTok [256]int32 // token for each byte: <0xNN>, else the one-byte text, else -1
	unk     int32
	// joins holds every pair of adjacent characters that occurs inside some
	// vocabulary token. Between two characters whose pair is not in joins no
	// merge can ever happen, so the text is cut there and each piece is
	// merged on its own (see encode).
	joins map[uint64]struct{}
}

func newSPM(textToID map[string]int32, unk int32) *spmModel {
	m := &spmModel{unk: unk, joins: spmJoins(textToID)}
	const hex = "0123456789ABCDEF"
	for b := 0; b < 256; b++ {
		m.byteTok[b] = -1
		name := string([]byte{'<', '0', 'x', hex[b>>4], hex[b&15], '>'})
		if id, ok := textToID[name]; ok {
			m.byteTok[b] = id
		} else if id, ok := textToID[string([]byte{byte(b)})]; ok {
			m.byteTok[b] = id
		}
	}
	return m
}

type spmSym struct {
	start, n   int32
	prev, next int32
}

type spmBigram struct {
	score             float32
	left, right, size int32
}

// spmLess pops the highest score first, then the leftmost pair.
func spmLess(a, b *spmBigram) bool {
	return a.score > b.score || a.score == b.score && a.left < b.left
}

// spmJoins collects the adjacent character pairs of every token text, with
// characters cut by the same lead-byte rule encode uses.
func spmJoins(textToID map[string]int32) map[uint64]struct{} {
	joins := map[uint64]struct{}{}
	for tok := range textToID {
		prev := uint64(0)
		for off := 0; off < len(tok); {
			n := min(utf8SeqLen(tok[off]), len(tok)-off)
			cur := charKey(tok[off : off+n])
			if off > 0 {
				joins[prev<<32|cur] = struct{}{}
			}
			prev, off = cur, off+n
		}
	}
	return joins
}

// charKey packs the (at most four) bytes of one character into 32 bits.
// Characters of different lengths cannot collide: a character longer than
// one byte starts with a lead byte >= 0xC0, which no shorter one has in
// that position. (A collision would only suppress a cut, never add one.)
func charKey[T ~string | ~[]byte](c T) uint64 {
	var k uint64
	for i := 0; i < len(c); i++ {
		k = k<<8 | uint64(c[i])
	}
	return k
}

// encode tokenizes text (already space-escaped) and appends to out.
//
// llama.cpp merges bigrams over the whole text in one priority order (best
// score, then leftmost). A merge only ever joins characters whose pair
// occurs inside a token, so at a pair that occurs in no token the text falls
// apart into pieces whose merges never interact; merging each piece alone,
// in the same order restricted to it, gives exactly llama.cpp's result while
// keeping every heap small enough to stay in cache.
func (m *spmModel) encode(t *Tokenizer, s *session, text []byte, out []int32) []int32 {
	start, prev := 0, uint64(0)
	for off := 0; off < len(text); {
		n := min(utf8SeqLen(text[off]), len(text)-off)
		cur := charKey(text[off : off+n])
		if off > start {
			if _, joined := m.joins[prev<<32|cur]; !joined {
				out = m.encodePiece(t, s, text[start:off], out)
				start = off
			}
		}
		prev, off = cur, off+n
	}
	return m.encodePiece(t, s, text[start:], out)
}

// encodePiece runs llama.cpp's greedy bigram merging on one piece of text.
func (m *spmModel) encodePiece(t *Tokenizer, s *session, text []byte, out []int32) []int32 {
	if len(text) == 0 {
		return out
	}
	syms := s.spmSyms[:0]
	for off := 0; off < len(text); {
		n := min(utf8SeqLen(text[off]), len(text)-off)
		i := int32(len(syms))
		syms = append(syms, spmSym{start: int32(off), n: int32(n), prev: i - 1, next: i + 1})
		off += n
	}
	syms[len(syms)-1].next = -1
	h := s.spmHeap[:0]
	for i := 1; i < len(syms); i++ {
		h = m.addBigram(t, h, syms, text, int32(i-1), int32(i))
	}
	for len(h) > 0 {
		var bg spmBigram
		bg, h = heapPop(h, spmLess)
		l, r := &syms[bg.left], &syms[bg.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != bg.size {
			continue
		}
		l.n += r.n
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = bg.left
		}
		h = m.addBigram(t, h, syms, text, l.prev, bg.left)
		h = m.addBigram(t, h, syms, text, bg.left, l.next)
	}
	s.spmSyms, s.spmHeap = syms, h
	for i := int32(0); i >= 0; i = syms[i].next {
		piece := text[syms[i].start : syms[i].start+syms[i].n]
		if id, ok := t.textToID[string(piece)]; ok {
			out = append(out, id)
			continue
		}
		for _, b := range piece {
			out = m.appendByte(out, b)
		}
	}
	return out
}

// appendByte spells one byte as a token. llama.cpp throws when a vocab has
// no token for a byte; here the unknown token stands in (or nothing, when
// there is none either).
func (m *spmModel) appendByte(out []int32, b byte) []int32 {
	if id := m.byteTok[b]; id >= 0 {
		return append(out, id)
	}
	if m.unk >= 0 {
		return append(out, m.unk)
	}
	return out
}

func (m *spmModel) addBigram(t *Tokenizer, h []spmBigram, syms []spmSym, text []byte, l, r int32) []spmBigram {
	if l < 0 || r < 0 {
		return h
	}
	size := syms[l].n + syms[r].n
	id, ok := t.textToID[string(text[syms[l].start:syms[l].start+size])]
	if !ok {
		return h
	}
	return heapPush(h, spmBigram{score: t.score(id), left: l, right: r, size: size}, spmLess)
}
