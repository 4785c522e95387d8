package kernels

import (
	"fmt"
	"math"
	"testing"
)

// TestBatchInvariance checks the guarantee batching and speculative
// verification rest on: for every implementation this CPU runs and every
// weight type, VecDotN's out[c] has exactly the float32 bits of VecDot on
// column c, whatever the number of columns (1..MaxDotCols) and whatever the
// other columns hold. Lengths cover 1..9 blocks and a few longer rows (every
// remainder of the multi-column kernels' unroll), plus odd lengths for the
// float types; strides are tight and padded by an odd byte count. The
// columns go through the exported functions, as the matmul calls them.
func TestBatchInvariance(t *testing.T) {
	for _, name := range Impls() {
		t.Run(name, func(t *testing.T) {
			restore, err := SelectImpl(name)
			if err != nil {
				t.Fatal(err)
			}
			defer restore()
			r := newRand(77)
			for _, typ := range weightTypes {
				var fails int
				for _, n := range batchInvarianceSizes(typ) {
					w := randomWeights(r, typ, n)
					xn := typ.VecDotType().RowBytes(n)
					for _, pad := range []int{0, 7} {
						stride := xn + pad
						x := make([]byte, MaxDotCols*stride)
						for c := range MaxDotCols {
							q, _ := quantizeActs(typ, randomActs(r, n))
							copy(x[c*stride:], q)
						}
						for nc := 1; nc <= MaxDotCols; nc++ {
							out := make([]float32, nc)
							VecDotN(typ, n, w, x[:(nc-1)*stride+xn], stride, out)
							for c := range nc {
								one := VecDot(typ, n, w, x[c*stride:c*stride+xn])
								if math.Float32bits(out[c]) != math.Float32bits(one) {
									fails++
									if fails <= 5 {
										t.Errorf("%v n=%d stride=%d nc=%d col %d: VecDotN=%v (%#08x), VecDot=%v (%#08x)",
											typ, n, stride, nc, c, out[c], math.Float32bits(out[c]), one, math.Float32bits(one))
									}
								}
							}
						}
					}
				}
				if fails > 5 {
					t.Errorf("%v: %d mismatches in all", typ, fails)
				}
			}
		})
	}
}

// batchInvarianceSizes returns the row lengths TestBatchInvariance uses
// for t: 1..9 blocks and 13, 16, 31 and 128 blocks, and for the float types
// also lengths that are not multiples of 8 or of the unrolled steps.
func batchInvarianceSizes(t DType) []int {
	bs := t.BlockSize()
	var ns []int
	for _, nb := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 31, 128} {
		ns = append(ns, nb*bs)
	}
	if bs == 1 {
		ns = append(ns, 0, 3, 16, 24, 40, 48, 56, 72, 96, 100, 257, 1000, 4096, 4104)
	}
	return ns
}

// TestBatchInvarianceSizes keeps the size list honest: the lengths must be
// valid for the type and cover every remainder modulo 4 blocks.
func TestBatchInvarianceSizes(t *testing.T) {
	for _, typ := range weightTypes {
		var rem [4]bool
		for _, n := range batchInvarianceSizes(typ) {
			if n%typ.BlockSize() != 0 {
				t.Fatalf("%v: n=%d is not a whole number of blocks", typ, n)
			}
			rem[n/typ.BlockSize()%4] = true
		}
		if fmt.Sprint(rem) != "[true true true true]" {
			t.Errorf("%v: sizes miss a remainder modulo 4 blocks: %v", typ, rem)
		}
	}
}
