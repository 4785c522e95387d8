package spec

import "github.com/waggle-llm/waggle/engine/sample"

// verifyRows is the verification rule. Row i (the output at batch index
// row+i) is the target's next-token distribution after Last and
// draft[:i]. It returns the emitted tokens: the accepted draft prefix and
// one token from the target (the correction at the first rejection, or the
// bonus after a fully accepted draft). Every emitted token is recorded in
// the sampler (Accept) in order, exactly once, so the penalty history is
// what plain decoding would have built.
//
// A greedy sampler accepts a draft token iff its own pick equals it, which
// makes the output identical to plain greedy decoding. So does a sampler
// whose chain draws inside (Mirostat, XTC, adaptive-p: no HasDistribution),
// as llama.cpp verifies every chain: each row is sampled as plain decoding
// would sample it. Otherwise the
// standard speculative-sampling rule runs with the sampler's Distribution
// as p and the drafter's deterministic choice as q (a point mass): accept d
// with probability min(1, p(d)/q(d)) = p(d); on rejection draw from the
// normalised max(0, p − q), which is p without d. Both draws use the
// sampler's seeded RNG, so a seed reproduces a run.
func verifyRows(sp *Speculator, sl *Slot, row int, draft []int32, out []int32) []int32 {
	smp := sl.Sampler
	for i, d := range draft {
		logits := sp.Sess.Logits(row + i)
		var tok int32
		var ok bool
		if smp.Greedy() || !smp.HasDistribution() {
			tok = smp.Sample(logits)
			ok = tok == d
		} else {
			tok, ok = sp.judge(smp, logits, d)
		}
		smp.Accept(tok)
		out = append(out, tok)
		if !ok {
			return out
		}
	}
	tok := smp.Sample(sp.Sess.Logits(row + len(draft)))
	smp.Accept(tok)
	return append(out, tok)
}

// judge applies the rejection rule to draft token d: it returns (d, true)
// when d is accepted, else a token drawn from the residual distribution.
func (sp *Speculator) judge(smp *sample.Sampler, logits []float32, d int32) (int32, bool) {
	dist := smp.Distribution(logits)
	var pd float32
	for _, c := range dist {
		if c.ID == d {
			pd = c.P
			break
		}
	}
	if pd >= 1 {
		return d, true
	}
	if pd > 0 {
		coin := [2]sample.Candidate{{ID: 1, P: pd}, {ID: 0, P: 1 - pd}}
		if smp.SampleFrom(coin[:]) == 1 {
			return d, true
		}
	}
	// Residual max(0, p − q) with q a point mass on d: p without d, in
	// the order the draw scans (SampleFrom renormalises).
	sp.residual = sp.residual[:0]
	for _, c := range dist {
		if c.ID != d && c.P > 0 {
			sp.residual = append(sp.residual, c)
		}
	}
	if len(sp.residual) == 0 { // cannot happen with pd < 1; keep d rather than emit nothing
		return d, true
	}
	return smp.SampleFrom(sp.residual), false
}
