package sample

import (
	"fmt"
	"math"
)

// Sample returns the next token for one row of logits: logit bias, the
// configured stages in order (or temperature and Mirostat), then the draw.
// logits must hold exactly the vocabulary size given to New (a mismatch is
// a programming error and panics); it is only read. Sample does not Accept
// the token. Under a Constraint a rejected pick is drawn again from the
// filtered candidates (see Constraint).
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
	if s.fast {
		if s.filtering {
			return s.argmaxAllowed(logits)
		}
		return s.argmax(logits)
	}
	s.load(logits)
	return s.selectToken()
}

// Distribution runs the same chain as Sample without drawing and returns the
// surviving candidates with P normalised as llama.cpp's dist stage computes
// it. The order is the one the draw scans: descending logit whenever a stage
// sorted, typical order after typical-p, and vocabulary order when nothing
// sorted. A greedy chain may contain zero-probability entries (logit -Inf);
// the greedy fast path returns just the argmax with P = 1. When
// HasDistribution is false, the random stages are left out: XTC removes
// nothing, Mirostat does not truncate and adaptive-p does not reshape. The
// slice aliases the Sampler's buffer and is valid until the next call on s;
// it consumes no randomness. Under a Constraint the rejected candidates are
// filtered out before the chain runs.
func (s *Sampler) Distribution(logits []float32) []Candidate {
	s.checkRow(logits)
	s.filtering = s.con != nil
	defer s.endFiltering()
	if s.fast {
		id := s.argmax(logits)
		if s.filtering {
			id = s.argmaxAllowed(logits)
		}
		s.buf[0] = Candidate{ID: id, Logit: s.biasedLogit(logits, int(id)), P: 1}
		return s.buf[:1]
	}
	s.load(logits)
	s.runStages(false)
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
// SampleFrom(Distribution(x)) picks what Sample(x) would when
// HasDistribution is true, except when the uniform draw lands within
// float32 rounding of a bucket edge.
func (s *Sampler) SampleFrom(c []Candidate) int32 {
	if len(c) == 0 {
		return -1
	}
	return c[drawP(c, &s.rng)].ID
}

func (s *Sampler) checkRow(logits []float32) {
	if len(logits) != s.nVocab {
		panic(fmt.Sprintf("sample: got %d logits, sampler built for %d", len(logits), s.nVocab))
	}
}

// load fills the working candidates with the logits in vocabulary order
// (NaN becomes -Inf) and applies the logit bias, which always runs first.
func (s *Sampler) load(logits []float32) {
	for i, l := range logits {
		if l != l { // NaN
			l = float32(math.Inf(-1))
		}
		s.buf[i] = Candidate{ID: int32(i), Logit: l}
	}
	s.cs = cands{c: s.buf, ident: true}
	if s.filtering {
		s.con.Filter(s.cs.c) // the grammar comes before the chain, as in common_sampler_sample
	}
	s.cs.logitBias(s.p.LogitBias)
}

// selectToken runs the stages on the loaded candidates and draws.
func (s *Sampler) selectToken() int32 {
	s.runStages(true)
	switch {
	case s.p.Mirostat == 1:
		return s.mirostatV1()
	case s.p.Mirostat == 2:
		return s.mirostatV2()
	case s.adapt != nil:
		return s.adapt.sample(&s.cs, &s.rng)
	}
	i := dist(s.cs.c, s.cs.sorted, &s.rng, false)
	return s.cs.c[i].ID
}

// runStages applies every stage between the logit bias and the draw.
// Under Mirostat that is the plain temperature. draw false leaves XTC out
// (Distribution must not consume randomness).
func (s *Sampler) runStages(draw bool) {
	if s.p.Mirostat != 0 {
		if s.p.Temp != 1 {
			s.cs.temperature(s.p.Temp)
		}
		return
	}
	xtc := 0
	for _, st := range s.order {
		if st == StageXTC && len(s.xtc) > 0 {
			if draw {
				s.cs.xtc(s.p.XTCProbability, s.p.XTCThreshold, s.p.MinKeep, &s.xtc[xtc])
			}
			xtc++
			continue
		}
		s.applyStage(st)
	}
}

// applyStage runs one deterministic stage.
func (s *Sampler) applyStage(st Stage) {
	p := &s.p
	switch st {
	case StagePenalties:
		if s.pen != nil {
			s.pen.apply(&s.cs)
		}
	case StageDRY:
		if s.dry != nil {
			s.dry.apply(&s.cs)
		}
	case StageTopNSigma:
		s.cs.topNSigma(p.TopNSigma)
	case StageTopK:
		s.cs.topK(p.TopK)
	case StageTypicalP:
		s.cs.typical(p.TypicalP, p.MinKeep, s.scores, s.out)
	case StageTopP:
		s.cs.topP(p.TopP, p.MinKeep)
	case StageMinP:
		s.cs.minP(p.MinP, p.MinKeep)
	case StageTemperature:
		s.temperatureStage()
	}
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

// argmax returns the lowest id with the highest biased (and, with fastPen,
// penalized) logit; NaN never wins and an all -Inf/NaN row returns 0.
func (s *Sampler) argmax(logits []float32) int32 {
	best, bestL := 0, negInf
	if !s.fastPen && s.biased == nil {
		for i, l := range logits {
			if l > bestL {
				best, bestL = i, l
			}
		}
		return int32(best)
	}
	for i := range logits {
		if l := s.biasedLogit(logits, i); l > bestL {
			best, bestL = i, l
		}
	}
	return int32(best)
}

// biasedLogit is logit i after the logit bias and, on the fast path, the
// penalties, in llama.cpp's order (NaN reads as -Inf).
func (s *Sampler) biasedLogit(logits []float32, i int) float32 {
	l := logits[i]
	if l != l {
		l = negInf
	}
	if s.biased != nil && s.biased[i] {
		for _, b := range s.p.LogitBias {
			if int(b.Token) == i {
				l += b.Bias
			}
		}
	}
	if s.fastPen {
		if cnt := s.pen.countOf(i); cnt > 0 {
			l = s.pen.penalize(l, cnt)
		}
	}
	return l
}
