//go:build !purego

package turbo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// setAVX2 forces the kernel choice and returns a func restoring it.
func setAVX2(on bool) (restore func()) {
	old := useAVX2
	useAVX2 = on
	return func() { useAVX2 = old }
}

func requireAVX2(t testing.TB) {
	if !useAVX2 {
		t.Skip("AVX2+FMA not available (or WAGGLE_KERNELS=generic): only the generic kernels run")
	}
}

// TestAVX2KernelsMatchGeneric runs the assembly block kernels against the
// generic ones on random blocks and on arbitrary bytes (every byte pattern
// is a valid block), with q and acc at misaligned offsets inside guard
// bands that must stay untouched. Dot results agree within tolAttn of the
// term sum, axpy results within tolAttn of |acc|+|s·level|.
func TestAVX2KernelsMatchGeneric(t *testing.T) {
	requireAVX2(t)
	r := rand.New(rand.NewPCG(51, 52))
	type kern struct {
		typ     Type
		dotAsm  func(q *float32, qs *byte) float32
		axpyAsm func(acc *float32, s float32, qs *byte)
		dotGen  func(q *[BlockSize]float32, b []byte) float32
		axpyGen func(acc *[BlockSize]float32, s float32, b []byte)
		levels  []float32
	}
	kernels := []kern{
		{Turbo3, dotTurbo3AVX2, axpyTurbo3AVX2, dotTurbo3Generic, axpyTurbo3Generic, centroids3[:]},
		{Turbo3TCQ, dotTCQ3AVX2, axpyTCQ3AVX2,
			func(q *[BlockSize]float32, b []byte) float32 { return dotTCQ(&tcq3, q, b) },
			func(acc *[BlockSize]float32, s float32, b []byte) { axpyTCQ(&tcq3, acc, s, b) },
			tcq3Codebook[:]},
	}
	const guard = 16
	const sentinel = float32(-12345.5)
	for _, k := range kernels {
		bb := k.typ.BlockBytes()
		for trial := range 200 {
			blk := make([]byte, bb)
			if trial%2 == 0 {
				copy(blk, mustEncode(t, k.typ, gaussianRow(r, BlockSize)))
			} else {
				for i := range blk {
					blk[i] = byte(r.Uint32())
				}
			}
			off := trial % 8 // misaligned starts
			buf := make([]float32, guard+off+BlockSize+guard)
			for i := range buf {
				buf[i] = sentinel
			}
			q := (*[BlockSize]float32)(buf[guard+off:])
			for i := range q {
				q[i] = float32(r.NormFloat64())
			}
			want := k.dotGen(q, blk)
			got := k.dotAsm(&q[0], &blk[normBytes])
			var terms float64
			z := make([]float32, BlockSize)
			decodeBlock(k.typ, (*[BlockSize]float32)(z), withNorm(blk, 1)) // raw levels
			for j := range z {
				terms += math.Abs(float64(q[j]) * float64(z[j]))
			}
			if math.Abs(float64(got-want)) > tolAttn*terms {
				t.Fatalf("%s trial %d: dot asm %g, generic %g", k.typ, trial, got, want)
			}
			s := float32(r.NormFloat64())
			accGen := *q
			k.axpyGen(&accGen, s, blk)
			k.axpyAsm(&q[0], s, &blk[normBytes])
			for j := range q {
				bound := tolAttn * (math.Abs(float64(accGen[j])) + math.Abs(float64(s*z[j])))
				if math.Abs(float64(q[j]-accGen[j])) > bound {
					t.Fatalf("%s trial %d: axpy asm acc[%d] = %g, generic %g", k.typ, trial, j, q[j], accGen[j])
				}
			}
			for i, v := range buf {
				if (i < guard+off || i >= guard+off+BlockSize) && v != sentinel {
					t.Fatalf("%s trial %d: guard element %d overwritten", k.typ, trial, i)
				}
			}
		}
	}
}

// withNorm returns a copy of blk with its norm set to n, so a decode gives
// the raw levels.
func withNorm(blk []byte, n float32) []byte {
	c := append([]byte(nil), blk...)
	putBlockNorm(c, n)
	return c
}

// TestDotKeyPathsAgree runs the public API with and without assembly over
// rows of 1..8 blocks (head dims 64..1024) and compares them.
func TestDotKeyPathsAgree(t *testing.T) {
	requireAVX2(t)
	r := rand.New(rand.NewPCG(53, 54))
	for _, typ := range []Type{Turbo3, Turbo3TCQ} {
		for _, n := range []int{64, 128, 200, 256, 384, 640, 1024} {
			row := mustEncode(t, typ, gaussianRow(r, n))
			qr := make([]float32, PaddedLen(n))
			RotateQuery(qr, gaussianRow(r, n))
			asm := typ.DotKey(qr, row)
			accAsm := make([]float32, len(qr))
			typ.AccumulateValue(accAsm, 0.7, row)
			restore := setAVX2(false)
			gen := typ.DotKey(qr, row)
			accGen := make([]float32, len(qr))
			typ.AccumulateValue(accGen, 0.7, row)
			restore()
			scale := norm64(qr) * norm64(accGen) / 0.7
			if math.Abs(float64(asm-gen)) > tolAttn*scale {
				t.Errorf("%s n=%d: DotKey asm %g, generic %g", typ, n, asm, gen)
			}
			for j := range accAsm {
				if math.Abs(float64(accAsm[j]-accGen[j])) > tolAttn*math.Abs(float64(accGen[j]))+1e-12 {
					t.Fatalf("%s n=%d: AccumulateValue asm %g, generic %g at %d", typ, n, accAsm[j], accGen[j], j)
				}
			}
		}
	}
}

func BenchmarkDotKeyGeneric(b *testing.B) {
	defer setAVX2(false)()
	for _, typ := range []Type{Turbo3, Turbo3TCQ} {
		b.Run(typ.String()+"/128", func(b *testing.B) {
			b.SetBytes(benchRows * BlockSize * 4)
			_, rows, q := benchData(b, typ)
			bb := typ.BlockBytes()
			var sink float32
			for b.Loop() {
				for i := range benchRows {
					sink += typ.DotKey(q, rows[i*bb:(i+1)*bb])
				}
			}
			_ = sink
		})
	}
}

func BenchmarkAccumulateValueGeneric(b *testing.B) {
	defer setAVX2(false)()
	for _, typ := range []Type{Turbo3, Turbo3TCQ} {
		b.Run(typ.String()+"/128", func(b *testing.B) {
			b.SetBytes(benchRows * BlockSize * 4)
			_, rows, acc := benchData(b, typ)
			bb := typ.BlockBytes()
			for b.Loop() {
				for i := range benchRows {
					typ.AccumulateValue(acc, 0.01, rows[i*bb:(i+1)*bb])
				}
			}
		})
	}
}
