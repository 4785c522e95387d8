package sample

import (
	"fmt"
	"math"
)

// Sample returns the next token for one row of logits: penalties from the
// accepted history, then the chain, then the draw. logits must hold exactly
// the vocabulary size given to New (a mismatch is a programming error and
// panics); it is only read. Sample does not Accept the token. Under a
// Constraint a rejected pick is drawn again from the filtered candidates
// (see Constraint).
func (s *Sampler) Sample(logits []float32) int32 {
	s.checkRow(logits)
	tok := s.pick(logits)
	if s.con != nil && !s.con.Allowed(tok) {
		tok = s.resample(logits)
	}
	return tok
}

// pick runs the chain once and draws; while filtering, the constraint
// removes its rejected candidates before the chain runs.
func (s *Sampler) pick(logits []float32) int32 {
	if s.fastGreedy() {
		if s.filtering {
			return s.argmaxAllowed(logits)
		}
		return s.argmax(logits)
	}
	s.runChain(logits)
	i := dist(s.cs.c, s.cs.sorted, &s.rng, false)
	return s.cs.c[i].ID
}

// Distribution runs the same chain as Sample without drawing and returns the
// surviving candidates with P normalised as llama.cpp's dist stage computes
// it. The order is the one the draw scans: descending logit whenever top-k,
// top-p, min-p (on a cut) or top-n-σ sorted, typical order after typical-p,
// and vocabulary order when nothing sorted. A greedy chain may contain
// zero-probability entries (logit -Inf); the greedy fast path returns just
// the argmax with P = 1. The slice aliases the Sampler's buffer and is valid
// until the next call on s; it consumes no randomness. Under a Constraint
// the rejected candidates are filtered out before the chain runs.
func (s *Sampler) Distribution(logits []float32) []Candidate {
	s.checkRow(logits)
	s.filtering = s.con != nil
	defer s.endFiltering()
	if s.fastGreedy() {
		id := s.argmax(logits)
		if s.filtering {
			id = s.argmaxAllowed(logits)
		}
		s.buf[0] = Candidate{ID: id, Logit: s.penalized(logits, int(id)), P: 1}
		return s.buf[:1]
	}
	s.runChain(logits)
	c := s.cs.c
	if len(c) == 1 {
		c[0].P = 1
		return c
	}
	normalizeP(c, fillExp(c, s.cs.sorted))
	return c
}

// SampleFrom draws one token from c by its P values (which need not sum to
// exactly 1) with this Sampler's RNG, the same way the dist stage scans. A
// single candidate is returned without a draw; an empty c returns -1.
// SampleFrom(Distribution(x)) picks what Sample(x) would, except when the
// uniform draw lands within float32 rounding of a bucket edge.
func (s *Sampler) SampleFrom(c []Candidate) int32 {
	if len(c) == 0 {
		return -1
	}
	return c[drawP(c, &s.rng)].ID
}

// fastGreedy reports whether the chain reduces to an argmax over the
// penalized logits: greedy temperature and no typical-p, the only stage
// before temperature that can drop the highest logit.
func (s *Sampler) fastGreedy() bool {
	return s.p.greedyChain() && s.p.TypicalP >= 1
}

func (s *Sampler) checkRow(logits []float32) {
	if len(logits) != s.nVocab {
		panic(fmt.Sprintf("sample: got %d logits, sampler built for %d", len(logits), s.nVocab))
	}
}

// argmax returns the lowest id with the highest penalized logit; NaN never
// wins and an all -Inf/NaN row returns 0.
func (s *Sampler) argmax(logits []float32) int32 {
	best, bestL := 0, negInf
	if s.pen == nil {
		for i, l := range logits {
			if l > bestL {
				best, bestL = i, l
			}
		}
		return int32(best)
	}
	for i, l := range logits {
		if cnt := s.pen.countOf(i); cnt > 0 {
			l = s.pen.penalize(l, cnt)
		}
		if l > bestL {
			best, bestL = i, l
		}
	}
	return int32(best)
}

func (s *Sampler) penalized(logits []float32, i int) float32 {
	if s.pen != nil {
		if cnt := s.pen.countOf(i); cnt > 0 {
			return s.pen.penalize(logits[i], cnt)
		}
	}
	return logits[i]
}

// runChain loads the logits into the working buffer and applies every stage
// up to, not including, the draw, leaving the result in s.cs.
func (s *Sampler) runChain(logits []float32) {
	for i, l := range logits {
		if l != l { // NaN
			l = float32(math.Inf(-1))
		}
		s.buf[i] = Candidate{ID: int32(i), Logit: l}
	}
	s.cs = cands{c: s.buf}
	if s.filtering {
		s.con.Filter(s.cs.c)
	}
	if s.pen != nil {
		s.pen.apply(s.cs.c)
	}
	p := &s.p
	s.cs.topNSigma(p.TopNSigma)
	s.cs.topK(p.TopK)
	s.cs.typical(p.TypicalP, p.MinKeep, s.scores, s.out)
	s.cs.topP(p.TopP, p.MinKeep)
	s.cs.minP(p.MinP, p.MinKeep)
	s.temperatureStage()
}

// temperatureStage is llama_sampler_temp_ext: a no-op at Temp 1 without a
// dynamic range, dynamic temperature when DynatempRange > 0, plain otherwise.
func (s *Sampler) temperatureStage() {
	p := &s.p
	switch {
	case p.DynatempRange > 0:
		s.cs.dynatemp(p.Temp, p.DynatempRange, p.DynatempExponent)
	case p.Temp != 1:
		s.cs.temperature(p.Temp)
	}
}
