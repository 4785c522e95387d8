package ngram

import (
	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
)

// Simple is ngram-simple: the key is the last SizeN tokens of the context
// (History and Last); the most recent earlier occurrence of the key in
// History (not at index 0) supplies what followed it, up to SizeM tokens.
// A continuation shorter than SizeN is not drafted. It keeps no state;
// MinHits is unused, as in llama.cpp. Cost: one backward scan of the
// context per draft, O(len·SizeN) at worst.
type Simple struct{ p spec.NgramParams }

// NewSimple returns an ngram-simple strategy.
func NewSimple(p spec.NgramParams) *Simple { return &Simple{p: p} }

func (s *Simple) Name() string          { return "ngram-simple" }
func (s *Simple) Begin(int, []int32)    {}
func (s *Simple) Accept(int, int)       {}
func (s *Simple) Observe(*engine.Batch) {}

func (s *Simple) Draft(reqs []*spec.Request) {
	n, m := s.p.SizeN, s.p.SizeM
	for _, r := range reqs {
		L := len(r.History)
		if L <= n+m+1 {
			continue
		}
		key := r.Len() - n // the key occupies context[key : key+n]
		for j := L - n - 1; j >= 1; j-- {
			if !equalAt(r, j, key, n) {
				continue
			}
			c := min(m, L-(j+n))
			if c >= n {
				r.Draft = append(r.Draft, r.History[j+n:j+n+c]...)
			}
			break
		}
	}
}
