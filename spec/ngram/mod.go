package ngram

import (
	"sync"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

const (
	poolSize     = 4 << 20 // entries (16 MiB of int32), llama.cpp's 4×1024×1024
	modChunk     = 32      // new tokens that trigger an insertion
	modMaxFill   = 0.25    // occupancy above which Begin resets the pool
	modLowRatio  = 0.5     // acceptance below this is a low round
	modLowStreak = 3       // low rounds in a row that reset the pool
)

// Mod is ngram-mod: one pool, shared by every sequence, mapping the hash of
// an NMatch-gram to the token that last followed it (last writer wins).
// Drafts follow the chain of successors from the context's last NMatch
// tokens, up to NMax tokens; a chain shorter than NMin is discarded (before
// the request's cap is applied, as in llama.cpp). The pool is reset when
// Begin finds it more than a quarter full, and when one sequence has three
// low-acceptance rounds (< 50%) in a row. The pool (16 MiB) is allocated on
// first use.
type Mod struct {
	p    spec.ModParams
	mu   sync.Mutex // the pool may be shared by several Mods (one per server)
	pool []int32
	used int
	seqs []modSeq
	win  []int32
}

type modSeq struct {
	inserted int // context tokens whose n-grams are in the pool
	low      int
	drafted  int
}

// NewMod returns an ngram-mod strategy.
func NewMod(p spec.ModParams) *Mod { return &Mod{p: p} }

func (s *Mod) Name() string          { return "ngram-mod" }
func (s *Mod) Observe(*engine.Batch) {}

func (s *Mod) seq(i int) *modSeq {
	for i >= len(s.seqs) {
		s.seqs = append(s.seqs, modSeq{})
	}
	return &s.seqs[i]
}

// modHash is a polynomial hash with the 64-bit LCG multiplier, reduced
// modulo the pool size.
func modHash(toks []int32) int {
	var h uint64
	for _, t := range toks {
		h = h*6364136223846793005 + uint64(uint32(t))
	}
	return int(h % poolSize)
}

func (s *Mod) reset() {
	if s.pool == nil {
		s.pool = make([]int32, poolSize)
	}
	for i := range s.pool {
		s.pool[i] = -1
	}
	s.used = 0
	for i := range s.seqs {
		s.seqs[i].inserted = 0
	}
}

// insert adds the n-grams of toks that end at index ≥ from-n with their
// successors.
func (s *Mod) insert(toks []int32, from int) {
	n := s.p.NMatch
	for j := max(from-n, 0); j+n < len(toks); j++ {
		h := modHash(toks[j : j+n])
		if s.pool[h] < 0 {
			s.used++
		}
		s.pool[h] = toks[j+n]
	}
}

func (s *Mod) Begin(seq int, prompt []int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pool == nil {
		s.reset()
	}
	s.insert(prompt, 0)
	st := s.seq(seq)
	st.inserted, st.low, st.drafted = len(prompt), 0, 0
	if float64(s.used)/poolSize > modMaxFill {
		s.reset()
	}
}

func (s *Mod) Draft(reqs []*spec.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pool == nil {
		s.reset()
	}
	n := s.p.NMatch
	for _, r := range reqs {
		st := s.seq(r.Seq)
		st.drafted = 0
		if st.inserted > len(r.History) {
			st.inserted = len(r.History)
		}
		if len(r.History)-st.inserted > modChunk {
			s.insert(r.History, st.inserted)
			st.inserted = len(r.History)
		}
		if r.Len() < n {
			continue
		}
		s.win = s.win[:0]
		for i := r.Len() - n; i < r.Len(); i++ {
			s.win = append(s.win, r.Context(i))
		}
		start := len(r.Draft)
		for len(r.Draft)-start < s.p.NMax {
			next := s.pool[modHash(s.win[len(s.win)-n:])]
			if next < 0 {
				break
			}
			r.Draft = append(r.Draft, next)
			s.win = append(s.win, next)
		}
		if len(r.Draft)-start < max(s.p.NMin, 1) {
			r.Draft = r.Draft[:start]
			continue
		}
		st.drafted = len(r.Draft) - start
	}
}

func (s *Mod) Accept(seq, nAccepted int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.seq(seq)
	if st.drafted == 0 {
		return
	}
	if float64(nAccepted)/float64(st.drafted) < modLowRatio {
		st.low++
		if st.low >= modLowStreak {
			s.reset()
			st.low = 0
		}
	} else {
		st.low = 0
	}
	st.drafted = 0
}
