package sample

import (
	"math"
	"slices"
	"testing"
)

func TestTopKKeepsKSortedTiesLowID(t *testing.T) {
	cs := mk(1, 5, 3, 5, 2, 5, 0)
	cs.topK(4)
	sameIDs(t, "top-k 4", cs.c, []int32{1, 3, 5, 2})
	if !cs.sorted {
		t.Fatal("top-k must leave the candidates sorted")
	}
	cs = mk(1, 2)
	cs.topK(10)
	sameIDs(t, "top-k > n", cs.c, []int32{1, 0})
	cs = mk(1, 2)
	cs.topK(0)
	sameIDs(t, "top-k 0", cs.c, []int32{0, 1})
}

// The heap path (k small relative to n) must agree with a full sort.
func TestTopKHeapMatchesSort(t *testing.T) {
	l := make([]float32, 5000)
	for i := range l {
		l[i] = float32((i * 7919) % 997 / 10) // many ties
	}
	for _, k := range []int{1, 40, 128, 1000} {
		a := mk(l...)
		a.topK(k)
		b := mk(l...)
		b.sortAll()
		sameIDs(t, "heap vs sort", a.c, ids(b.c[:k]))
	}
}

// topPRef finds the minimal sorted prefix whose probability reaches p.
func topPRef(logits []float32, p float64, minKeep int) []int32 {
	cs := mk(logits...)
	cs.sortAll()
	sorted := make([]float32, len(cs.c))
	for i, c := range cs.c {
		sorted[i] = c.Logit
	}
	pr := softmax64(sorted)
	var cum float64
	for i := range pr {
		cum += pr[i]
		if cum >= p && i+1 >= minKeep {
			return ids(cs.c[:i+1])
		}
	}
	return ids(cs.c)
}

func TestTopP(t *testing.T) {
	logits := []float32{1, 3, 2, 0.5, 2.5, -1}
	for _, tc := range []struct {
		p       float32
		minKeep int
	}{{0.5, 0}, {0.7, 0}, {0.9, 0}, {0.99, 0}, {0.1, 3}, {0, 0}} {
		cs := mk(logits...)
		cs.topP(tc.p, tc.minKeep)
		sameIDs(t, "top-p", cs.c, topPRef(logits, float64(tc.p), tc.minKeep))
	}
	cs := mk(logits...)
	cs.topP(1, 0)
	sameIDs(t, "top-p 1 is a no-op", cs.c, []int32{0, 1, 2, 3, 4, 5})
}

// Above 1024 candidates top-p sorts lazily; the result must not change,
// including when the first window of 256 is not enough.
func TestTopPLargeVocab(t *testing.T) {
	l := make([]float32, 3000)
	for i := range l {
		l[i] = float32(i%101) / 50
	}
	for _, p := range []float32{0.05, 0.5, 0.95} {
		cs := mk(l...)
		cs.topP(p, 0)
		want := topPRef(l, float64(p), 0)
		if d := len(cs.c) - len(want); d < -1 || d > 1 { // float32 vs float64 sums
			t.Fatalf("p=%v: kept %d, reference %d", p, len(cs.c), len(want))
		}
		sameIDs(t, "top-p large prefix", cs.c[:min(len(cs.c), len(want))], want[:min(len(cs.c), len(want))])
	}
}

func TestMinP(t *testing.T) {
	logits := []float32{0, 2, -1, 1.9, 0.5, 2}
	pr := softmax64(logits)
	pmax := slices.Max(pr)
	var want []int32
	for i, p := range pr {
		if p >= 0.3*pmax {
			want = append(want, int32(i))
		}
	}
	cs := mk(logits...)
	cs.minP(0.3, 0)
	sameIDs(t, "min-p unsorted keeps order", cs.c, want)
	if cs.sorted {
		t.Fatal("unsorted min-p must not claim sorted")
	}
	cs = mk(logits...)
	cs.minP(0.3, 5) // too few pass: sorted path keeps min_keep
	sameIDs(t, "min-p min_keep", cs.c, []int32{1, 5, 3, 4, 0})
	cs = mk(logits...)
	cs.sortAll()
	cs.minP(0.3, 0)
	sameIDs(t, "min-p sorted", cs.c, []int32{1, 5, 3})
}

func TestTypical(t *testing.T) {
	logits := []float32{2, 1.7, 1.7, 0, -1, 0.5}
	pr := softmax64(logits)
	var h float64
	for _, p := range pr {
		h -= p * math.Log(p)
	}
	order := []int{0, 1, 2, 3, 4, 5}
	slices.SortStableFunc(order, func(a, b int) int {
		da, db := math.Abs(-math.Log(pr[a])-h), math.Abs(-math.Log(pr[b])-h)
		if da < db {
			return -1
		} else if da > db {
			return 1
		}
		return 0
	})
	for _, p := range []float32{0.2, 0.5, 0.9} {
		var want []int32
		var cum float64
		for _, i := range order {
			want = append(want, int32(i))
			cum += pr[i]
			if cum > float64(p) {
				break
			}
		}
		cs := mk(logits...)
		cs.typical(p, 0, make([]typicalScore, 6), make([]Candidate, 6))
		sameIDs(t, "typical", cs.c, want)
	}
}

func TestTemperature(t *testing.T) {
	logits := []float32{1, -2, 3.5}
	cs := mk(logits...)
	cs.temperature(0.7)
	for i, c := range cs.c {
		if want := logits[i] / 0.7; c.Logit != want {
			t.Fatalf("logit %d = %v, want %v", i, c.Logit, want)
		}
	}
	cs = mk(1, 4, 2, 4)
	cs.temperature(0)
	for i, c := range cs.c {
		if keep := i == 1; keep != (c.Logit == 4) || !keep && c.Logit != negInf {
			t.Fatalf("greedy mask: %v", cs.c)
		}
	}
}

func TestDynatemp(t *testing.T) {
	logits := []float32{2, 1, 0.5, -1}
	pr := softmax64(logits)
	var h float64
	for _, p := range pr {
		h -= p * math.Log(p)
	}
	norm := h / math.Log(4)
	want := (0.8 - 0.5) + (1.0)*math.Pow(norm, 2) // temp 0.8, range 0.5, exponent 2
	cs := mk(logits...)
	cs.dynatemp(0.8, 0.5, 2)
	if got := float64(cs.c[0].Logit); math.Abs(got-2/want) > 1e-5 {
		t.Fatalf("dynatemp scaled top logit to %v, want %v (temp %v)", got, 2/want, want)
	}
}

func TestTopNSigma(t *testing.T) {
	logits := []float32{0, 1, 2, 3, 10, float32(math.Inf(-1))}
	var mean, v float64
	for _, l := range logits[:5] {
		mean += float64(l) / 5
	}
	for _, l := range logits[:5] {
		v += (float64(l) - mean) * (float64(l) - mean) / 5
	}
	limit := 10 - 0.5*math.Sqrt(v)
	cs := mk(logits...)
	cs.topNSigma(0.5)
	for _, c := range cs.c {
		orig := float64(logits[c.ID])
		if masked := c.Logit == negInf; masked != (orig < limit) {
			t.Fatalf("token %d (logit %v, limit %v) masked=%v", c.ID, orig, limit, masked)
		}
	}
	if cs.c[0].ID != 4 || !cs.sorted {
		t.Fatalf("top-n-sigma must sort: %v", cs.c)
	}
}
