package turbo

import (
	"math"
	"testing"
)

// checkViterbi compares the selected trellis search with viterbiStepsGo on
// z: final costs bit for bit and every step's best predecessors, and no bt
// row written past the steps. When z holds two different NaNs a NaN cost
// matches any NaN (which payload an addition of two NaNs keeps follows
// operand order, the compiler's choice in the reference); the predecessors
// must still agree.
func checkViterbi(t *testing.T, label string, c *tcqCode, z []float32) {
	t.Helper()
	nans := map[uint32]bool{}
	for _, v := range z {
		if v != v {
			nans[math.Float32bits(v)] = true
		}
	}
	var want, got, b [512]float32
	var best [64]float32
	var btWant, btGot [BlockSize][64]uint8
	for i := range btGot {
		for j := range btGot[i] {
			btGot[i][j] = 0xee
		}
	}
	wantCost := c.viterbiStepsGo(z, &want, &b, &best, &btWant)
	if !c.viterbiSteps(z, &got, &btGot) {
		t.Fatalf("%s: viterbiSteps did not run", label)
	}
	for s := range c.states() {
		g, w := got[s], wantCost[s]
		if math.Float32bits(g) != math.Float32bits(w) && !(len(nans) > 1 && g != g && w != w) {
			t.Fatalf("%s k=%d n=%d: cost[%d] = %#x (%v), Go %#x (%v)", label, c.k, len(z), s,
				math.Float32bits(g), g, math.Float32bits(w), w)
		}
	}
	for i := range len(z) {
		if btGot[i] != btWant[i] {
			t.Fatalf("%s k=%d n=%d: predecessors of step %d differ:\n%v\n%v", label, c.k, len(z), i, btGot[i], btWant[i])
		}
	}
	for i := len(z); i < BlockSize; i++ {
		for j, v := range btGot[i] {
			if v != 0xee {
				t.Fatalf("%s k=%d n=%d: bt[%d][%d] written past the steps", label, c.k, len(z), i, j)
			}
		}
	}
}
