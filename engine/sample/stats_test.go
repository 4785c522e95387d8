package sample

import "testing"

// chiSquare returns Σ (obs − n·p)² / (n·p).
func chiSquare(counts []int, p []float64, n int) float64 {
	var x2 float64
	for i, c := range counts {
		e := float64(n) * p[i]
		x2 += (float64(c) - e) * (float64(c) - e) / e
	}
	return x2
}

// With no truncation and temperature 1, 20000 draws must fit softmax(logits):
// χ² with 7 degrees of freedom stays below 24.32, its 0.1% critical value.
// The seed is fixed, so the outcome is deterministic; the same counts must
// clearly reject a slightly different distribution, so the test can fail.
func TestEmpiricalDistributionMatchesSoftmax(t *testing.T) {
	logits := []float32{0.5, 1.0, -0.3, 2.0, 0.0, 1.5, -1.0, 0.8}
	s := mustNew(t, neutral(), len(logits))
	const n = 20000
	counts := make([]int, len(logits))
	for range n {
		counts[s.Sample(logits)]++
	}
	want := softmax64(logits)
	x2 := chiSquare(counts, want, n)
	t.Logf("chi-square %.2f", x2)
	if x2 > 24.32 {
		t.Fatalf("chi-square %v > 24.32 (df 7, alpha 0.001); counts %v", x2, counts)
	}
	skewed := make([]float32, len(logits))
	copy(skewed, logits)
	skewed[3] += 0.1
	if x2 := chiSquare(counts, softmax64(skewed), n); x2 < 24.32 {
		t.Fatalf("test lacks power: chi-square against a skewed distribution is only %v", x2)
	}
}
