//go:build !purego

package kernels

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

func BenchmarkFusedDot4Old(b *testing.B) {
	const n, rows = 2048, 64
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range []DType{Q4_K, Q6_K} {
		w := randomMatrix(r, typ, rows, n)
		xq, _ := quantizeActs(typ, randomActs(r, n))
		kn, _, _ := fusedKernel(typ)
		ko := fusedDot4Q4_KAVX512Old
		if typ == Q6_K {
			ko = fusedDot4Q6_KAVX512Old
		}
		rb := typ.RowBytes(n)
		var out [4]float32
		for _, v := range []struct {
			name string
			k    fusedDotFunc
		}{{"old", ko}, {"new", kn}} {
			b.Run(fmt.Sprintf("%v/%s", typ, v.name), func(b *testing.B) {
				b.SetBytes(int64(len(w)))
				for b.Loop() {
					for r := 0; r < rows; r += 4 {
						v.k(n/QK_K, w[r*rb:], rb, xq, &out)
					}
				}
			})
		}
	}
}

// TestABFused (WAGGLE_AB=1): min-of-rounds timing, old vs new, interleaved.
func TestABFused(t *testing.T) {
	if os.Getenv("WAGGLE_AB") == "" {
		t.Skip()
	}
	const n, rows = 2048, 64
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range []DType{Q4_K, Q6_K} {
		w := randomMatrix(r, typ, rows, n)
		xq, _ := quantizeActs(typ, randomActs(r, n))
		kn, _, _ := fusedKernel(typ)
		ko := fusedDot4Q4_KAVX512Old
		if typ == Q6_K {
			ko = fusedDot4Q6_KAVX512Old
		}
		rb := typ.RowBytes(n)
		var out [4]float32
		ks := []fusedDotFunc{ko, kn}
		best := []time.Duration{1 << 62, 1 << 62}
		for round := 0; round < 400; round++ {
			for i, k := range ks {
				t0 := time.Now()
				for rep := 0; rep < 20; rep++ {
					for r := 0; r < rows; r += 4 {
						k(n/QK_K, w[r*rb:], rb, xq, &out)
					}
				}
				if d := time.Since(t0); d < best[i] {
					best[i] = d
				}
			}
		}
		for i, name := range []string{"old", "new"} {
			gbs := float64(20*len(w)) / best[i].Seconds() / 1e9
			t.Logf("%v %s: %.1f GB/s", typ, name, gbs)
		}
	}
}
