package ngram

import (
	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

// maxValues is llama.cpp's COMMON_NGRAM_MAX_VALUES: continuations per key.
const maxValues = 4

// Map is ngram-map-k (k4v false) and ngram-map-k4v (k4v true). Each
// sequence keeps an index from the hash of every SizeN-gram of its context
// to the positions where it starts, and per key a record of its
// continuations and how long a draft for it should be.
//
//   - map-k drafts what followed the most recent earlier occurrence of the
//     key, as long as the key's adaptive length (SizeM at first, then what
//     was accepted last time, doubled after a fully accepted draft, at
//     least 1; llama.cpp never regrows it and lets it reach 0).
//   - map-k4v classifies the SizeM tokens after every earlier occurrence
//     into up to four distinct continuations and drafts the winning one
//     (its own tokens, where llama.cpp copies the latest match's) unless
//     the others together have more than half the winner's count.
//
// Both draft only when the key occurred at least MinHits times before
// (llama.cpp ignores min-hits for map-k and the k4v flags altogether; here
// every flag does what it says). A new prompt that does not extend the
// indexed tokens rebuilds the sequence's index.
type Map struct {
	p    spec.NgramParams
	k4v  bool
	seqs []*mapSeq
}

type value struct {
	start int // context index of the continuation's first token
	count int
	nAcc  int
	toks  []int32
}

type keyRec struct {
	nAcc   int // map-k's adaptive length
	values []value
}

type mapSeq struct {
	toks    []int32            // indexed context
	index   map[uint32][]int32 // n-gram hash → start positions with a continuation
	keys    map[uint32]*keyRec
	lastKey uint32
	lastVal int // k4v: value slot drafted, -1 for map-k
	drafted int
}

// NewMap returns an ngram-map-k or ngram-map-k4v strategy.
func NewMap(p spec.NgramParams, k4v bool) *Map { return &Map{p: p, k4v: k4v} }

func (s *Map) Name() string {
	if s.k4v {
		return "ngram-map-k4v"
	}
	return "ngram-map-k"
}

func (s *Map) Observe(*engine.Batch) {}

func (s *Map) seq(i int) *mapSeq {
	for i >= len(s.seqs) {
		s.seqs = append(s.seqs, nil)
	}
	if s.seqs[i] == nil {
		s.seqs[i] = &mapSeq{index: map[uint32][]int32{}, keys: map[uint32]*keyRec{}}
	}
	return s.seqs[i]
}

// Begin keeps the index when prompt extends what was indexed, and
// rebuilds it otherwise (a client that dropped earlier reasoning).
func (s *Map) Begin(seq int, prompt []int32) {
	st := s.seq(seq)
	if len(prompt) < len(st.toks) || !prefix(st.toks, prompt) {
		s.seqs[seq] = nil
	}
}

func prefix(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// hash is llama.cpp's n-gram hash: multiply-and-add by 2654435761.
func hash(toks []int32) uint32 {
	var h uint32
	for _, t := range toks {
		h = h*2654435761 + uint32(t)
	}
	return h
}

// sync brings the index up to History: every n-gram followed by at least
// one token is indexed.
func (s *Map) sync(st *mapSeq, r *spec.Request) {
	if len(r.History) < len(st.toks) || !prefix(st.toks, r.History) {
		*st = mapSeq{index: map[uint32][]int32{}, keys: map[uint32]*keyRec{}}
	}
	n := s.p.SizeN
	from := max(len(st.toks)-n, 0)
	st.toks = append(st.toks, r.History[len(st.toks):]...)
	for j := from; j+n < len(st.toks); j++ {
		h := hash(st.toks[j : j+n])
		st.index[h] = append(st.index[h], int32(j))
	}
}

func (s *Map) Draft(reqs []*spec.Request) {
	n := s.p.SizeN
	for _, r := range reqs {
		st := s.seq(r.Seq)
		s.sync(st, r)
		st.drafted = 0
		if r.Len() < 2*n+1 { // llama.cpp waits for 2n+m tokens; a repeat can start earlier
			continue
		}
		keyAt := r.Len() - n
		var keyTok [1024]int32
		for i := range n {
			keyTok[i] = r.Context(keyAt + i)
		}
		h := hash(keyTok[:n])
		var occ []int32
		for _, j := range st.index[h] {
			if int(j) < keyAt && equalAt(r, int(j), keyAt, n) {
				occ = append(occ, j)
			}
		}
		if len(occ) < s.p.MinHits || len(occ) == 0 {
			continue
		}
		rec := st.keys[h]
		if rec == nil {
			rec = &keyRec{nAcc: s.p.SizeM}
			st.keys[h] = rec
		}
		st.lastKey = h
		if s.k4v {
			s.draftK4V(st, rec, r, occ)
		} else {
			j := int(occ[len(occ)-1]) + n
			c := min(rec.nAcc, s.p.SizeM, r.Len()-j)
			for i := range c {
				r.Draft = append(r.Draft, r.Context(j+i))
			}
			st.lastVal = -1
		}
		st.drafted = len(r.Draft)
	}
}

// draftK4V votes among the continuations of every occurrence.
func (s *Map) draftK4V(st *mapSeq, rec *keyRec, r *spec.Request, occ []int32) {
	n, m := s.p.SizeN, s.p.SizeM
	for i := range rec.values {
		rec.values[i].count = 0
	}
	for _, j := range occ {
		start := int(j) + n
		c := min(m, r.Len()-start)
		if c <= 0 {
			continue
		}
		slot := -1
		for i, v := range rec.values {
			if len(v.toks) == c && matches(v.toks, r, start) {
				slot = i
				break
			}
		}
		if slot < 0 {
			if len(rec.values) >= maxValues {
				continue
			}
			toks := make([]int32, c)
			for i := range c {
				toks[i] = r.Context(start + i)
			}
			rec.values = append(rec.values, value{start: start, nAcc: m, toks: toks})
			slot = len(rec.values) - 1
		}
		rec.values[slot].count++
	}
	best, others := -1, 0
	for i, v := range rec.values {
		if best < 0 || v.count > rec.values[best].count {
			best = i
		}
	}
	if best < 0 || rec.values[best].count == 0 {
		return
	}
	for i, v := range rec.values {
		if i != best {
			others += v.count
		}
	}
	if others > 0 && rec.values[best].count < 2*others {
		return
	}
	v := rec.values[best]
	r.Draft = append(r.Draft, v.toks[:min(len(v.toks), v.nAcc)]...)
	st.lastVal = best
}

func matches(toks []int32, r *spec.Request, start int) bool {
	for i, t := range toks {
		if r.Context(start+i) != t {
			return false
		}
	}
	return true
}

// Accept adapts the drafted key's (or value's) length.
func (s *Map) Accept(seq, nAccepted int) {
	st := s.seq(seq)
	rec := st.keys[st.lastKey]
	if rec == nil || st.drafted == 0 {
		return
	}
	next := max(nAccepted, 1)
	if nAccepted == st.drafted {
		next = min(2*st.drafted, s.p.SizeM)
	}
	if st.lastVal >= 0 && st.lastVal < len(rec.values) {
		rec.values[st.lastVal].nAcc = next
	} else {
		rec.nAcc = next
	}
	st.drafted = 0
}
