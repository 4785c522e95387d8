package diffusion

import (
	"cmp"
	"slices"
)

// Prepare readies the next forward: it commits finished blocks, starts
// the next one, and collects the positions the step works on. It returns
// false when the run is over.
func (r *Run) Prepare() bool {
	for !r.done {
		if r.b >= len(r.blocks) {
			r.done = true
			break
		}
		if !r.begun {
			r.beginBlock()
		}
		if r.step < r.steps && !r.settled && r.collect() {
			return true
		}
		r.commitBlock()
	}
	return false
}

// beginBlock starts block b: the block schedule's transfer counts from its
// masks, or a uniform-noise canvas drawn from a generator seeded afresh
// (the DiffusionGemma fork restarts the same stream for every canvas).
func (r *Run) beginBlock() {
	blk, s := r.blocks[r.b], &r.st
	r.begun, r.step, r.settled = true, 0, false
	switch {
	case r.info.UniformNoise:
		r.gen.seed(r.cfg.Seed)
		for p := blk.lo; p < blk.hi; p++ {
			r.canvas[p] = r.gen.intn(uint32(r.nVocab))
			r.argmax[p], r.prev[p] = -1, -1
		}
		s.held, s.prevInvT = 0, 0
	case r.cfg.Eps == 0 && r.cfg.Algorithm != EntropyBound:
		m := 0
		for _, t := range r.canvas[blk.lo:blk.hi] {
			if t == r.info.MaskToken {
				m++
			}
		}
		k := r.steps
		for i := range s.transfer[:k] {
			s.transfer[i] = m / k
			if i < m%k {
				s.transfer[i]++
			}
		}
	}
}

// collect gathers the step's positions; false when the block has none.
func (r *Run) collect() bool {
	blk, s := r.blocks[r.b], &r.st
	lo, hi := r.window()
	clear(s.need[lo:hi])
	s.masked = s.masked[:0]
	r.rec.Block, r.rec.Step, r.rec.Wrote = r.b, r.step, r.rec.Wrote[:0]
	if r.info.UniformNoise {
		r.collectUniform(blk)
		return true
	}
	for p := blk.lo; p < blk.hi; p++ {
		if r.canvas[p] == r.info.MaskToken {
			s.slot[p] = len(s.masked)
			s.masked = append(s.masked, p)
		}
	}
	r.rec.Masked = len(s.masked)
	if len(s.masked) == 0 {
		return false
	}
	if r.cfg.AddGumbelNoise && r.cfg.Temp > 0 {
		for range r.nVocab {
			r.gen.float64()
		}
	}
	s.n = r.transferCount(len(s.masked))
	r.rec.Transfer = s.n
	if r.cfg.Algorithm == Origin {
		p := float32(s.n) / float32(len(s.masked))
		for _, q := range s.masked {
			s.need[q] = r.gen.float32() < p
		}
		return true
	}
	for _, q := range s.masked {
		s.need[q] = true
	}
	return true
}

// transferCount is how many positions the step unmasks: Dream's timestep
// schedule t = 1 − s/S·(1 − eps), n = ⌊|M|·(1 − t′/t)⌋ (all at the last
// step), computed in float32 as llama-diffusion-cli does, or the block
// schedule's precomputed count.
func (r *Run) transferCount(m int) int {
	if r.cfg.Algorithm == EntropyBound {
		return 0
	}
	if r.cfg.Eps == 0 {
		return r.st.transfer[r.step]
	}
	if r.step >= r.steps-1 {
		return m
	}
	total, eps := float32(r.steps), r.cfg.Eps
	t := 1 - float32(float32(r.step)/total*(1-eps))
	s := 1 - float32(float32(r.step+1)/total*(1-eps))
	return int(float32(m) * (1 - s/t))
}

// collectUniform readies a uniform-noise step: the temperature
// T = t_min + (t_max − t_min)·cur/N with cur = N − step (the first step at
// t_max), and, per position in order, one uniform for the multinomial draw
// and one renoise token from the generator.
func (r *Run) collectUniform(blk span) {
	s, c := &r.st, &r.cfg
	n := r.steps
	cur := float32(n - r.step)
	t := c.TMin + float32(float32(c.TMax-c.TMin)*cur)/float32(n)
	s.invT = 1 / t
	for p := blk.lo; p < blk.hi; p++ {
		s.need[p] = true
		s.u[p] = r.gen.float32()
		s.renoise[p] = r.gen.intn(uint32(r.nVocab))
	}
	r.rec.Masked, r.rec.Transfer = blk.hi-blk.lo, 0
}

// Observe takes the logits row that predicts position i of the forward's
// canvas (one of the positions the step needs, in ascending order).
func (r *Run) Observe(i int, logits []float32) {
	lo, _ := r.window()
	p, s := lo+i, &r.st
	if r.info.UniformNoise {
		st := stats(logits, float64(s.invT), -1)
		r.argmax[p] = st.argmax
		s.score[p] = float64(float32(st.entropy))
		s.chosen[p] = sampleInverse(logits, &st, float64(s.invT), float64(s.u[p]))
		return
	}
	j := s.slot[p]
	switch {
	case r.cfg.Algorithm == EntropyBound:
		invT := 1.0
		if r.cfg.Temp > 0 && !r.cfg.Greedy {
			invT = 1 / float64(r.cfg.Temp)
		}
		st := stats(logits, invT, r.info.MaskToken)
		s.score[j] = st.entropy
		s.chosen[j] = st.argmax
		if r.chain != nil {
			s.chosen[j] = r.chain.sample(logits)
		}
	case r.cfg.Greedy:
		st := stats(logits, 1, r.info.MaskToken)
		s.chosen[j], s.score[j] = st.argmax, refConfidence(&st, r.cfg.Algorithm)
	default:
		s.chosen[j] = r.chain.sample(logits)
		s.score[j] = float64(r.chain.confidence(r.cfg.Algorithm))
	}
	if r.cfg.Algorithm == Random {
		s.score[j] = float64(r.gen.float32())
	}
}

// Finish applies the step to the canvas.
func (r *Run) Finish() {
	s := &r.st
	r.stats.Forwards++
	switch {
	case r.info.UniformNoise:
		r.finishUniform()
	case r.cfg.Algorithm == Origin:
		for _, q := range s.masked {
			if s.need[q] {
				r.write(q, s.chosen[s.slot[q]])
			}
		}
	case r.cfg.Algorithm == EntropyBound:
		r.rankAscending()
		sum := 0.0
		for k, j := range s.order {
			if k > 0 && sum > float64(r.cfg.Bound) {
				break
			}
			sum += s.score[j]
			r.write(s.masked[j], s.chosen[j])
		}
	default:
		if s.n > 0 {
			r.rankDescending()
			for _, j := range s.order[:min(s.n, len(s.order))] {
				r.write(s.masked[j], s.chosen[j])
			}
		}
	}
	r.step++
	if r.blockFinished() {
		r.commitBlock()
		r.done = r.done || r.b >= len(r.blocks)
	}
}

// blockFinished reports whether the current block is over: its steps are
// spent, it settled (uniform noise), or no mask is left in it. Committing
// it right away lets a server send it without waiting for another forward.
func (r *Run) blockFinished() bool {
	if r.step >= r.steps || r.settled {
		return true
	}
	if r.info.UniformNoise {
		return false
	}
	blk := r.blocks[r.b]
	for _, t := range r.canvas[blk.lo:blk.hi] {
		if t == r.info.MaskToken {
			return false
		}
	}
	return true
}

func (r *Run) write(p int, tok int32) {
	r.canvas[p] = tok
	r.rec.Wrote = append(r.rec.Wrote, [2]int32{int32(len(r.prompt) + p), tok})
}

// rankDescending orders the masked indices by descending score, ties by
// lower position (llama-diffusion-cli's partial_sort comparator).
func (r *Run) rankDescending() {
	s := &r.st
	r.indices()
	slices.SortFunc(s.order, func(a, b int) int {
		if s.score[a] != s.score[b] {
			if s.score[a] > s.score[b] {
				return -1
			}
			return 1
		}
		return cmp.Compare(a, b)
	})
}

// rankAscending orders the masked indices by ascending score, ties by
// lower position.
func (r *Run) rankAscending() {
	s := &r.st
	r.indices()
	slices.SortFunc(s.order, func(a, b int) int {
		if c := cmp.Compare(s.score[a], s.score[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
}

func (r *Run) indices() {
	s := &r.st
	s.order = s.order[:0]
	for j := range s.masked {
		s.order = append(s.order, j)
	}
}

// commitBlock ends the current block: a uniform-noise canvas becomes its
// argmax canvas; the block joins the prefix; with IsEOG, an
// end-of-generation token cuts it and ends the run.
func (r *Run) commitBlock() {
	blk := r.blocks[r.b]
	if r.info.UniformNoise {
		copy(r.canvas[blk.lo:blk.hi], r.argmax[blk.lo:blk.hi])
	}
	end := blk.hi
	if r.isEOG != nil {
		for p := blk.lo; p < blk.hi; p++ {
			if r.isEOG(r.canvas[p]) {
				end, r.eog, r.done = p, true, true
				break
			}
		}
	}
	r.committed = end
	r.prefix = append(r.prefix, r.canvas[blk.lo:end]...)
	r.prefixDirty = true
	r.stats.BlockSteps = append(r.stats.BlockSteps, r.step)
	r.b++
	r.begun = false
}

// finishUniform applies a uniform-noise step (DiffusionGemma's reference
// decoder): positions ranked by ascending entropy are accepted while the
// entropies ranked below them sum (in float64 over the float32 values) to
// at most the bound, the lowest always; accepted positions take their
// sample, the others a fresh random token; the block settles once its
// argmax canvas has held for Stability steps and the mean entropy is below
// StopEntropy.
func (r *Run) finishUniform() {
	blk, s, c := r.blocks[r.b], &r.st, &r.cfg
	s.order = s.order[:0]
	mean := 0.0
	for p := blk.lo; p < blk.hi; p++ {
		s.order = append(s.order, p)
		mean += s.score[p]
	}
	s.meanH = mean / float64(blk.hi-blk.lo)
	slices.SortFunc(s.order, func(a, b int) int {
		if c := cmp.Compare(s.score[a], s.score[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	accept := s.flip
	clear(accept[blk.lo:blk.hi])
	sum := 0.0
	for k, p := range s.order {
		if k > 0 && sum > float64(c.Bound) {
			break
		}
		accept[p] = true
		sum += s.score[p]
	}
	for p := blk.lo; p < blk.hi; p++ {
		if accept[p] {
			r.write(p, s.chosen[p])
		} else {
			r.canvas[p] = s.renoise[p]
		}
	}
	if slices.Equal(r.argmax[blk.lo:blk.hi], r.prev[blk.lo:blk.hi]) {
		s.held++
	} else {
		s.held = 0
	}
	copy(r.prev[blk.lo:blk.hi], r.argmax[blk.lo:blk.hi])
	s.prevInvT = s.invT
	stable := c.Stability == 0 || s.held >= c.Stability
	r.settled = stable && float32(s.meanH) < c.StopEntropy
}
