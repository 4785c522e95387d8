//go:build !purego

package turbo

// Every trellis search level (viterbiImpl) gives the Go search's costs and
// choices bit for bit.

// Stubs in viterbi_avx2_amd64.s (8 lanes) and viterbi_avx512_amd64.s (16
// lanes): the trellis steps of tcqCode.viterbi for len(z) >= 1 values of
// code k = 3 or k = 2, with the reference's costs and choices bit for bit.
// In Go terms, with P = 1<<k and the slots of tcqLanes (l = c.lanes(8) or
// c.lanes(16); cb = l.cb, slot i has state l.ns[i]):
//
//	best := [64]float32{}                      // zero start costs
//	for t, x := range z {
//	    c[ns] = best[ns&63] + float32((x-codebook[ns])*(x-codebook[ns]))  // every ns
//	    if t == len(z)-1 { cost[i] = c[l.ns[i]] for every slot i; break }
//	    best[m'], bt[t+1][m'] = min over p of c[m'·P+p], first such p
//	}
//
// bt[0] (all zero: every start cost ties) is the caller's, and the rows of
// bt from len(z) on are not touched. best is scratch whose first row must
// hold zeros (the start costs); the kernels keep best_t there in their own
// order. perm is l.perm.

//go:noescape
func viterbi3AVX2(z []float32, cb *[512]float32, best *[2][64]float32, cost *[512]float32, bt *[BlockSize][64]uint8)

//go:noescape
func viterbi2AVX2(z []float32, cb *[512]float32, best *[2][64]float32, cost *[512]float32, bt *[BlockSize][64]uint8)

//go:noescape
func viterbi3AVX512(z []float32, cb *[512]float32, best *[2][64]float32, cost *[512]float32, bt *[BlockSize][64]uint8, perm *[16]int32)

//go:noescape
func viterbi2AVX512(z []float32, cb *[512]float32, best *[2][64]float32, cost *[512]float32, bt *[BlockSize][64]uint8, perm *[16]int32)

// viterbiSteps runs the trellis steps with the assembly of the selected
// level and reports whether it did; costs are left in natural state order
// in cost.
func (c *tcqCode) viterbiSteps(z []float32, cost *[512]float32, bt *[BlockSize][64]uint8) bool {
	if viterbiImpl == levelGo || len(z) == 0 {
		return false
	}
	n := 8
	if viterbiImpl == levelAVX512 {
		n = 16
	}
	l := c.lanes(n)
	var best [2][64]float32
	var out [512]float32
	bt[0] = [64]uint8{}
	switch {
	case n == 16 && c.k == 3:
		viterbi3AVX512(z, &l.cb, &best, &out, bt, &l.perm)
	case n == 16:
		viterbi2AVX512(z, &l.cb, &best, &out, bt, &l.perm)
	case c.k == 3:
		viterbi3AVX2(z, &l.cb, &best, &out, bt)
	default:
		viterbi2AVX2(z, &l.cb, &best, &out, bt)
	}
	for i, s := range l.ns[:c.states()] {
		cost[s] = out[i]
	}
	return true
}
