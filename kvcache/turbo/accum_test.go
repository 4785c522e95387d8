package turbo

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
)

// accCase is one AccumulateRows4 call with guard values around everything
// it may write: accStride and pStride leave gaps, and all four heads' rows
// exist whatever nq is.
type accCase struct {
	typ                Type
	nq, m, stride      int
	accStride, pStride int
	acc, p             []float32
	src                []byte
}

const accGuard = -7.25

// newAccCase fills m rows (stride bytes apart, other bytes random) with
// randomRows' mix of encoded rows, arbitrary bytes and special norms, or,
// if finite, with norms that are not Inf or NaN (one such row turns most
// sums into NaN, which would hide a wrong kernel); running sums and
// probabilities random (p in [0, 1), some exact zeros).
func newAccCase(t testing.TB, r *rand.Rand, typ Type, nq, m, gap int, finite bool) *accCase {
	c := &accCase{typ: typ, nq: nq, m: m, stride: 3*typ.BlockBytes() + gap,
		accStride: BlockSize + 3 + gap, pStride: m + 2 + gap}
	c.src = make([]byte, m*c.stride)
	randomRows(t, r, typ, c.src, BlockSize, c.stride, m)
	if finite {
		c.finiteNorms(r)
	}
	c.acc = make([]float32, 4*c.accStride)
	c.p = make([]float32, 4*c.pStride)
	for i := range c.acc {
		c.acc[i] = accGuard
		if i%c.accStride < BlockSize && i/c.accStride < nq {
			c.acc[i] = float32(r.NormFloat64())
		}
	}
	for i := range c.p {
		if r.IntN(8) > 0 {
			c.p[i] = r.Float32()
		}
	}
	return c
}

// finiteNorms replaces every Inf or NaN norm with a random finite one.
func (c *accCase) finiteNorms(r *rand.Rand) {
	for row := range c.m {
		b := c.src[row*c.stride:]
		if n := float64(blockNorm(b)); math.IsInf(n, 0) || math.IsNaN(n) {
			binary.LittleEndian.PutUint16(b, uint16(r.IntN(0x7c00))|uint16(r.IntN(2))<<15)
		}
	}
}

// run returns the sums after AccumulateRows4 (fused) or the reference.
func (c *accCase) run(fused bool) []float32 {
	acc := append([]float32(nil), c.acc...)
	p := c.p[:(c.nq-1)*c.pStride+c.m]
	if fused {
		c.typ.AccumulateRows4(acc, c.accStride, p, c.pStride, c.nq, c.src, c.stride, c.m)
	} else {
		accumulateRowsGo(c.typ, acc, c.accStride, p, c.pStride, c.nq, c.src, c.stride, c.m)
	}
	return acc
}

// sameBits reports whether a and b are the same float32 bits, or both NaN
// (the payload of a NaN sum depends on which operand the hardware keeps).
func sameBits(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// check compares got with the reference bit for bit, and that nothing
// outside the nq heads' 128 sums changed.
func (c *accCase) check(t testing.TB, got []float32) {
	t.Helper()
	want := c.run(false)
	for i, g := range got {
		j, k := i/c.accStride, i%c.accStride
		if (j >= c.nq || k >= BlockSize) && math.Float32bits(g) != math.Float32bits(accGuard) {
			t.Fatalf("%s nq %d m %d: wrote %v outside the sums (head %d, element %d)", c.typ, c.nq, c.m, g, j, k)
		}
		if !sameBits(g, want[i]) {
			t.Fatalf("%s nq %d m %d: head %d element %d: %v (%#x), reference %v (%#x)",
				c.typ, c.nq, c.m, j, k, g, math.Float32bits(g), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestAccumulateRows4MatchesReference: every type and kernel level, 1-4
// heads, row counts around the chunk size, rows strided with other bytes
// between them, finite norms and special ones, running sums continued:
// the bits of accumulateRowsGo, nothing written outside the nq heads'
// sums.
func TestAccumulateRows4MatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	forExpandImpls(t, func(impl string) {
		for _, typ := range Types {
			for nq := 1; nq <= 4; nq++ {
				for _, m := range []int{1, 2, 7, 63, 64, 65, 70} {
					for _, finite := range []bool{true, false} {
						t.Run(fmt.Sprintf("%s/%s/q%d/m%d/finite=%v", impl, typ, nq, m, finite), func(t *testing.T) {
							c := newAccCase(t, r, typ, nq, m, r.IntN(9), finite)
							c.check(t, c.run(true))
						})
					}
				}
			}
		}
	})
}

// TestAccumulateRows4MatchesExpandAndSum holds AccumulateRows4 to what it
// replaces in attention: ExpandRows, then kernels.AttnValues(F32) over a
// continuation row (the running sums with weight 1) and the expanded rows.
func TestAccumulateRows4MatchesExpandAndSum(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	forExpandImpls(t, func(impl string) {
		for _, typ := range Types {
			c := newAccCase(t, r, typ, 4, 64, 5, true)
			got := c.run(true)
			rows := make([]float32, (c.m+1)*BlockSize)
			typ.ExpandRows(rows[BlockSize:], c.src, c.stride, c.m)
			pc := make([]float32, c.m+1)
			for j := range c.nq {
				want := make([]float32, BlockSize)
				copy(rows, c.acc[j*c.accStride:j*c.accStride+BlockSize])
				pc[0] = 1
				copy(pc[1:], c.p[j*c.pStride:j*c.pStride+c.m])
				kernels.AttnValues(kernels.F32, want, pc, f32Bytes(rows), 4*BlockSize)
				for i, w := range want {
					if g := got[j*c.accStride+i]; !sameBits(g, w) {
						t.Fatalf("%s/%s: head %d element %d: %v, expand and sum %v", impl, typ, j, i, g, w)
					}
				}
			}
		}
	})
}

// f32Bytes views float32s as their bytes (little-endian machines).
func f32Bytes(x []float32) []byte {
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// TestAccumulateRows4DoesNotAllocate: the engine calls it per chunk.
func TestAccumulateRows4DoesNotAllocate(t *testing.T) {
	c := newAccCase(t, rand.New(rand.NewPCG(1, 2)), Turbo3TCQ, 3, 64, 0, true)
	p := c.p[:2*c.pStride+c.m]
	if a := testing.AllocsPerRun(10, func() {
		c.typ.AccumulateRows4(c.acc, c.accStride, p, c.pStride, c.nq, c.src, c.stride, c.m)
	}); a != 0 {
		t.Fatalf("%v allocations per call", a)
	}
}

// TestFusedValuesWhereExpected: at the AVX2 and AVX-512 expansion levels
// (amd64) every type is fused but turbo4 on AVX2; at the NEON level (arm64)
// the TCQ types; at the Go level none (the engine relies on FusedValues to
// choose its path).
func TestFusedValuesWhereExpected(t *testing.T) {
	forExpandImpls(t, func(impl string) {
		for _, typ := range Types {
			want := expandImpl >= expandAVX2 && fusedKernelBuilt && (expandImpl == expandAVX512 || typ != Turbo4)
			if runtime.GOARCH == "arm64" {
				want = expandImpl >= expandAVX2 && fusedKernelBuilt && typ.IsTCQ()
			}
			if got := typ.FusedValues(); got != want {
				t.Errorf("%s/%s: FusedValues %v, want %v", impl, typ, got, want)
			}
		}
	})
}

// FuzzAccumulateRows4 runs arbitrary blocks (any indices; any norm, or
// finite ones for even seeds) and probabilities through every kernel level
// against the reference.
func FuzzAccumulateRows4(f *testing.F) {
	f.Add(uint8(3), uint8(3), uint8(64), uint64(1), make([]byte, 52))
	f.Add(uint8(4), uint8(0), uint8(1), uint64(2), []byte{0x00, 0x7c, 0xff, 0xff})
	f.Add(uint8(4), uint8(1), uint8(70), uint64(3), []byte{0x01, 0x7e, 0x55, 0xaa, 0x12})
	f.Fuzz(func(t *testing.T, sel, nq, m uint8, seed uint64, data []byte) {
		typ := Types[int(sel)%len(Types)]
		r := rand.New(rand.NewPCG(seed, uint64(len(data))))
		c := newAccCase(t, r, typ, 1+int(nq)%4, 1+int(m)%80, int(seed%7), false)
		for i := range c.src {
			if len(data) > 0 {
				c.src[i] = data[i%len(data)] ^ byte(i/len(data))
			}
		}
		if seed%2 == 0 {
			c.finiteNorms(r) // else a NaN row hides most of the sums
		}
		for i := range c.p {
			c.p[i] = math.Float32frombits(r.Uint32())
			if r.IntN(4) > 0 {
				c.p[i] = r.Float32()
			}
		}
		forExpandImpls(t, func(string) { c.check(t, c.run(true)) })
	})
}

// BenchmarkAccumulateRows4 sums a 64-row chunk (8 heads interleaved, as in
// a cache) for four query heads: the fused kernel where there is one, and
// the reference; bytes are the blocks read.
func BenchmarkAccumulateRows4(b *testing.B) {
	const rows, heads = 64, 8
	r := rand.New(rand.NewPCG(9, 10))
	acc := make([]float32, 4*BlockSize)
	p := make([]float32, 4*rows)
	for i := range p {
		p[i] = r.Float32() / rows
	}
	for _, typ := range Types {
		bb := typ.BlockBytes()
		stride := heads * bb
		src := make([]byte, rows*stride)
		for i := range rows {
			copy(src[i*stride:], mustEncode(b, typ, gaussianRow(r, BlockSize)))
		}
		for _, impl := range []string{"fused", "go"} {
			if impl == "fused" && !typ.FusedValues() {
				continue
			}
			b.Run(typ.String()+"/"+impl, func(b *testing.B) {
				b.SetBytes(int64(rows * bb))
				for b.Loop() {
					if impl == "go" {
						accumulateRowsGo(typ, acc, BlockSize, p, rows, 4, src, stride, rows)
					} else {
						typ.AccumulateRows4(acc, BlockSize, p, rows, 4, src, stride, rows)
					}
				}
			})
		}
	}
}
