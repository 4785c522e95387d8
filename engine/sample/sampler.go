package sample

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Sampler applies the chain of Params to logit rows and remembers accepted
// tokens for the penalties. All buffers are sized to the vocabulary in New,
// so Sample, Accept, Distribution and SampleFrom do not allocate.
type Sampler struct {
	p      Params
	nVocab int
	seed   uint32 // effective seed (DefaultSeed resolved)
	rng    mt19937
	pen    *penalties // nil when the penalties are neutral

	buf    []Candidate // working candidates, len nVocab
	out    []Candidate // typical-p scratch
	scores []typicalScore
	cs     cands

	con       Constraint // nil: unconstrained
	filtering bool       // the constraint filters the candidates of this pass
}

// New validates p and builds a Sampler for rows of nVocab logits.
func New(p Params, nVocab int) (*Sampler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if nVocab <= 0 || nVocab > math.MaxInt32 {
		return nil, fmt.Errorf("sample: vocabulary size must be in [1, 2^31), got %d", nVocab)
	}
	s := &Sampler{p: p, nVocab: nVocab, pen: newPenalties(p, nVocab)}
	s.buf = make([]Candidate, nVocab)
	if p.TypicalP < 1 {
		s.out = make([]Candidate, nVocab)
		s.scores = make([]typicalScore, nVocab)
	}
	s.Reseed()
	return s, nil
}

// Params returns the parameters the Sampler was built with.
func (s *Sampler) Params() Params { return s.p }

// Seed returns the seed in use: Params.Seed, or the random one drawn for
// DefaultSeed (llama_sampler_get_seed).
func (s *Sampler) Seed() uint32 { return s.seed }

// Reseed restarts the RNG from Params.Seed (a fresh random seed for
// DefaultSeed), as llama.cpp's sampler reset does for its dist stage.
func (s *Sampler) Reseed() {
	s.seed = s.p.Seed
	if s.seed == DefaultSeed {
		s.seed = rand.Uint32()
	}
	s.rng.seed(s.seed)
}

// Greedy reports that Sample is deterministic and draws nothing: the
// temperature stage keeps only the highest surviving logit (Temp <= 0 with no
// dynamic range). The pick is the argmax of the penalized logits, except that
// TypicalP < 1 may remove that argmax first, exactly as in llama.cpp.
func (s *Sampler) Greedy() bool { return s.p.greedyChain() }

// Accept records a generated (sampled or forced) token: the penalty window
// sees it and the Constraint advances past it. Ids outside the vocabulary
// are ignored by the penalties. Prompt tokens go to AcceptPrompt.
func (s *Sampler) Accept(tok int32) {
	if s.pen != nil {
		s.pen.accept(tok)
	}
	if s.con != nil {
		s.con.Accept(tok)
	}
}

// Reset forgets the accepted tokens (a new prompt). The RNG continues; call
// Reseed as well to replay a seeded run from its start.
func (s *Sampler) Reset() {
	if s.pen != nil {
		s.pen.reset()
	}
}

// Clone returns an independent copy with the same history and RNG state, so
// that a speculative branch can be sampled and discarded (llama_sampler_clone).
// The Constraint is copied when it implements ConstraintCloner.
func (s *Sampler) Clone() *Sampler {
	c := *s
	c.pen = s.pen.clone()
	c.buf = make([]Candidate, s.nVocab)
	if s.out != nil {
		c.out = make([]Candidate, s.nVocab)
		c.scores = make([]typicalScore, s.nVocab)
	}
	c.cs = cands{}
	c.con = cloneConstraint(s.con)
	return &c
}
