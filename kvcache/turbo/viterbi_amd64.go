//go:build !purego

package turbo

import "golang.org/x/sys/cpu"

// useAVX512Viterbi selects the AVX-512 trellis search (viterbi_amd64.s),
// decided once at start-up like useAVX2 (WAGGLE_KERNELS=generic forces the
// Go search). It gives the Go search's costs and choices bit for bit.
var useAVX512Viterbi = useAVX2 && cpu.X86.HasAVX512F

//go:noescape
func viterbiAVX512(z []float32, cost, next, cbL *[512]float32, perm *[8][16]int32, rows int, mask uint16, bt *[BlockSize][64]uint8)

// viterbiSteps runs the trellis steps with the assembly when available and
// reports whether it did; costs are left in natural state order in cost.
func (c *tcqCode) viterbiSteps(z []float32, cost *[512]float32, bt *[BlockSize][64]uint8) bool {
	if !useAVX512Viterbi {
		return false
	}
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
	return true
}
