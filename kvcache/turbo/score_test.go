package turbo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// tolScore bounds ScoreRows4's kernel against its reference: each score's
// difference over Σ_i |q_i·v_i| (the sum of the magnitudes of its terms),
// for float32 sums of 128 products in different orders (measured ~1e-7).
const tolScore = 2e-6

// TestScoreRows4MatchesReference: every type and kernel level (AVX2 and
// AVX-512 on a CPU with both), 1–4 queries, row counts around the
// kernel's unrolling, rows strided as in a cache with other heads between
// them; scores within tolScore of decode-then-dot, and nothing written
// outside the nq score rows.
func TestScoreRows4MatchesReference(t *testing.T) {
	forExpandImpls(t, func(impl string) { testScoreRows4(t, impl) })
}

func testScoreRows4(t *testing.T, impl string) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, typ := range Types {
		bb := typ.BlockBytes()
		stride := 3*bb + 5
		const maxRows = 70
		src := make([]byte, maxRows*stride)
		for i := range maxRows {
			copy(src[i*stride:], mustEncode(t, typ, gaussianRow(r, BlockSize)))
		}
		q := make([]float32, 4*BlockSize)
		for i := range q {
			q[i] = float32(r.NormFloat64())
		}
		for _, nq := range []int{1, 2, 3, 4} {
			for _, m := range []int{1, 2, 7, 64, maxRows} {
				t.Run(fmt.Sprintf("%s/%s/q%d/m%d", impl, typ, nq, m), func(t *testing.T) {
					const ds = maxRows + 3
					got := make([]float32, 4*ds)
					want := make([]float32, 4*ds)
					for i := range got {
						got[i], want[i] = -7, -7
					}
					typ.ScoreRows4(got, ds, q, nq, src, stride, m)
					scoreRowsGo(typ, want, ds, q, nq, src, stride, m)
					var v [BlockSize]float32
					for j := range 4 {
						for row := range ds {
							g, w := got[j*ds+row], want[j*ds+row]
							if j >= nq || row >= m {
								if g != -7 {
									t.Fatalf("query %d row %d written outside the scores: %v", j, row, g)
								}
								continue
							}
							decodeBlock(typ, &v, src[row*stride:row*stride+bb])
							var mag float64
							for i := range v {
								mag += math.Abs(float64(q[j*BlockSize+i]) * float64(v[i]))
							}
							if e := math.Abs(float64(g)-float64(w)) / mag; e > tolScore {
								t.Fatalf("query %d row %d: %v, reference %v (error %.3g of the terms' magnitude)", j, row, g, w, e)
							}
						}
					}
				})
			}
		}
	}
}

// fusedScoresWantARM64 is arm64's expectation (fusedScoresWant,
// score_arm64_test.go, set at init; nil in other builds).
var fusedScoresWantARM64 func(Type) bool

// TestFusedScoresWhereExpected: where the fused kernels are built for
// arm64, its expectation (fusedScoresWant: every type at the NEON level);
// elsewhere none is fused. amd64, where every type is fused at AVX2 and
// AVX-512, has its own: TestFusedScoresAMD64. The engine relies on
// FusedScores to choose its path.
func TestFusedScoresWhereExpected(t *testing.T) {
	if runtime.GOARCH == "amd64" && fusedKernelBuilt {
		t.Skip("amd64: TestFusedScoresAMD64")
	}
	forExpandImpls(t, func(impl string) {
		for _, typ := range Types {
			want := expandImpl >= expandAVX2 && fusedKernelBuilt && typ.IsTCQ()
			if runtime.GOARCH == "arm64" && fusedScoresWantARM64 != nil {
				want = fusedScoresWantARM64(typ)
			}
			if got := typ.FusedScores(); got != want {
				t.Errorf("%s/%s: FusedScores %v, want %v", impl, typ, got, want)
			}
		}
	})
}

// BenchmarkScoreRows4 scores 4096 rows (8 heads interleaved, as in a
// cache) against four queries: the fused kernel where there is one, and the
// reference; bytes are the blocks read.
func BenchmarkScoreRows4(b *testing.B) {
	const rows, heads = 4096, 8
	r := rand.New(rand.NewPCG(7, 8))
	q := make([]float32, 4*BlockSize)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	dst := make([]float32, 4*rows)
	for _, typ := range Types {
		bb := typ.BlockBytes()
		stride := heads * bb
		src := make([]byte, rows*stride)
		for i := range rows {
			copy(src[i*stride:], mustEncode(b, typ, gaussianRow(r, BlockSize)))
		}
		for _, impl := range []string{"fused", "go"} {
			if impl == "fused" && !typ.FusedScores() {
				continue
			}
			b.Run(typ.String()+"/"+impl, func(b *testing.B) {
				b.SetBytes(int64(rows * bb))
				for b.Loop() {
					if impl == "go" {
						scoreRowsGo(typ, dst, rows, q, 4, src, stride, rows)
					} else {
						typ.ScoreRows4(dst, rows, q, 4, src, stride, rows)
					}
				}
			})
		}
	}
}
