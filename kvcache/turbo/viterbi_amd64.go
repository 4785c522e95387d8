//go:build !purego

package turbo

// viterbiImpl is the trellis search level in use: levelBest (one rule for
// every amd64 kernel family; WAGGLE_KERNELS=generic gives the Go search,
// =avx2 the AVX2 one). Tests step it down. Every level gives the Go
// search's costs and choices bit for bit.
var viterbiImpl = levelBest

//go:noescape
func viterbiAVX512(z []float32, cost, next, cbL *[512]float32, perm *[8][16]int32, rows int, mask uint16, bt *[BlockSize][64]uint8)

// Stubs in viterbi_avx2_amd64.s: the trellis steps of tcqCode.viterbi for
// len(z) >= 1 values of code k = 3 or k = 2, with the reference's costs and
// choices bit for bit. In Go terms, with P = 1<<k and the slots of
// tcqLayout8 (cb = layout8().cb, state ns of slot i = layout8().ns[i]):
//
//	best := [64]float32{}                      // zero start costs
//	for t, x := range z {
//	    c[ns] = best[ns&63] + float32((x-codebook[ns])*(x-codebook[ns]))  // every ns
//	    if t == len(z)-1 { cost[i] = c[ns of slot i] for every slot i; break }
//	    best[m'], bt[t+1][m'] = min over p of c[m'·P+p], first such p
//	}
//
// bt[0] (all zero: every start cost ties) is the caller's, as are the rows
// of bt from len(z) on. best is scratch whose first row must hold zeros
// (the start costs); the kernels keep best_t in its own order there.

//go:noescape
func viterbi3AVX2(z []float32, cb *[512]float32, best *[2][64]float32, cost *[512]float32, bt *[BlockSize][64]uint8)

//go:noescape
func viterbi2AVX2(z []float32, cb *[512]float32, best *[2][64]float32, cost *[512]float32, bt *[BlockSize][64]uint8)

// viterbiSteps runs the trellis steps with the assembly of the selected
// level and reports whether it did; costs are left in natural state order
// in cost.
func (c *tcqCode) viterbiSteps(z []float32, cost *[512]float32, bt *[BlockSize][64]uint8) bool {
	switch {
	case viterbiImpl == levelGo || len(z) == 0:
		return false
	case viterbiImpl == levelAVX512:
		c.viterbiStepsAVX512(z, cost, bt)
	default:
		c.viterbiStepsAVX2(z, cost, bt)
	}
	return true
}

func (c *tcqCode) viterbiStepsAVX512(z []float32, cost *[512]float32, bt *[BlockSize][64]uint8) {
	l := c.layoutL()
	var a, b [512]float32
	viterbiAVX512(z, &a, &b, &l.cb, &l.perm, 1<<c.k, l.mask, bt)
	final := &a
	if len(z)%2 == 1 {
		final = &b
	}
	p := 1 << c.k
	for s := range c.states() {
		cost[s] = final[(s%p)*64+s/p]
	}
}

func (c *tcqCode) viterbiStepsAVX2(z []float32, cost *[512]float32, bt *[BlockSize][64]uint8) {
	l := c.layout8()
	var best [2][64]float32
	var out [512]float32
	bt[0] = [64]uint8{}
	if c.k == 3 {
		viterbi3AVX2(z, &l.cb, &best, &out, bt)
	} else {
		viterbi2AVX2(z, &l.cb, &best, &out, bt)
	}
	ns := l.ns[:c.states()]
	for i, s := range ns {
		cost[s] = out[i]
	}
}
