//go:build !purego

package turbo

// Fused scalar kernels (turbo2, turbo3, turbo4) on NEON, in two passes per
// run of up to recRows rows: prepTurbo*NEON (scalar_arm64.s) writes one
// record per row, the block's four byte planes of level·N (the products
// decodeBlock forms) and its 128 indices one per byte; scoreScalarNEON
// (score_arm64.s) and accumScalarNEON (accum_arm64.s) then rebuild each
// row's values in registers from its record (TBL per plane, ZIP), with no
// multiply per value and one routine for the three types. The records stay
// on the stack and in L1 (6 KiB); every load from the cache lies inside
// its block, as in expand_arm64.s.
//
// Instructions per row of 128 values for four query heads, counted in the
// loop bodies of the built routines (go tool objdump; qemu cannot time
// them), turbo2/turbo3/turbo4, fused against ExpandRows plus the float32
// kernel the engine runs per head (kernels.AttnScores(F32) widens every
// product to float64: 241 a head and row; AttnValues(F32): 82):
//
//	scores  prep 44/71/39 + 317          = 361/388/356
//	        expand 83/110/76 + 4×241     = 1047/1074/1040   (fused 0.34-0.36×)
//	values  prep 44/71/39 + 8 slices×49  = 436/463/431
//	        expand 83/110/76 + 4×82      = 411/438/404      (fused 1.06×)
//
// So scores are fused (with two query heads per KV head still 0.64×; with
// one, 1.1×), values are not: the decode per 16-value slice (record loads,
// four TBLs, eight ZIPs) costs more than the stores and reloads of the
// expanded chunk it saves. fusedScalarValues keeps the value kernel off
// until a measurement on hardware says otherwise; tests turn it on to hold
// it to the reference's bits.

// recBytes is one row's record; recRows bounds the rows per pass.
const (
	recBytes = 64 + BlockSize
	recRows  = 32
)

// rowRecords holds the records of one pass.
type rowRecords [recRows * recBytes]byte

// prepTurbo2NEON, prepTurbo3NEON and prepTurbo4NEON write the records of
// n >= 0 one-block rows, srcStride bytes apart, to rec (n·192 bytes).

//go:noescape
func prepTurbo2NEON(rec *byte, src *byte, srcStride, n int)

//go:noescape
func prepTurbo3NEON(rec *byte, src *byte, srcStride, n int)

//go:noescape
func prepTurbo4NEON(rec *byte, src *byte, srcStride, n int)

// scoreScalarNEON is scoreTCQ3NEON (score_arm64.go) on n rows of records.
//
//go:noescape
func scoreScalarNEON(dst *float32, dstStride int, q *float32, rec *byte, n, nq int)

// accumScalarNEON is accumTCQ3NEON (accum_arm64.go) on n rows of records.
//
//go:noescape
func accumScalarNEON(a0, a1, a2, a3 *float32, p *[4]float32, rec *byte, n int)

// fusedScalarValues turns the scalar value kernel on at the NEON level; it
// is off (see the counts above), and tests set it.
var fusedScalarValues = false

// isScalar reports whether t is turbo2, turbo3 or turbo4.
func isScalar(t Type) bool { return t == Turbo2 || t == Turbo3 || t == Turbo4 }

// prepRecords writes the records of n <= recRows rows at src (stride bytes
// apart) to rec.
func prepRecords(t Type, rec *rowRecords, src *byte, stride, n int) {
	switch t {
	case Turbo2:
		prepTurbo2NEON(&rec[0], src, stride, n)
	case Turbo3:
		prepTurbo3NEON(&rec[0], src, stride, n)
	default:
		prepTurbo4NEON(&rec[0], src, stride, n)
	}
}

// scoreScalar scores m rows recRows at a time.
func scoreScalar(t Type, dst []float32, dstStride int, q []float32, nq int, src []byte, stride, m int) {
	var rec rowRecords
	for r0 := 0; r0 < m; r0 += recRows {
		n := min(recRows, m-r0)
		prepRecords(t, &rec, &src[r0*stride], stride, n)
		scoreScalarNEON(&dst[r0], 4*dstStride, &q[0], &rec[0], n, nq)
	}
}

// accumScalar sums m rows recRows at a time into the four heads' sums a
// (packing the weights as accumulateRowsAsm does); the sums continue in
// memory between passes, so each element's order stays rows in order.
func accumScalar(t Type, a *[4]*float32, p []float32, pStride, nq int, src []byte, stride, m int) {
	var rec rowRecords
	var pk [recRows][4]float32
	for r0 := 0; r0 < m; r0 += recRows {
		n := min(recRows, m-r0)
		for r := range n {
			for j := range nq {
				pk[r][j] = p[j*pStride+r0+r]
			}
		}
		prepRecords(t, &rec, &src[r0*stride], stride, n)
		accumScalarNEON(a[0], a[1], a[2], a[3], &pk[0], &rec[0], n)
	}
}
