package sample

// Constraint restricts which tokens may come next: a grammar, a JSON schema
// compiled to one, a tool-call format. The Sampler consults it the way
// llama.cpp's common_sampler_sample consults its grammar sampler: the chain
// runs and draws as if unconstrained, only the drawn token is checked with
// Allowed, and only when it is rejected are the candidates rebuilt from the
// logits, Filtered, run through the chain again and drawn again. With the
// same logits, parameters and seed that picks llama.cpp's token, and it
// keeps the full-vocabulary Filter off the common path.
//
// A Constraint is driven by one Sampler and is not safe for concurrent use.
type Constraint interface {
	// Allowed reports whether tok may come next.
	Allowed(tok int32) bool
	// Filter sets Logit to -Inf on every rejected candidate. c may be in
	// any order and need not cover the vocabulary.
	Filter(c []Candidate)
	// Accept advances past tok after it was chosen. A token Allowed
	// rejected leaves the constraint failed; how that is reported is the
	// implementation's business (the Sampler keeps going).
	Accept(tok int32)
}

// ConstraintCloner is a Constraint whose state can be copied, so that
// Sampler.Clone gives the copy its own. A Constraint without it is stateless
// or is shared by the clones.
type ConstraintCloner interface {
	Constraint
	CloneConstraint() Constraint
}

// PrefixChecker is a Constraint that can test a run of tokens from its
// current state without advancing it, without allocating (a scratch state of
// its own). AllowedPrefix uses it when present.
type PrefixChecker interface {
	Constraint
	// AllowedPrefix returns how many leading tokens of toks would be
	// accepted one after another.
	AllowedPrefix(toks []int32) int
}

// SetConstraint makes c restrict every later Sample and Distribution; nil
// removes the restriction. Accept advances c; AcceptPrompt does not.
func (s *Sampler) SetConstraint(c Constraint) { s.con = c }

// Constraint returns the constraint in force, or nil.
func (s *Sampler) Constraint() Constraint { return s.con }

// AcceptPrompt records a token that was not generated (the prompt): the
// history the penalties see includes it, the constraint does not advance
// (common_sampler_accept with is_generated = false).
func (s *Sampler) AcceptPrompt(tok int32) {
	con := s.con
	s.con = nil
	s.Accept(tok)
	s.con = con
}

// AllowedPrefix returns how many leading tokens of toks the constraint would
// accept in turn from its current state, leaving that state unchanged; with
// no constraint, all of them. It is how a speculative draft is cut before
// verification. A constraint that can neither check a prefix nor be cloned
// is asked about the first token only.
func (s *Sampler) AllowedPrefix(toks []int32) int {
	switch c := s.con.(type) {
	case nil:
		return len(toks)
	case PrefixChecker:
		return c.AllowedPrefix(toks)
	case ConstraintCloner:
		cp := c.CloneConstraint()
		for i, t := range toks {
			if !cp.Allowed(t) {
				return i
			}
			cp.Accept(t)
		}
		return len(toks)
	default:
		if len(toks) > 0 && c.Allowed(toks[0]) {
			return 1
		}
		return 0
	}
}

// cloneConstraint copies c's state where it can (see ConstraintCloner).
func cloneConstraint(c Constraint) Constraint {
	if cc, ok := c.(ConstraintCloner); ok {
		return cc.CloneConstraint()
	}
	return c
}

// resample is Sample's second pass after the constraint rejected the first
// pick: the candidates are rebuilt from the logits, filtered first, and run
// through the chain and drawn again (a second RNG draw, as in llama.cpp).
func (s *Sampler) resample(logits []float32) int32 {
	s.filtering = true
	tok := s.pick(logits)
	s.filtering = false
	return tok
}

// argmaxAllowed is the greedy pick among the tokens the constraint allows:
// the lowest id with the highest biased (and penalized) logit, as argmax
// computes it. When it allows none, the unconstrained argmax is returned
// (and the constraint fails on Accept).
func (s *Sampler) argmaxAllowed(logits []float32) int32 {
	for i, l := range logits {
		s.buf[i] = Candidate{ID: int32(i), Logit: l}
	}
	s.con.Filter(s.buf)
	best, bestL := -1, negInf
	for i := range s.buf {
		if s.buf[i].Logit == negInf {
			continue
		}
		if l := s.biasedLogit(logits, i); l > bestL || best < 0 && l == l {
			best, bestL = i, l
		}
	}
	if best < 0 {
		return s.argmax(logits)
	}
	return int32(best)
}

func (s *Sampler) endFiltering() { s.filtering = false }
