package turbo

import "sync"

// tcqLayoutL holds what the vectorised trellis search needs for one code:
// the codebook permuted into layout L (state s = m·P + p at p·64 + m, P =
// 1<<k) as the new states of a step land there, and per row p2 the lanes
// of best that row needs (index modulo 32, mask of lanes taken from
// best[32:64]). See viterbi_amd64.s.
type tcqLayoutL struct {
	cb   [512]float32
	perm [8][16]int32
	mask uint16
}

var (
	layoutOnce [2]sync.Once
	layouts    [2]tcqLayoutL
)

// layoutL returns the code's tables, built on first use.
func (c *tcqCode) layoutL() *tcqLayoutL {
	i := int(c.k) - 2
	layoutOnce[i].Do(func() { layouts[i] = c.buildLayoutL() })
	return &layouts[i]
}

func (c *tcqCode) buildLayoutL() tcqLayoutL {
	var l tcqLayoutL
	k := c.k
	p := 1 << k
	per := 64 / p // memory values per symbol o
	for p2 := range p {
		for m2 := range 64 {
			m := (m2%per)<<k | p2
			o := m2 / per
			l.cb[p2*64+m2] = c.codebook[o*64+m]
		}
		for lane := range 16 {
			m := (lane%per)<<k | p2
			l.perm[p2][lane] = int32(m % 32)
			if m >= 32 {
				l.mask |= 1 << lane
			}
		}
	}
	return l
}

// tcqLayout8 holds the tables of the 8-lane trellis search (viterbi8_amd64.s)
// for one code: slot i = (v·P + p)·8 + lane of vector v < 8, predecessor
// p < P and lane < 8 (slots 0..states-1), with its state and codebook value.
// The kernel's final costs come back in slot order.
type tcqLayout8 struct {
	cb [512]float32
	ns [512]uint16
}

var (
	layout8Once [2]sync.Once
	layouts8    [2]tcqLayout8
)

// layout8 returns the code's 8-lane tables, built on first use.
func (c *tcqCode) layout8() *tcqLayout8 {
	i := int(c.k) - 2
	layout8Once[i].Do(func() {
		l := &layouts8[i]
		p := 1 << c.k
		for s := range c.states() {
			v, pr, lane := s/(8*p), s/8%p, s%8
			ns := lane8State(c.k, v, pr, lane)
			l.cb[s], l.ns[s] = c.codebook[ns], uint16(ns)
		}
	})
	return &layouts8[i]
}

// lane8State is the state of slot (v, p, lane): ns = m'·P + p with new
// memory m' = (64/P)·a + b, so ns&63 = b·P + p, the same for every a. For
// k = 3: lane = a, b = v, so a vector needs one predecessor cost per p (a
// broadcast). For k = 2 (four values of a): lane = h + 2a and b = bLo + 4h,
// bLo = v&3 | (v&4)<<1, so a vector needs two predecessor costs per p,
// alternating over the lanes (a 64-bit broadcast of a stored pair).
func lane8State(k uint, v, p, lane int) int {
	if k == 3 {
		return (8*lane+v)<<3 | p
	}
	h, a := lane&1, lane>>1
	b := (v & 3) | (v&4)<<1 + 4*h
	return (16*a+b)<<2 | p
}
