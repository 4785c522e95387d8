package turbo

import (
	"math"
	"math/rand/v2"
	"testing"
)

func tcqCodes() map[Type]*tcqCode { return map[Type]*tcqCode{Turbo3TCQ: &tcq3, Turbo2TCQ: &tcq2} }

// TestTCQDecodeFollowsViterbiPath encodes random groups and checks that the
// decoder's sliding window recovers exactly the states the Viterbi search
// chose, that consecutive states obey the trellis, and that each decoded
// value is codebook[state]·N bit for bit.
func TestTCQDecodeFollowsViterbiPath(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for typ, c := range tcqCodes() {
		for trial := range 20 {
			x := gaussianRow(r, BlockSize)
			var z [BlockSize]float32
			var path [BlockSize]uint16
			normalizeRotate(&z, x, true)
			init := c.viterbi(z[:], path[:])
			prev := init
			for tt, s := range path {
				if int(s) >= c.states() || s&63 != prev>>c.k {
					t.Fatalf("%s trial %d: step %d goes %d -> %d, not a trellis edge", typ, trial, tt, prev, s)
				}
				prev = s
			}
			blk := mustEncode(t, typ, x)
			var dec [BlockSize]float32
			decodeTCQ(c, &dec, blk)
			n := blockNorm(blk)
			qs := blk[normBytes:]
			for tt, s := range path {
				if st := tcqState(qs, c.k, c.mask(), tt); st != uint(s) {
					t.Fatalf("%s trial %d: decoder reads state %d at step %d, Viterbi chose %d", typ, trial, st, tt, s)
				}
				if want := c.codebook[s] * n; dec[tt] != want {
					t.Fatalf("%s trial %d: value %d = %g, want codebook[%d]·N = %g", typ, trial, tt, dec[tt], s, want)
				}
			}
			if got := uint(qs[0]) & 63; got != uint(init>>c.k) {
				t.Fatalf("%s: prefix %d, want %d", typ, got, init>>c.k)
			}
			if last := qs[c.qsBytes-1] >> 6; last != 0 || blk[len(blk)-1] != 0 {
				t.Fatalf("%s: trailing bits %b / pad %#x not zero", typ, last, blk[len(blk)-1])
			}
		}
	}
}

// TestViterbiOptimalShort compares the Viterbi search on short sequences
// with an exhaustive search over every initial state and symbol sequence:
// the chosen path's cost must be the minimum (to float32 rounding).
func TestViterbiOptimalShort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for typ, c := range tcqCodes() {
		steps := 3
		if c.k == 2 {
			steps = 4
		}
		for trial := range 10 {
			z := make([]float32, steps)
			for i := range z {
				z[i] = float32(r.NormFloat64() / math.Sqrt(128))
			}
			path := make([]uint16, steps)
			c.viterbi(z, path)
			got := pathCost(c, z, path)
			best := math.Inf(1)
			total := 1 << (tcqMemory + c.k*uint(steps))
			for code := range total { // prefix bits then symbols, as in the stream
				for tt := range steps {
					path[tt] = uint16(uint(code) >> (c.k * uint(tt)) & c.mask())
				}
				best = min(best, pathCost(c, z, path))
			}
			if got > best*(1+1e-5)+1e-12 {
				t.Errorf("%s trial %d: Viterbi cost %g, exhaustive minimum %g", typ, trial, got, best)
			}
		}
	}
}

func pathCost(c *tcqCode, z []float32, path []uint16) float64 {
	var s float64
	for t, st := range path {
		d := float64(z[t]) - float64(c.codebook[st])
		s += d * d
	}
	return s
}

// TestArgminCUDATieBreak pins the final-state tie rule to the CUDA
// reduction order ([inferred] in the doc, only for exact ties), which is
// not "lowest index".
func TestArgminCUDATieBreak(t *testing.T) {
	cost := func(zeros ...int) []float32 {
		c := make([]float32, 512)
		for i := range c {
			c[i] = 1
		}
		for _, z := range zeros {
			c[z] = 0
		}
		return c
	}
	for _, tc := range []struct {
		zeros []int
		want  int
	}{
		{nil, 0},             // all equal: lane 0 of run 0
		{[]int{5}, 5},        // unique minimum
		{[]int{8, 16}, 16},   // within a run: lane 0 meets 16 first (xor 16), then keeps it over 8
		{[]int{37, 71}, 71},  // across runs 1 and 2: lane 0 takes run 2 at distance 2, keeps it over run 1
		{[]int{40, 100}, 40}, // runs 1 and 3: lane 1 keeps run 1 over run 3, lane 0 takes it
		{[]int{500, 511}, 500},
	} {
		if got := argminCUDA(cost(tc.zeros...)); got != tc.want {
			t.Errorf("zeros at %v: argmin %d, want %d", tc.zeros, got, tc.want)
		}
	}
	// A NaN cost never wins a strict "<" and never lets lane 0 move, so a
	// NaN in lane 0 of run 0 sticks: garbage in, an in-range index out.
	nan := cost(3)
	nan[0] = float32(math.NaN())
	if got := argminCUDA(nan); got != 0 {
		t.Errorf("argmin with NaN at 0 = %d, want 0", got)
	}
}

// TestTCQPadIgnored: the pad byte and the trailing stream bits are not part
// of the value, so setting them changes nothing.
func TestTCQPadIgnored(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for typ, c := range tcqCodes() {
		x := gaussianRow(r, 256)
		row := mustEncode(t, typ, x)
		want := mustDecode(t, typ, row, 256)
		bb := typ.BlockBytes()
		for g := range 2 {
			row[g*bb+bb-1] = 0xFF                   // pad
			row[g*bb+normBytes+c.qsBytes-1] |= 0xC0 // 2 trailing bits
		}
		got := mustDecode(t, typ, row, 256)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: value %d changed from %g to %g", typ, i, want[i], got[i])
			}
		}
	}
}

// TestBestPredecessorsIsStrictScan checks the branch-free key minimum
// against the plain strict "<" scan from p = 0 on costs full of ties.
func TestBestPredecessorsIsStrictScan(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, c := range tcqCodes() {
		cost := make([]float32, c.states())
		for trial := range 50 {
			for i := range cost {
				cost[i] = float32(r.IntN(4)) * 0.25 // many exact ties
				if trial%2 == 1 {
					cost[i] = float32(r.Float64())
				}
			}
			var best [64]float32
			var bt [64]uint8
			bestPredecessors(c.k, cost, &best, &bt)
			for m := range best {
				row := cost[m<<c.k : (m+1)<<c.k]
				b, bp := row[0], 0
				for p := 1; p < len(row); p++ {
					if row[p] < b {
						b, bp = row[p], p
					}
				}
				if best[m] != b || int(bt[m]) != bp {
					t.Fatalf("k=%d m=%d: got (%g, %d), scan (%g, %d)", c.k, m, best[m], bt[m], b, bp)
				}
			}
		}
	}
}
