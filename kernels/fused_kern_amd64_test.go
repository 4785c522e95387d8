//go:build !purego

package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkFusedDot4 measures the four-row kernels alone on weights that
// stay in cache (64 rows of 2048 values).
func BenchmarkFusedDot4(b *testing.B) {
	if !AVX512VNNI.Available() {
		b.Skip("no four-row kernels on this CPU")
	}
	fused := resolveLevel(AVX512VNNI).fused
	const n, rows = 2048, 64
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range []DType{Q4_0, Q4_K, Q6_K} {
		w := randomMatrix(r, typ, rows, n)
		xq, _ := quantizeActs(typ, randomActs(r, n))
		k, group, prepared := fused[typ].one, fused[typ].group, fused[typ].prepared
		xp := xq
		if prepared {
			xp = prepareFused(make([]byte, n/128*256), xq, n)
		}
		rb := typ.RowBytes(n)
		var out [4]float32
		b.Run(fmt.Sprintf("%v/kernel", typ), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				for r := 0; r < rows; r += 4 {
					k(n/group, w[r*rb:], rb, xp, &out)
				}
			}
		})
		b.Run(fmt.Sprintf("%v/vecdot", typ), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			vd := active.vecDot[typ]
			for b.Loop() {
				for r := 0; r < rows; r++ {
					out[0] = vd(n, w[r*rb:(r+1)*rb], xq)
				}
			}
		})
		if !prepared {
			continue
		}
		b.Run(fmt.Sprintf("%v/prepare", typ), func(b *testing.B) {
			for b.Loop() {
				prepareFused(xp, xq, n)
			}
		})
	}
}
