package eagle3_test

import (
	"math"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/eagle3"
)

// variants are the layouts and options of docs/reference/eagle3.md §1-§3.4
// a drafter may come in.
func variants() map[string]spec {
	v := map[string]spec{}
	base := baseSpec()
	v["mainline"] = base
	s := base
	s.normBeforeResidual = true
	v["norm_before_residual"] = s
	s = base
	s.normBeforeFC = true
	v["norm_before_fc"] = s
	s = base
	s.fcNorm = true
	v["eagle3.1 fc_norm"] = s
	s = base
	s.normOutput = true
	v["eagle3.1 norm_output"] = s
	s = base
	s.d, s.nHead, s.headDim, s.ownEmbd, s.d2t = 128, 4, 32, true, false
	v["own embeddings and full head, width 128"] = s
	s = base
	s.ownOutput, s.d2t = false, false
	v["the target's head"] = s
	s = base
	s.d2tI32, s.d2tWeightName, s.doublePrefix = true, true, true
	v["I32 d2t.weight, doubled key prefix"] = s
	s = base
	s.ropeFreqs = true
	v["rope_freqs"] = s
	return v
}

// TestVariantsMatchReference runs every variant's drafter over the
// target's features of a prompt (decoded in two batches, so the second
// attends to the first through the cache) and one fed-back step, and
// holds logits and fed-back states to the float64 reference.
func TestVariantsMatchReference(t *testing.T) {
	target := model(t, "synth-llama-tiny-f32.gguf")
	tok := tokenizerKVs(target)
	prompt := []int32{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315}
	for name, sp := range variants() {
		t.Run(name, func(t *testing.T) {
			s := build(t, sp, tok)
			l, err := engine.LoadBytes(s.data)
			if err != nil {
				t.Fatal(err)
			}
			m := l.Model.(*eagle3.Model)
			dr, err := m.Bind(target.Model, engine.SessionOptions{NCtx: 64, NBatch: 16, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			r := newRef(s, target.Model.(engine.HeadSharer))
			checkVariant(t, dr, r, target.Model, m.Features(), prompt)
		})
	}
}

func newRef(s *synth, shared engine.HeadSharer) *ref {
	r := &ref{s: s, eps: 1e-5}
	rows := func(m *engine.Matrix) [][]float32 {
		out := make([][]float32, m.Rows)
		for i := range out {
			out[i] = make([]float32, m.Cols)
			m.DequantizeRow(out[i], i)
		}
		return out
	}
	split := func(t *tensor) [][]float32 {
		cols := int(t.dims[0])
		out := make([][]float32, t.dims[1])
		for i := range out {
			out[i] = t.f32[i*cols : (i+1)*cols]
		}
		return out
	}
	embd, out := shared.SharedHead()
	r.embd, r.head = rows(embd), rows(out)
	if e := s.tensors["token_embd.weight"]; e != nil {
		r.embd = split(e)
	}
	if h := s.tensors["output.weight"]; h != nil {
		r.head = split(h)
	}
	return r
}

func checkVariant(t *testing.T, dr *eagle3.Drafter, r *ref, target engine.Model, fi engine.FeatureInfo, prompt []int32) {
	t.Helper()
	n := len(prompt) - 1 // pairs (prompt[p+1], g_p) at p = 0..n-1
	x := features(t, target, fi, prompt, engine.SessionOptions{Threads: 1})
	d := fi.NEmbd
	gs := make([]float32, len(prompt)*d)
	dr.Fuse(gs, x, len(prompt))
	want := make([][]float64, n)
	for p := range n {
		want[p] = r.fuse(x[p*3*tD : (p+1)*3*tD])
		if diff := relDiff(gs[p*d:(p+1)*d], want[p]); diff > 1e-5 {
			t.Fatalf("fused feature %d differs by %.3g (relative)", p, diff)
		}
	}
	wantLogits, wantNext := r.decode(prompt[1:], want)
	var b engine.Batch
	for _, span := range [][2]int{{0, 7}, {7, n}} {
		b.Reset()
		for p := span[0]; p < span[1]; p++ {
			b.Add(prompt[p+1], int32(p), 0, true)
		}
		if err := dr.Decode(&b, gs[span[0]*d:span[1]*d]); err != nil {
			t.Fatal(err)
		}
		for k := range dr.NumOutputs() {
			p := span[0] + k
			checkRow(t, p, dr.Logits(k), wantLogits[p], dr.Next(k), wantNext[p])
		}
	}
	// One drafted step: the state fed back with a token at position n.
	fed := append([]float32(nil), dr.Next(dr.NumOutputs()-1)...)
	b.Reset()
	b.Add(7, int32(n), 0, true)
	if err := dr.Decode(&b, fed); err != nil {
		t.Fatal(err)
	}
	fed64 := make([]float64, d)
	for i, v := range fed {
		fed64[i] = float64(v)
	}
	l2, n2 := r.decode(append(append([]int32(nil), prompt[1:]...), 7), append(want, fed64))
	checkRow(t, n, dr.Logits(0), l2[n], dr.Next(0), n2[n])
}

func checkRow(t *testing.T, p int, logits []float32, wantLogits []float64, next []float32, wantNext []float64) {
	t.Helper()
	if len(logits) != len(wantLogits) {
		t.Fatalf("position %d: %d logits, want %d", p, len(logits), len(wantLogits))
	}
	if diff := relDiff(logits, wantLogits); diff > 1e-4 {
		t.Fatalf("position %d: logits differ by %.3g (relative)", p, diff)
	}
	if diff := relDiff(next, wantNext); diff > 1e-4 {
		t.Fatalf("position %d: fed-back state differs by %.3g (relative)", p, diff)
	}
}

// relDiff is max|a-b| over max(1, max|b|).
func relDiff(a []float32, b []float64) float64 {
	diff, scale := 0.0, 1.0
	for i := range b {
		diff = math.Max(diff, math.Abs(float64(a[i])-b[i]))
		scale = math.Max(scale, math.Abs(b[i]))
	}
	return diff / scale
}
