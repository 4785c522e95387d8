package turbo

import "math"

// tcqCode describes one trellis-coded type. A state is an L = 6+k bit number
// whose low 6 bits are the memory (the previous symbols) and whose high k
// bits are the newest symbol; emitting symbol o moves from prev to
// (prev >> k) | o << 6, and element t decodes as codebook[state_t]·N.
type tcqCode struct {
	k        uint      // bits per symbol: 3 or 2
	codebook []float32 // 1 << (6+k) entries, indexed by state
	qsBytes  int       // ceil((6 + 128k) / 8): 49 or 33
}

var (
	tcq3 = tcqCode{k: 3, codebook: tcq3Codebook[:], qsBytes: 49}
	tcq2 = tcqCode{k: 2, codebook: tcq2Codebook[:], qsBytes: 33}
)

// tcqMemory is the number of memory bits in a state (and of prefix bits).
const tcqMemory = 6

func (c *tcqCode) states() int { return 1 << (tcqMemory + c.k) }
func (c *tcqCode) mask() uint  { return uint(c.states() - 1) }

// viterbi finds the state sequence minimising Σ_t (z_t - codebook[state_t])²
// over every path of the trellis, with a free initial state, as BeeLlama's
// SET_ROWS kernels do: float32 costs, the best predecessor of each memory
// value equal to a strict "<" scan from p = 0 (ties keep the lowest p), the
// final state chosen by argminCUDA. It writes state_t into path[t] for
// t < len(z) (len(z) <= 128, len(path) >= len(z)) and returns the initial
// state s₋₁, whose high 6 bits become the block's prefix.
//
// The predecessor scan is done branch-free on keys bits(cost)<<3 | p: costs
// are sums of squares, never negative, so their float32 bit patterns order
// like the values and the smallest key is the first smallest cost, exactly
// what the scan picks. (A NaN cost, from a NaN input, makes every cost of
// that step NaN, and then both pick p = 0.) This halves the encoder's time.
func (c *tcqCode) viterbi(z []float32, path []uint16) uint16 {
	var (
		costA, costB [512]float32
		best         [64]float32
		bt           [BlockSize][64]uint8 // best predecessor low bits, per step and memory
	)
	ns := c.states()
	k := c.k
	cost := costA[:ns]
	if !c.viterbiSteps(z, &costA, &bt) {
		cost = c.viterbiStepsGo(z, &costA, &costB, &best, &bt)
	}
	s := uint16(argminCUDA(cost))
	for t := len(z) - 1; t >= 0; t-- {
		path[t] = s
		s = (s&63)<<k | uint16(bt[t][s&63])
	}
	return s
}

// viterbiStepsGo is the reference trellis search: for every value, the
// best predecessor of each memory value, then every new state's cost. It
// returns the final costs (in a or b), in natural state order.
func (c *tcqCode) viterbiStepsGo(z []float32, a, b *[512]float32, best *[64]float32, bt *[BlockSize][64]uint8) []float32 {
	ns := c.states()
	cost, next := a[:ns], b[:ns]
	cb := c.codebook[:ns]
	for t, x := range z {
		bestPredecessors(c.k, cost, best, &bt[t])
		for o := 0; o < ns; o += 64 {
			nx := next[o : o+64]
			cbo := cb[o : o+64]
			for m, b := range best {
				d := x - cbo[m]
				nx[m] = b + float32(d*d)
			}
		}
		cost, next = next, cost
	}
	return cost
}

// bestPredecessors sets best[m] to the smallest cost[(m<<k)|p] over p and
// bt[m] to the first p reaching it (see viterbi for the key trick). The two
// unrolled cases let the compiler keep the keys in registers.
func bestPredecessors(k uint, cost []float32, best *[64]float32, bt *[64]uint8) {
	key := func(c float32, p uint64) uint64 { return uint64(math.Float32bits(c))<<3 | p }
	for m := range best {
		var b uint64
		if k == 3 {
			r := (*[8]float32)(cost[8*m:])
			b = min(min(min(key(r[0], 0), key(r[1], 1)), min(key(r[2], 2), key(r[3], 3))),
				min(min(key(r[4], 4), key(r[5], 5)), min(key(r[6], 6), key(r[7], 7))))
		} else {
			r := (*[4]float32)(cost[4*m:])
			b = min(min(key(r[0], 0), key(r[1], 1)), min(key(r[2], 2), key(r[3], 3)))
		}
		best[m], bt[m] = math.Float32frombits(uint32(b>>3)), uint8(b&7)
	}
}

// argminCUDA returns the index of a smallest cost (len(cost) a multiple of
// 32, at most 1024) with BeeLlama's reduction order, which decides exact
// ties: each run of 32 states is reduced by a warp butterfly (xor 16..1,
// a lane adopts its partner only if strictly smaller; lane 0's result is the
// run's candidate), then the candidates, padded with +Inf to 32 lanes, by a
// shuffle-down (distance 16..1, same strict rule). For lane 0 the xor
// butterfly and the shuffle-down pair the same lanes, so one routine serves
// both stages. A NaN never wins a comparison.
func argminCUDA(cost []float32) int {
	var candC [32]float32
	var candI [32]int
	for i := range candC {
		candC[i] = float32(math.Inf(1))
	}
	for r := 0; r < len(cost)/32; r++ {
		var lc [32]float32
		var li [32]int
		for i := range lc {
			lc[i], li[i] = cost[32*r+i], 32*r+i
		}
		candC[r], candI[r] = reduceLane0(&lc, &li)
	}
	_, i := reduceLane0(&candC, &candI)
	return i
}

// reduceLane0 is lane 0's view of a 32-lane min reduction: for d = 16..1,
// lane i < d adopts lane i+d's (cost, index) only if that cost is strictly
// smaller.
func reduceLane0(c *[32]float32, idx *[32]int) (float32, int) {
	for d := 16; d >= 1; d >>= 1 {
		for i := 0; i < d; i++ {
			if c[i+d] < c[i] {
				c[i], idx[i] = c[i+d], idx[i+d]
			}
		}
	}
	return c[0], idx[0]
}

// encodeTCQ quantizes one group (up to 128 values, zero-padded) into one TCQ
// block: norm (tree order), rotate, Viterbi, pack the bitstream, store the
// corrected norm with ||c||² in the same tree order, and zero the pad byte.
func encodeTCQ(c *tcqCode, b []byte, src []float32) {
	var z, rec [BlockSize]float32
	var path [BlockSize]uint16
	n := normalizeRotate(&z, src, true)
	init := c.viterbi(z[:], path[:])
	clear(b[normBytes:])
	qs := b[normBytes : normBytes+c.qsBytes]
	putBits(qs, 0, uint(init>>c.k), tcqMemory)
	for t, s := range path {
		putBits(qs, tcqMemory+int(c.k)*t, uint(s>>tcqMemory), c.k)
		rec[t] = c.codebook[s]
	}
	putBlockNorm(b, correctedNorm(n, sumSquaresTree(&rec)))
}

// putBits ORs the low n bits of v (n <= 8) into qs at bit offset pos,
// LSB-first; qs must be zero there beforehand.
func putBits(qs []byte, pos int, v uint, n uint) {
	v &= 1<<n - 1
	sh := uint(pos & 7)
	qs[pos>>3] |= byte(v << sh)
	if sh+n > 8 {
		qs[pos>>3+1] |= byte(v >> (8 - sh))
	}
}

// tcqState returns state_t of a TCQ bitstream: the L = 6+k bits starting at
// bit k·t, read through a 16-bit little-endian window. The window's top k
// bits are symbol t and the rest the symbols (or prefix) before it, which is
// exactly the trellis state after step t. The highest byte read is qs[48]
// (k=3) or qs[32] (k=2), so the pad byte is never touched.
func tcqState(qs []byte, k, mask uint, t int) uint {
	bit := k * uint(t)
	w := uint(qs[bit>>3]) | uint(qs[bit>>3+1])<<8
	return w >> (bit & 7) & mask
}

// decodeTCQ writes codebook[state_t]·N for the 128 values of a TCQ block, in
// the rotated domain. Every state is masked to the codebook's size, so any
// bytes decode; the trailing bits and the pad byte are ignored.
func decodeTCQ(c *tcqCode, z *[BlockSize]float32, b []byte) {
	n := blockNorm(b)
	qs := b[normBytes : normBytes+c.qsBytes]
	cb := c.codebook[:c.states()]
	mask := c.mask()
	for t := range z {
		z[t] = cb[tcqState(qs, c.k, mask, t)] * n
	}
}
