package turbo

import "sync"

// tcqLanes holds the tables of the fused trellis searches for one code and
// lane count n (8: viterbi_avx2_amd64.s, 16: viterbi_avx512_amd64.s):
// slot i = (v·P + p)·n + lane of vector v, predecessor p < P and lane, with
// its state and codebook value (slots 0..states-1; the kernels' final costs
// come back in slot order), and the 16-lane kernels' store permutation.
type tcqLanes struct {
	cb   [512]float32
	ns   [512]uint16
	perm [16]int32
}

var (
	lanesOnce [2][2]sync.Once
	lanesTabs [2][2]tcqLanes
)

// lanes returns the code's tables for 8 or 16 lanes, built on first use.
func (c *tcqCode) lanes(n int) *tcqLanes {
	i, j := int(c.k)-2, n/16
	lanesOnce[i][j].Do(func() {
		l := &lanesTabs[i][j]
		p := 1 << c.k
		state := lane8State
		if n == 16 {
			state = lane16State
			l.perm = lane16Perm(c.k)
		}
		for s := range c.states() {
			v, pr, lane := s/(n*p), s/n%p, s%n
			ns := state(c.k, v, pr, lane)
			l.cb[s], l.ns[s] = c.codebook[ns], uint16(ns)
		}
	})
	return &lanesTabs[i][j]
}

// lane8State is the state of slot (v, p, lane) of the 8-lane kernels:
// ns = m'·P + p with new memory m' = (64/P)·a + b, so ns&63 = b·P + p, the
// same for every a. For k = 3: lane = a, b = v, so a vector needs one
// predecessor cost per p (a broadcast). For k = 2 (four values of a):
// lane = h + 2a and b = bLo + 4h, bLo = v&3 | (v&4)<<1, so a vector needs
// two predecessor costs per p, alternating over the lanes (a 64-bit
// broadcast of a stored pair).
func lane8State(k uint, v, p, lane int) int {
	if k == 3 {
		return (8*lane+v)<<3 | p
	}
	h, a := lane&1, lane>>1
	b := ((v & 3) | (v&4)<<1) + 4*h
	return (16*a+b)<<2 | p
}

// lane16State is the state of slot (v < 4, p, lane) of the 16-lane kernels:
// lane = h + H·a with H = 2 (k = 3) or 4 (k = 2), new memory
// m' = (64/P)·a + v + 4h, so a vector needs H predecessor costs per p.
func lane16State(k uint, v, p, lane int) int {
	hb := 4 - k // log2 H
	h, a := lane&(1<<hb-1), lane>>hb
	return ((64>>k)*a+v+4*h)<<k | p
}

// lane16Perm is the permutation (VPERMPS indices: lane d takes lane
// perm[d]) the 16-lane kernels apply to a vector's best values before
// storing it, so that the H values a later vector needs for one p sit side
// by side: k = 3, pairs (m', m'+32) (lane d = 2(a&3 + 4h) + a>>2); k = 2,
// quads (m', m'+16, m'+32, m'+48) (lane d = 4h + a).
func lane16Perm(k uint) (perm [16]int32) {
	for d := range perm {
		if k == 3 {
			q, e := d>>1, d&1
			a, h := q&3+4*e, q>>2
			perm[d] = int32(h + 2*a)
		} else {
			perm[d] = int32(d>>2 + 4*(d&3))
		}
	}
	return perm
}
