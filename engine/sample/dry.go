package sample

import "math"

// dry is llama_sampler_dry ("Don't Repeat Yourself", from koboldcpp): a
// token that would extend a sequence already seen in the recent history by
// more than the allowed length loses multiplier·base^(length − allowed)
// from its logit. Sequence breakers cap how far back a repetition counts.
// The per-token maxima live in a dense array indexed by token, cleared
// through the list of tokens set, so Accept and apply never allocate.
type dry struct {
	mult, base float32
	allowed    int
	breakers   *Breakers

	ring        []int32 // the last len(ring) accepted tokens
	first, size int

	repeat  []int // dry_repeat_count, one per position of the window
	maxRep  []int // per token: the longest repetition it would extend, plus one (0: none)
	touched []int32
}

// newDry returns nil when DRY is off.
func newDry(p *Params, nVocab int) *dry {
	if !p.dryActive() {
		return nil
	}
	w := p.dryWindow()
	return &dry{
		mult: p.DryMultiplier, base: p.DryBase, allowed: p.DryAllowedLength, breakers: p.DryBreakers,
		ring: make([]int32, w), repeat: make([]int, w), maxRep: make([]int, nVocab), touched: make([]int32, 0, w),
	}
}

// accept appends tok, dropping the oldest token once the window is full.
func (d *dry) accept(tok int32) {
	if tok < 0 || int(tok) >= len(d.maxRep) {
		return
	}
	if d.size == len(d.ring) {
		d.ring[d.first] = tok
		d.first = (d.first + 1) % len(d.ring)
		return
	}
	d.ring[(d.first+d.size)%len(d.ring)] = tok
	d.size++
}

// rat is the token i places back from the newest (ring_buffer::rat).
func (d *dry) rat(i int) int32 {
	return d.ring[(d.first+d.size-i-1)%len(d.ring)]
}

func (d *dry) reset() { d.first, d.size = 0, 0 }

func (d *dry) clone() *dry {
	if d == nil {
		return nil
	}
	c := *d
	c.ring = append([]int32(nil), d.ring...)
	c.repeat = make([]int, len(d.repeat))
	c.maxRep = make([]int, len(d.maxRep))
	c.touched = make([]int32, 0, cap(d.touched))
	return &c
}

// apply penalizes the candidates that would extend a repetition and clears
// the sorted flag (llama_sampler_dry_apply).
func (d *dry) apply(cs *cands) {
	n := d.size
	if n <= d.allowed {
		return
	}
	limit := d.repeatLimit(n)
	if limit < d.allowed {
		return
	}
	d.repeatCounts(n, limit)
	d.collectMaxima(n)
	d.penalize(cs)
	for _, t := range d.touched {
		d.maxRep[t] = 0
	}
	d.touched = d.touched[:0]
	cs.sorted = false
}

// repeatLimit walks back from the newest token to the nearest complete
// sequence breaker; no repetition may reach past it.
func (d *dry) repeatLimit(n int) int {
	for i := range n {
		tails := d.breakers.tails(d.rat(i))
		if tails == nil {
			continue
		}
		longest := -1
		for _, tail := range tails {
			l := len(tail)
			if l <= longest || l > i {
				continue
			}
			match := true
			for off := range l {
				if tail[off] != d.rat(i-off-1) {
					match = false
					break
				}
			}
			if match {
				longest = l
			}
		}
		if longest >= 0 {
			return i - longest
		}
	}
	return n
}

// repeatCounts fills repeat[n-1-k] with the length (capped at limit) of the
// longest suffix of the history that also ends k tokens earlier, by the
// Z-algorithm run backwards, exactly as llama.cpp computes it (including
// its use of the capped values inside the Z-box).
func (d *dry) repeatCounts(n, limit int) {
	clear(d.repeat[:n])
	last := n - 1
	lt, rt := 0, 0
	for k := 1; k < n; k++ {
		if k > rt {
			m := 0
			for m+k < n && d.rat(m) == d.rat(m+k) {
				m++
			}
			d.repeat[last-k] = min(m, limit)
			if m > 0 {
				lt, rt = k, k+m-1
			}
			continue
		}
		p := k - lt
		if d.repeat[last-p] < rt-k+1 {
			d.repeat[last-k] = min(d.repeat[last-p], limit)
			continue
		}
		i := rt + 1
		for i < n && d.rat(i) == d.rat(i-k) {
			i++
		}
		d.repeat[last-k] = min(i-k, limit)
		lt, rt = k, i-1
	}
}

// collectMaxima records, for each token that follows a repetition of at
// least the allowed length, the longest such repetition.
func (d *dry) collectMaxima(n int) {
	for i := 0; i < n-1; i++ {
		rl := d.repeat[i]
		if rl < d.allowed {
			continue
		}
		tok := d.rat(n - 2 - i)
		switch cur := d.maxRep[tok]; {
		case cur == 0:
			d.touched = append(d.touched, tok)
			d.maxRep[tok] = rl + 1
		case cur-1 < rl:
			d.maxRep[tok] = rl + 1
		}
	}
}

// dryMaxLog is llama.cpp's approximation of log(FLT_MAX), which bounds the
// exponent so that base^exponent stays finite.
const dryMaxLog float32 = 88.7228391

// penalize subtracts multiplier·base^(length − allowed) from every
// candidate that would extend a repetition, except one-token breakers.
func (d *dry) penalize(cs *cands) {
	maxExp := 0
	if d.base > 1.000001 {
		maxExp = int(dryMaxLog / logf(d.base))
	}
	for i := range cs.c {
		rep := d.maxRep[cs.c[i].ID]
		if rep == 0 || d.breakers.single(cs.c[i].ID) {
			continue
		}
		exp := rep - 1 - d.allowed
		if maxExp > 0 && exp > maxExp {
			exp = maxExp
		}
		penalty := float32(float64(d.mult) * math.Pow(float64(d.base), float64(exp)))
		cs.c[i].Logit -= penalty
	}
}
