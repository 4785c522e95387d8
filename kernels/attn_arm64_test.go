//go:build !purego

package kernels

import (
	"fmt"
	"math"
	"testing"
)

// neonAttnTables returns the attention kernels under test: those of every
// arm64 implementation this CPU runs, by name. Both must be the NEON ones.
func neonAttnTables(t *testing.T) map[string]kernelTable {
	m := neonFloatImpls(t)
	for name, kt := range m {
		if funcPC(kt.attnValues[F16]) != funcPC(attnValuesF16ARM64) || funcPC(kt.attnScores[F32]) != funcPC(attnScoresF32ARM64) {
			t.Fatalf("%s does not use the NEON attention kernels", name)
		}
	}
	return m
}

// neonValueRows returns keys rows of n values of type t (values of random
// sign spanning 2^-20..2^20, so a change in the order or the rounding of
// the sums shows), stride bytes apart, copied into memory whose last row
// ends exactly at a fault page, lead bytes after a page-aligned start.
func neonValueRows(t *testing.T, seed uint64, typ DType, keys, n, stride int) []byte {
	r := newRand(seed)
	rb := typ.RowBytes(n)
	if keys == 0 {
		return nil
	}
	v := make([]byte, (keys-1)*stride+rb)
	for i := range v {
		v[i] = 0xff // NaN between rows: a kernel reading them shows
	}
	for j := range keys {
		x := randomActs(r, n)
		for i := range x {
			x[i] *= float32(math.Ldexp(1, r.IntN(41)-20))
			if typ == F16 {
				x[i] = float32(math.Ldexp(float64(x[i]), -6)) // f16 range
			}
		}
		QuantizeRow(typ, v[j*stride:j*stride+rb], x)
	}
	return guardedCopy(t, v, 0)
}

// TestNEONAttnValues checks the NEON AttnValues kernels bit for bit
// against the documented loop (attnValuesRef), for arbitrary float32 p
// (not only f16 values: the kernels never fuse), column counts around the
// 8- and 64-column blocks, row counts from 0, odd strides, the last row
// ending at a fault page, and sentinels after dst.
func TestNEONAttnValues(t *testing.T) {
	for name, kt := range neonAttnTables(t) {
		for _, typ := range []DType{F32, F16} {
			for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 56, 63, 64, 65, 72, 120, 127, 128, 129, 136, 192, 200, 264} {
				for _, keys := range []int{0, 1, 2, 3, 17, 100} {
					for _, pad := range []int{0, 1, 6, 99} {
						stride := typ.RowBytes(n) + pad
						seed := uint64(n*10000 + keys*100 + pad)
						v := neonValueRows(t, seed, typ, keys, n, stride)
						r := newRand(seed + 1)
						p := make([]float32, keys)
						for j := range p {
							p[j] = float32(r.NormFloat64())
						}
						want := make([]float32, n)
						attnValuesRef(typ, want, p, v, stride)
						dst := neonGuardedOut(t, make([]float32, n), 3)
						for i := range dst {
							dst[i] = float32(math.NaN()) // must be overwritten
						}
						kt.attnValues[typ](dst, guardedFloatsAt(t, p, 0), v, stride)
						what := fmt.Sprintf("%s AttnValues %v n=%d keys=%d pad=%d", name, typ, n, keys, pad)
						neonCheckGuard(t, what, dst)
						neonCompare(t, what, dst, want, 0)
					}
				}
			}
		}
	}
}

// TestNEONAttnValuesOrder: per column, 2^24 + 1 - 2^24 is 0 when added in
// row order from zero (the 1 is lost to rounding) and 1 in any order that
// adds the two large values first, so a kernel that reorders the rows
// fails. (A fused product changes the bits of the random rows of
// TestNEONAttnValues, whose p are not f16 values.)
func TestNEONAttnValuesOrder(t *testing.T) {
	for name, kt := range neonAttnTables(t) {
		for _, typ := range []DType{F32, F16} {
			const n = 72
			big := float32(1 << 24)
			p := []float32{1, 1, 1}
			if typ == F16 {
				big, p = 1<<12, []float32{4096, 1, 4096} // 2^24 as a product of f16 values
			}
			rows := [][]float32{make([]float32, n), make([]float32, n), make([]float32, n)}
			for d := range n {
				rows[0][d], rows[1][d], rows[2][d] = big, 1, -big
			}
			stride := typ.RowBytes(n)
			v := make([]byte, 3*stride)
			for j, row := range rows {
				QuantizeRow(typ, v[j*stride:], row)
			}
			dst := make([]float32, n)
			kt.attnValues[typ](dst, p, v, stride)
			for d, got := range dst {
				if got != 0 {
					t.Fatalf("%s %v column %d: %v, want 0 (rows added out of order?)", name, typ, d, got)
				}
			}
		}
	}
}

// TestNEONAttnScores checks that every NEON score has the bits of the same
// implementation's VecDot on its key: lengths that are and are not
// multiples of 8, strides padded to odd byte counts, keys whose products
// cancel (cancelRow, where another summation order gives other bits), the
// last key and the query ending at fault pages, and sentinels after dst.
func TestNEONAttnScores(t *testing.T) {
	r := newRand(401)
	for name, kt := range neonAttnTables(t) {
		for _, typ := range []DType{F32, F16} {
			big, tiny := float32(1<<30), float32(1)
			if typ == F16 {
				big, tiny = 1<<15, float32(math.Ldexp(1, -24))
			}
			for _, n := range []int{0, 1, 4, 8, 12, 16, 20, 24, 64, 65, 72, 128, 256} {
				for _, keys := range []int{1, 2, 5, 33} {
					for _, pad := range []int{0, 3, 64} {
						rb := typ.RowBytes(n)
						stride := rb + pad
						k := make([]byte, (keys-1)*stride+rb)
						for j := range keys {
							var w []float32
							if n >= 8 && j%2 == 0 {
								w, _ = cancelRow(r, n, 8*r.IntN(n/8), big, tiny)
							} else {
								w = randomActs(r, n)
							}
							QuantizeRow(typ, k[j*stride:j*stride+rb], w)
						}
						qf := randomActs(r, n)
						if n >= 8 {
							_, qf = cancelRow(r, n, 0, big, tiny)
							for i := 8; i < n; i++ {
								qf[i] = float32(r.NormFloat64())
							}
						}
						q := make([]byte, rb)
						QuantizeRow(typ, q, qf)
						gk, gq := guardedCopy(t, k, 0), guardedCopy(t, q, 0)
						dst := neonGuardedOut(t, make([]float32, keys), 2)
						kt.attnScores[typ](dst, gk, stride, gq, n)
						what := fmt.Sprintf("%s AttnScores %v n=%d keys=%d pad=%d", name, typ, n, keys, pad)
						neonCheckGuard(t, what, dst)
						for j := range keys {
							want := kt.vecDot[typ](n, k[j*stride:j*stride+rb], q)
							if math.Float32bits(dst[j]) != math.Float32bits(want) {
								t.Fatalf("%s: key %d = %v, VecDot %v", what, j, dst[j], want)
							}
						}
					}
				}
			}
		}
	}
}
