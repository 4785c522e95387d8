package sample

import (
	"math"
	"math/rand/v2"
	"testing"
)

// mk builds an unsorted candidate array in id order.
func mk(logits ...float32) *cands {
	c := make([]Candidate, len(logits))
	for i, l := range logits {
		c[i] = Candidate{ID: int32(i), Logit: l}
	}
	return &cands{c: c}
}

func ids(c []Candidate) []int32 {
	out := make([]int32, len(c))
	for i, x := range c {
		out[i] = x.ID
	}
	return out
}

// softmax64 is the reference softmax in float64.
func softmax64(logits []float32) []float64 {
	m := math.Inf(-1)
	for _, l := range logits {
		m = math.Max(m, float64(l))
	}
	p := make([]float64, len(logits))
	var s float64
	for i, l := range logits {
		p[i] = math.Exp(float64(l) - m)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func sameIDs(t *testing.T, what string, got []Candidate, want []int32) {
	t.Helper()
	g := ids(got)
	if len(g) != len(want) {
		t.Fatalf("%s: ids %v, want %v", what, g, want)
	}
	for i := range g {
		if g[i] != want[i] {
			t.Fatalf("%s: ids %v, want %v", what, g, want)
		}
	}
}

// randomLogits returns n logits spread like a real model's (a few high).
func randomLogits(r *rand.Rand, n int) []float32 {
	l := make([]float32, n)
	for i := range l {
		l[i] = float32(r.NormFloat64() * 3)
	}
	return l
}

func mustNew(t testing.TB, p Params, n int) *Sampler {
	t.Helper()
	s, err := New(p, n)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// neutral returns parameters with every stage disabled and temperature 1.
func neutral() Params {
	p := DefaultParams()
	p.Temp, p.TopK, p.TopP, p.MinP = 1, 0, 1, 0
	p.Seed = 1
	return p
}
