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

// sharedTarget lends a target's token embeddings and output head, read
// from its file, the way a target model that shares them does.
type sharedTarget struct {
	engine.Model
	embd, out *engine.Matrix
}

func (s sharedTarget) SharedHead() (embeddings, output *engine.Matrix) { return s.embd, s.out }

func share(t testing.TB, l *engine.Loaded) sharedTarget {
	t.Helper()
	info := l.Model.Info()
	w := engine.Weights{F: l.File}
	embd, err := w.Matrix("token_embd.weight", info.NEmbd, info.NVocab)
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.OptionalMatrix("output.weight", info.NEmbd, info.NVocab)
	if err != nil {
		t.Fatal(err)
	}
	if out == nil {
		out = embd
	}
	return sharedTarget{Model: l.Model, embd: embd, out: out}
}

// features runs the target over tokens (one sequence from position 0)
// and returns, for every position, the fused input row: the inputs of
// the drafter's layers, concatenated. The input of layer L is the output
// of layer L-1 (every fixture's layers are ≥ 1). o sets the target's
// cache types and attention path.
func features(t testing.TB, target engine.Model, fi engine.FeatureInfo, tokens []int32, o engine.SessionOptions) []float32 {
	t.Helper()
	capture := make([]int, len(fi.Layers))
	for i, l := range fi.Layers {
		if l < 1 {
			t.Fatalf("layer %d: the input of layer 0 is not captured by this helper", l)
		}
		capture[i] = l - 1
	}
	o.NCtx, o.NBatch, o.CaptureLayers = max(o.NCtx, len(tokens)), max(o.NBatch, len(tokens)), capture
	sess, err := target.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	for i, tok := range tokens {
		b.Add(tok, int32(i), 0, true)
	}
	if err := sess.Decode(&b); err != nil {
		t.Fatal(err)
	}
	D := fi.TargetEmbd
	w := len(fi.Layers) * D
	x := make([]float32, len(tokens)*w)
	for i := range tokens {
		for k, l := range capture {
			copy(x[i*w+k*D:i*w+(k+1)*D], sess.Hidden(l, i))
		}
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
