package ngramcache

import (
	"fmt"
	"os"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

func init() {
	spec.Register("ngram-cache", func(c *spec.Config) (spec.Strategy, error) {
		return New(c.NMax, c.LookupStatic, c.LookupDynamic)
	})
}

// Thresholds by key length 1..4 (llama.cpp's): the context cache is read
// with the lax ones, the dynamic cache with the strict ones.
var (
	laxSize    = [MaxN]int{2, 2, 1, 1}
	laxPct     = [MaxN]int{66, 50, 50, 50}
	strictSize = [MaxN]int{4, 3, 2, 2}
	strictPct  = [MaxN]int{75, 66, 66, 66}
)

// Strategy is ngram-cache. Each sequence has a context cache counting the
// 1..4-grams of everything it has seen (counted across cycle boundaries,
// unlike llama.cpp's server which loses n-grams straddling them). Drafting
// extends the context one token at a time: the context cache (lax), then
// the dynamic cache (strict), then the static cache alone, each candidate
// weighted ×100 per static count when the static bigram agrees. At most
// NMax tokens are drafted. When a dynamic file is named, Close merges what
// the context caches learned into it and saves it (as llama-lookup does).
type Strategy struct {
	nMax            int
	static, dynamic Cache
	dynPath         string
	seqs            []*seqCache
	ctx             []int32
}

type seqCache struct {
	c    Cache
	done int // tokens of History counted
	all  []int32
}

// New loads the caches (paths may be empty) and returns the strategy.
func New(nMax int, staticPath, dynamicPath string) (*Strategy, error) {
	s := &Strategy{nMax: max(nMax, 1), static: Cache{}, dynamic: Cache{}, dynPath: dynamicPath}
	var err error
	if staticPath != "" {
		if s.static, err = loadFile(staticPath); err != nil {
			return nil, err
		}
	}
	if dynamicPath != "" {
		if _, statErr := os.Stat(dynamicPath); statErr == nil {
			if s.dynamic, err = loadFile(dynamicPath); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

func loadFile(path string) (Cache, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

func (s *Strategy) Name() string          { return "ngram-cache" }
func (s *Strategy) Observe(*engine.Batch) {}
func (s *Strategy) Accept(int, int)       {}

func (s *Strategy) seq(i int) *seqCache {
	for i >= len(s.seqs) {
		s.seqs = append(s.seqs, nil)
	}
	if s.seqs[i] == nil {
		s.seqs[i] = &seqCache{c: Cache{}}
	}
	return s.seqs[i]
}

// Begin starts a fresh context cache for seq (its old counts go to the
// dynamic cache first when one is kept).
func (s *Strategy) Begin(seq int, prompt []int32) {
	st := s.seq(seq)
	if s.dynPath != "" {
		s.dynamic.Merge(st.c)
	}
	*st = seqCache{c: Cache{}}
}

func (s *Strategy) Draft(reqs []*spec.Request) {
	for _, r := range reqs {
		st := s.seq(r.Seq)
		if len(r.History) < st.done {
			*st = seqCache{c: Cache{}}
		}
		st.c.Update(1, MaxN, r.History, len(r.History)-st.done)
		st.done = len(r.History)
		s.ctx = append(append(s.ctx[:0], r.History...), r.Last)
		if len(s.ctx) < StaticN {
			continue
		}
		for len(r.Draft) < min(r.NMax, s.nMax) {
			tok := s.next(st.c, s.ctx)
			if tok < 0 {
				break
			}
			r.Draft = append(r.Draft, tok)
			s.ctx = append(s.ctx, tok)
		}
	}
}

// next is one step of common_ngram_cache_draft over inp (context + draft).
func (s *Strategy) next(context Cache, inp []int32) int32 {
	L := len(inp)
	partStatic := s.static[Key(inp[L-StaticN:])]
	var keys [MaxN]Ngram
	nk := 0
	for n := 1; n <= MaxN && n <= L; n++ {
		keys[nk] = Key(inp[L-n:])
		nk++
	}
	if t := tryPrimary(context, keys[:nk], partStatic, &laxSize, &laxPct); t >= 0 {
		return t
	}
	if t := tryPrimary(s.dynamic, keys[:nk], partStatic, &strictSize, &strictPct); t >= 0 {
		return t
	}
	return tryStatic(partStatic)
}

// tryPrimary tries the longest key first. Ties go to the lower token id
// (llama.cpp's depend on hash-map order).
func tryPrimary(c Cache, keys []Ngram, static map[int32]int32, size, pct *[MaxN]int) int32 {
	for i := len(keys) - 1; i >= 0; i-- {
		part := c[keys[i]]
		if part == nil {
			continue
		}
		var best int32 = -1
		var bestP, bestS, sum int64
		for tok, cnt := range part {
			w := int64(1)
			if sc, ok := static[tok]; ok {
				w = 100 * int64(sc)
			}
			sc := int64(cnt) * w
			if sc > bestP*bestS || (sc == bestP*bestS && best >= 0 && tok < best) {
				best, bestP, bestS = tok, int64(cnt), w
			}
			sum += int64(cnt)
		}
		if sum < int64(size[i]) || 100*bestP < int64(pct[i])*sum {
			continue
		}
		return best
	}
	return -1
}

func tryStatic(part map[int32]int32) int32 {
	var best int32 = -1
	var bestN, sum int64
	for tok, cnt := range part {
		if int64(cnt) > bestN || (int64(cnt) == bestN && tok < best) {
			best, bestN = tok, int64(cnt)
		}
		sum += int64(cnt)
	}
	if sum < int64(laxSize[StaticN-1]) || 100*bestN < int64(laxPct[StaticN-1])*sum {
		return -1
	}
	return best
}

// Close saves the dynamic cache, merged with what was learned, when a
// dynamic file was named.
func (s *Strategy) Close() error {
	if s.dynPath == "" {
		return nil
	}
	for _, st := range s.seqs {
		if st != nil {
			s.dynamic.Merge(st.c)
			st.c = Cache{}
		}
	}
	f, err := os.Create(s.dynPath)
	if err != nil {
		return err
	}
	if err := s.dynamic.Save(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
