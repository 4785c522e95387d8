package sample

// penalties holds the accepted-token window of llama_sampler_penalties: a
// ring of the last n tokens and a per-token occurrence count over it. Counts
// are a dense array over the vocabulary so that Accept and apply never
// allocate; apply costs O(window), not O(vocabulary).
type penalties struct {
	ring   []int32 // capacity = window
	first  int     // index of the oldest token
	size   int     // tokens currently held
	counts []int32 // occurrences of each token id within the ring

	repeat, freq, present float32
}

func newPenalties(p *Params, nVocab int) *penalties {
	if !p.penaltiesActive() {
		return nil
	}
	return &penalties{
		ring:    make([]int32, p.penaltyWindow()),
		counts:  make([]int32, nVocab),
		repeat:  p.RepeatPenalty,
		freq:    p.FrequencyPenalty,
		present: p.PresencePenalty,
	}
}

// accept appends tok, dropping the oldest token once the window is full.
// Ids outside the vocabulary cannot carry a logit and are ignored.
func (pn *penalties) accept(tok int32) {
	if tok < 0 || int(tok) >= len(pn.counts) {
		return
	}
	pn.counts[tok]++
	if pn.size == len(pn.ring) {
		old := pn.ring[pn.first]
		pn.counts[old]--
		pn.ring[pn.first] = tok
		pn.first = (pn.first + 1) % len(pn.ring)
		return
	}
	pn.ring[(pn.first+pn.size)%len(pn.ring)] = tok
	pn.size++
}

func (pn *penalties) reset() {
	for i := 0; i < pn.size; i++ {
		pn.counts[pn.ring[(pn.first+i)%len(pn.ring)]] = 0
	}
	pn.first, pn.size = 0, 0
}

// penalize applies the three penalties for a token seen count > 0 times:
// divide a positive logit by the repeat penalty, multiply a non-positive one,
// then subtract count·freq + present.
func (pn *penalties) penalize(logit float32, count int32) float32 {
	if logit <= 0 {
		logit *= pn.repeat
	} else {
		logit /= pn.repeat
	}
	return logit - (float32(float32(count)*pn.freq) + pn.present)
}

// apply penalizes the candidates of tokens in the window and clears the
// sorted flag (llama_sampler_penalties_apply). In vocabulary order it costs
// O(window): each distinct token is penalized once, its count negated while
// visited and restored afterwards. Otherwise it looks up every candidate.
func (pn *penalties) apply(cs *cands) {
	cs.sorted = false
	if !cs.ident {
		for i := range cs.c {
			if cnt := pn.counts[cs.c[i].ID]; cnt > 0 {
				cs.c[i].Logit = pn.penalize(cs.c[i].Logit, cnt)
			}
		}
		return
	}
	c := cs.c
	n := len(pn.ring)
	for i := 0; i < pn.size; i++ {
		tok := pn.ring[(pn.first+i)%n]
		if cnt := pn.counts[tok]; cnt > 0 {
			c[tok].Logit = pn.penalize(c[tok].Logit, cnt)
			pn.counts[tok] = -cnt
		}
	}
	pn.restore()
}

// restore undoes the negation done by apply.
func (pn *penalties) restore() {
	n := len(pn.ring)
	for i := 0; i < pn.size; i++ {
		tok := pn.ring[(pn.first+i)%n]
		if cnt := pn.counts[tok]; cnt < 0 {
			pn.counts[tok] = -cnt
		}
	}
}

// countOf returns how often tok occurs in the window (for the greedy path).
func (pn *penalties) countOf(tok int) int32 { return pn.counts[tok] }

func (pn *penalties) clone() *penalties {
	if pn == nil {
		return nil
	}
	c := *pn
	c.ring = append([]int32(nil), pn.ring...)
	c.counts = append([]int32(nil), pn.counts...)
	return &c
}
