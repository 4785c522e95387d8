//go:build !purego

package turbo

import "sync"

// Stubs in viterbi_arm64.s: the trellis steps of tcqCode.viterbi for
// len(z) >= 1 values of code k = 3 or k = 2, with the reference's costs and
// choices bit for bit. In Go terms, with P = 1<<k:
//
//	best := [64]float32{}                      // zero start costs
//	for t, x := range z {
//	    for each new state ns = m'·P + p:
//	        c[ns] = best[ns&63] + float32((x-codebook[ns])*(x-codebook[ns]))
//	    if t == len(z)-1 { cost[cbV order] = c; break }
//	    best[m'], bt[t+1][m'] = min over p of c[m'·P+p], first such p
//	}
//
// bt[0] (all zero: every start cost ties) is the caller's. cbV is the
// codebook in the kernels' order: vector v (four memories m' = 4v..4v+3)
// and predecessor p at cbV[(v·P+p)·4 : +4]; cost comes back in the same
// order. best is scratch that must hold zeros on entry (the start costs,
// stored in the kernel's transposed order). Registers hold everything a step
// needs, so the scan runs on costs as they are made.

//go:noescape
func viterbiNEON3(z []float32, cbV *[512]float32, best *[64]float32, cost *[512]float32, bt *[BlockSize][64]uint8)

//go:noescape
func viterbiNEON2(z []float32, cbV *[512]float32, best *[64]float32, cost *[512]float32, bt *[BlockSize][64]uint8)

var (
	cbVOnce [2]sync.Once
	cbVs    [2][512]float32
)

// codebookV returns the codebook in the NEON kernels' order, built on first
// use: entry (v·P+p)·4+i is the codebook value of state (4v+i)·P + p.
func (c *tcqCode) codebookV() *[512]float32 {
	i := int(c.k) - 2
	cbVOnce[i].Do(func() {
		for s := range c.states() {
			cbVs[i][cbVIndex(s, c.k)] = c.codebook[s]
		}
	})
	return &cbVs[i]
}

// cbVIndex is where state s = m'·P + p sits in cbV order.
func cbVIndex(s int, k uint) int {
	m, p := s>>k, s&(1<<k-1)
	return (m/4<<k+p)*4 + m%4
}

// viterbiSteps runs the trellis steps with NEON when selected and reports
// whether it did; costs are left in natural state order in cost.
func (c *tcqCode) viterbiSteps(z []float32, cost *[512]float32, bt *[BlockSize][64]uint8) bool {
	if viterbiImpl != levelNEON || len(z) == 0 {
		return false
	}
	var best [64]float32
	var out [512]float32
	bt[0] = [64]uint8{}
	if c.k == 3 {
		viterbiNEON3(z, c.codebookV(), &best, &out, bt)
	} else {
		viterbiNEON2(z, c.codebookV(), &best, &out, bt)
	}
	for s := range c.states() {
		cost[s] = out[cbVIndex(s, c.k)]
	}
	return true
}
