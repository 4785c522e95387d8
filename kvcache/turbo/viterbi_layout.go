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
