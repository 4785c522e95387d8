package kernels

import (
	"fmt"
	"math"
	"testing"
)

// attnValuesRef is the documented AttnValues loop, written out
// independently of the generic kernel: per column, products rounded to
// float32 and added in row order from zero.
func attnValuesRef(t DType, dst, p []float32, v []byte, vStride int) {
	for d := range dst {
		acc := float32(0)
		for j, pj := range p {
			var x float32
			if t == F32 {
				x = f32At(v[j*vStride+4*d:])
			} else {
				x = f16At(v[j*vStride+2*d:])
			}
			acc += float32(pj * x)
		}
		dst[d] = acc
	}
}

// randomValueRows returns keys rows of n values of type t, stride bytes
// apart, after lead bytes (a misaligned start), with a guard band of
// 0xff bytes (NaN as f16 and f32) between and after the rows.
func randomValueRows(seed uint64, t DType, keys, n, stride, lead int) []byte {
	r := newRand(seed)
	rb := t.RowBytes(n)
	v := make([]byte, lead+keys*stride+64)
	for i := range v {
		v[i] = 0xff
	}
	for j := range keys {
		QuantizeRow(t, v[lead+j*stride:lead+j*stride+rb], randomActs(r, n))
	}
	return v[lead:]
}

// randomProbs returns keys probabilities-like values in [0, 1), rounded to
// f16 when f16 is set (as the engine does for an f16 cache).
func randomProbs(seed uint64, keys int, f16 bool) []float32 {
	r := newRand(seed)
	p := make([]float32, keys)
	for j := range p {
		p[j] = r.Float32()
		if f16 {
			p[j] = F16ToF32(F32ToF16(p[j]))
		}
	}
	return p
}

// TestAttnValues checks every implementation against the reference loop
// bit for bit over column counts around the 8- and 64-column blocks, row
// counts including zero, padded strides and misaligned starts, and that
// the columns past len(dst) are left alone.
func TestAttnValues(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, _ *kernelTable) {
		for _, typ := range []DType{F32, F16} {
			for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 72, 120, 128, 136, 200} {
				for _, keys := range []int{0, 1, 2, 5, 33} {
					for _, pad := range []int{0, 2, 6, 100} {
						stride := typ.RowBytes(n) + pad
						lead := (n + keys + pad) % 5
						seed := uint64(n*1000 + keys*10 + pad)
						v := randomValueRows(seed, typ, keys, n, stride, lead)
						p := randomProbs(seed+1, keys, typ == F16)
						want := make([]float32, n)
						attnValuesRef(typ, want, p, v, stride)
						got := make([]float32, n+3)
						for i := range got {
							got[i] = float32(math.NaN())
						}
						kt.attnValues[typ](got[:n], p, v, stride)
						for d := range n {
							if math.Float32bits(got[d]) != math.Float32bits(want[d]) {
								t.Fatalf("%v n=%d keys=%d pad=%d: dst[%d] = %v, want %v", typ, n, keys, pad, d, got[d], want[d])
							}
						}
						for d := n; d < len(got); d++ {
							if !math.IsNaN(float64(got[d])) {
								t.Fatalf("%v n=%d keys=%d: wrote past dst at %d", typ, n, keys, d)
							}
						}
					}
				}
			}
		}
	})
}

// TestAttnScores checks that every score has the bits of a VecDot on its
// key, for each implementation and float key type.
func TestAttnScores(t *testing.T) {
	for _, name := range Impls() {
		restore, err := SelectImpl(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range []DType{F32, F16, BF16, Q8_0} {
			for _, n := range []int{4, 20, 32, 64, 72, 96, 128} {
				if n%typ.BlockSize() != 0 {
					continue
				}
				for _, keys := range []int{1, 3, 17} {
					stride := typ.RowBytes(n) + 2*typ.RowBytes(32)
					r := newRand(uint64(n + keys))
					k := make([]byte, keys*stride)
					for j := range keys {
						copy(k[j*stride:], randomWeights(r, typ, n))
					}
					q := make([]byte, typ.VecDotType().RowBytes(n))
					QuantizeRow(typ.VecDotType(), q, randomActs(r, n))
					got := make([]float32, keys)
					AttnScores(typ, got, k[:(keys-1)*stride+typ.RowBytes(n)], stride, q, n)
					for j := range keys {
						want := VecDot(typ, n, k[j*stride:], q)
						if math.Float32bits(got[j]) != math.Float32bits(want) {
							t.Errorf("%s %v n=%d key %d: %v, want %v", name, typ, n, j, got[j], want)
						}
					}
				}
			}
		}
		restore()
	}
}

// TestAttnPanics checks the documented preconditions.
func TestAttnPanics(t *testing.T) {
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		f()
	}
	dst := make([]float32, 8)
	p := make([]float32, 2)
	v := make([]byte, 2*32)
	mustPanic("AttnValues Q8_0", func() { AttnValues(Q8_0, dst, p, v, 32) })
	mustPanic("AttnValues short stride", func() { AttnValues(F32, dst, p, v, 16) })
	mustPanic("AttnValues short v", func() { AttnValues(F32, dst, p, v[:63], 32) })
	q := make([]byte, 16)
	mustPanic("AttnScores short k", func() { AttnScores(F16, p, v[:47], 32, q, 8) })
	mustPanic("AttnScores short q", func() { AttnScores(F16, p, v, 32, q[:15], 8) })
}

// TestAttnNoAlloc checks that the attention kernels do not allocate.
func TestAttnNoAlloc(t *testing.T) {
	dst, p := make([]float32, 64), randomProbs(1, 40, true)
	v := randomValueRows(2, F16, 40, 64, 512, 0)
	q := make([]byte, 128)
	if n := testing.AllocsPerRun(10, func() {
		AttnScores(F16, p, v, 512, q, 64)
		AttnValues(F16, dst, p, v, 512)
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}

// BenchmarkAttnValues times the weighted sum of keys value rows of one
// head (64 or 128 columns) as in a KV cache of 8 heads.
func BenchmarkAttnValues(b *testing.B) {
	const keys = 512
	for _, typ := range []DType{F32, F16} {
		for _, name := range Impls() {
			kt, _ := resolve(name)
			for _, n := range []int{64, 128} {
				stride := 8 * typ.RowBytes(n)
				v := randomValueRows(3, typ, keys, n, stride, 0)
				p := randomProbs(4, keys, typ == F16)
				dst := make([]float32, n)
				b.Run(fmt.Sprintf("%v/%s/%d", typ, name, n), func(b *testing.B) {
					b.SetBytes(int64(keys * typ.RowBytes(n)))
					for b.Loop() {
						kt.attnValues[typ](dst, p, v, stride)
					}
				})
			}
		}
	}
}

// BenchmarkAttnScores times the scores of one query head against keys keys
// of 64 or 128 values, as in a KV cache of 8 heads.
func BenchmarkAttnScores(b *testing.B) {
	const keys = 512
	for _, typ := range []DType{F32, F16} {
		for _, name := range Impls() {
			for _, n := range []int{64, 128} {
				stride := 8 * typ.RowBytes(n)
				k := randomValueRows(5, typ, keys, n, stride, 0)
				q := make([]byte, typ.RowBytes(n))
				QuantizeRow(typ, q, randomActs(newRand(6), n))
				dst := make([]float32, keys)
				b.Run(fmt.Sprintf("%v/%s/%d", typ, name, n), func(b *testing.B) {
					restore, _ := SelectImpl(name)
					defer restore()
					b.SetBytes(int64(keys * typ.RowBytes(n)))
					for b.Loop() {
						AttnScores(typ, dst, k, stride, q, n)
					}
				})
			}
		}
	}
}
