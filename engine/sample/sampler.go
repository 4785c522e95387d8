package sample

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Sampler applies the chain of Params to logit rows and remembers accepted
// tokens for the stages that look back (penalties, DRY, adaptive-p). All
// buffers are sized to the vocabulary in New, so Sample, Accept,
// Distribution and SampleFrom do not allocate.
type Sampler struct {
	p      Params
	nVocab int
	seed   uint32  // effective seed (DefaultSeed resolved)
	rng    mt19937 // the final draw's: dist, Mirostat or adaptive-p
	order  []Stage // the stages between logit bias and the draw
	xtc    []mt19937
	pen    *penalties // nil when the penalties are neutral or not in the order
	dry    *dry       // nil when DRY is off
	adapt  *adaptiveP // nil unless adaptive-p ends the chain
	mu     float32    // Mirostat's running surprise bound

	// fast marks a greedy chain that reduces to an argmax over the
	// biased (and, with fastPen, penalized) logits.
	fast, fastPen bool
	// biased marks the tokens with a logit bias (nil without any) for the
	// fast path.
	biased []bool

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
	for _, b := range p.LogitBias {
		if int(b.Token) >= nVocab {
			return nil, paramErr("logit_bias", "logit_bias token %d is outside the vocabulary [0, %d)", b.Token, nVocab)
		}
	}
	s := &Sampler{p: p, nVocab: nVocab, order: p.stages()}
	s.pen, s.dry = newPenalties(&s.p, nVocab), newDry(&s.p, nVocab)
	s.buf = make([]Candidate, nVocab)
	if p.TypicalP < 1 {
		s.out = make([]Candidate, nVocab)
		s.scores = make([]typicalScore, nVocab)
	}
	if p.xtcActive() {
		for _, st := range s.order {
			if st == StageXTC {
				s.xtc = append(s.xtc, mt19937{})
			}
		}
	}
	if p.Mirostat == 0 && p.has(StageAdaptiveP) {
		s.adapt = newAdaptiveP(p, nVocab)
	}
	s.fast, s.fastPen = fastGreedy(&s.p)
	if s.fast && len(p.LogitBias) > 0 {
		s.biased = make([]bool, nVocab)
		for _, b := range p.LogitBias {
			s.biased[b.Token] = true
		}
	}
	s.resetState()
	s.Reseed()
	return s, nil
}

// fastGreedy decides whether a greedy chain can skip the candidate array:
// only when nothing before the temperature stage can move the argmax
// except the logit bias and one penalties stage. Stages after a greedy
// temperature keep its single finite logit, so they cannot change the pick.
func fastGreedy(p *Params) (fast, pen bool) {
	if !p.greedyChain() {
		return false, false
	}
	for _, st := range p.stages() {
		switch {
		case st == StageTemperature:
			return true, pen
		case st == StagePenalties && p.penaltiesActive():
			if pen {
				return false, false // applied twice
			}
			pen = true
		case st == StageTypicalP && p.TypicalP < 1, st == StageDRY && p.dryActive():
			return false, false
		}
	}
	return false, false
}

// Params returns the parameters the Sampler was built with.
func (s *Sampler) Params() Params { return s.p }

// Seed returns the seed in use: Params.Seed, or the random one drawn for
// DefaultSeed (llama_sampler_get_seed).
func (s *Sampler) Seed() uint32 { return s.seed }

// Reseed restarts every RNG (the draw's and each XTC stage's) from
// Params.Seed, or from a fresh random seed for DefaultSeed, as llama.cpp's
// sampler reset does.
func (s *Sampler) Reseed() {
	s.seed = s.p.Seed
	if s.seed == DefaultSeed {
		s.seed = rand.Uint32()
	}
	s.rng.seed(s.seed)
	for i := range s.xtc {
		s.xtc[i].seed(s.seed)
	}
}

// Greedy reports that Sample is deterministic and draws nothing: the
// temperature stage keeps only the highest surviving logit (Temp <= 0 with no
// dynamic range) and no stage draws (Mirostat, XTC, adaptive-p). The pick is
// the argmax of the biased and penalized logits, except that typical-p or
// DRY before the temperature stage may change it, exactly as in llama.cpp.
func (s *Sampler) Greedy() bool { return s.p.greedyChain() }

// HasDistribution reports whether Distribution is the distribution Sample
// draws from. It is false when a stage of the chain is itself random or
// adapts to its own draws (Mirostat, XTC, adaptive-p); speculative
// verification must then compare the sampled token with the draft instead.
func (s *Sampler) HasDistribution() bool {
	return s.p.Mirostat == 0 && len(s.xtc) == 0 && s.adapt == nil
}

// Accept records a generated (sampled or forced) token in the history of
// the stages that look back and advances the Constraint past it. Ids
// outside the vocabulary are ignored by the history. Prompt tokens go to
// AcceptPrompt.
func (s *Sampler) Accept(tok int32) {
	if s.pen != nil {
		s.pen.accept(tok)
	}
	if s.dry != nil {
		s.dry.accept(tok)
	}
	if s.adapt != nil {
		s.adapt.accept(tok)
	}
	if s.con != nil {
		s.con.Accept(tok)
	}
}

// Reset forgets the accepted tokens and Mirostat's and adaptive-p's running
// state (a new prompt). The RNGs continue; call Reseed as well to replay a
// seeded run from its start.
func (s *Sampler) Reset() {
	if s.pen != nil {
		s.pen.reset()
	}
	if s.dry != nil {
		s.dry.reset()
	}
	s.resetState()
}

func (s *Sampler) resetState() {
	s.mu = 2 * s.p.MirostatTau
	if s.adapt != nil {
		s.adapt.reset()
	}
}

// Clone returns an independent copy with the same history and RNG state, so
// that a speculative branch can be sampled and discarded (llama_sampler_clone).
func (s *Sampler) Clone() *Sampler {
	c := *s
	c.pen = s.pen.clone()
	c.dry = s.dry.clone()
	c.adapt = s.adapt.clone()
	c.xtc = append([]mt19937(nil), s.xtc...)
	c.buf = make([]Candidate, s.nVocab)
	if s.out != nil {
		c.out = make([]Candidate, s.nVocab)
		c.scores = make([]typicalScore, s.nVocab)
	}
	c.cs = cands{}
	c.con = cloneConstraint(s.con)
	return &c
}

// StageNames returns the configured stage order by llama.cpp's canonical
// names (what llama-server reports as "samplers"; Mirostat does not change
// it there either).
func (s *Sampler) StageNames() []string {
	if s.p.Samplers == nil {
		return SamplerNames(defaultSamplers)
	}
	return SamplerNames(s.p.Samplers)
}
