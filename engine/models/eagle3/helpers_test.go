package eagle3_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/eagle3"
	_ "github.com/waggle-llm/waggle/engine/models/llama"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// load opens a GGUF (a fixture that must exist) and closes it with the
// test.
func load(t testing.TB, path string) *engine.Loaded {
	t.Helper()
	l, err := engine.LoadFile(testenv.Require(t, path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func model(t testing.TB, name string) *engine.Loaded {
	return load(t, filepath.Join(testenv.ModelsDir(t), name))
}

func drafterModel(t testing.TB, name string) *eagle3.Model {
	l := load(t, filepath.Join(testenv.ModelsDir(t), "drafters", name))
	return l.Model.(*eagle3.Model)
}

// features runs the target over tokens (one sequence from position 0)
// and returns, for every position, the fused input row: the inputs of
// the drafter's layers, concatenated, as the target session captures them
// (engine.Tapper). o sets the target's cache types and attention path.
func features(t testing.TB, target engine.Model, fi engine.FeatureInfo, tokens []int32, o engine.SessionOptions) []float32 {
	t.Helper()
	o.Taps = nil
	for _, l := range fi.Layers {
		o.Taps = append(o.Taps, engine.LayerInput(l))
	}
	o.NCtx, o.NBatch = max(o.NCtx, len(tokens)), max(o.NBatch, len(tokens))
	sess, err := target.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	for i, tok := range tokens {
		b.Add(tok, int32(i), 0, i == len(tokens)-1)
	}
	if err := sess.Decode(&b); err != nil {
		t.Fatal(err)
	}
	w := len(fi.Layers) * fi.TargetEmbd
	x := make([]float32, 0, len(tokens)*w)
	for i := range tokens {
		x = append(x, sess.(engine.Tapper).Tapped(i)...)
	}
	return x
}

// scatter spreads draft-vocabulary logits over the target vocabulary
// (-Inf for tokens the drafter cannot propose), as mainline's graph does.
func scatter(logits []float32, d2t []int32, nVocab int) []float32 {
	if d2t == nil {
		return append([]float32(nil), logits...)
	}
	out := make([]float32, nVocab)
	for i := range out {
		out[i] = float32(math.Inf(-1))
	}
	for i, t := range d2t {
		out[t] = logits[i]
	}
	return out
}

// argmax returns the target id of the highest draft logit (the lower
// target id on a tie).
func argmax(logits []float32, d2t []int32) int32 {
	best, bestID := float32(math.Inf(-1)), int32(-1)
	for i, v := range logits {
		id := int32(i)
		if d2t != nil {
			id = d2t[i]
		}
		if v > best || (v == best && id < bestID) {
			best, bestID = v, id
		}
	}
	return bestID
}

func maxAbsDiff(a, b []float32) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(float64(a[i])-float64(b[i])))
	}
	return m
}
