package eagle3_test

import (
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/eagle3"
	_ "github.com/waggle-llm/waggle/engine/models/llama"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/spec"
	"github.com/waggle-llm/waggle/spec/eagle3"
)

// load opens a GGUF fixture (which must exist) for the test's duration.
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

func drafter(t testing.TB, name string) *engine.Loaded {
	return load(t, filepath.Join(testenv.ModelsDir(t), "drafters", name))
}

// sharedTarget lends a target's token embeddings and output head, read
// from its file, as a target model that shares them does.
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

// newStrategy binds drafter to target with depth nMax for nSeq sequences.
func newStrategy(t testing.TB, target, draft *engine.Loaded, nMax, nSeq, nCtx int) *eagle3.Strategy {
	t.Helper()
	p := spec.DefaultEagle3()
	p.Model, p.Target, p.NMax = draft.Model, share(t, target), nMax
	p.TargetVocab, p.DraftVocab = target.Tokenizer, draft.Tokenizer
	p.Session = engine.SessionOptions{NCtx: nCtx, NSeq: nSeq, NBatch: 64, Threads: 1}
	s, err := eagle3.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tapped is a target session that keeps the fused input of every token
// of its last Decode: the inputs of the drafter's layers (the outputs of
// the layers before them), concatenated. Every token is made an output.
type tapped struct {
	engine.Session
	capture []int
	d       int
	row     []float32
}

func newTapped(t testing.TB, target engine.Model, layers []int, o engine.SessionOptions) *tapped {
	t.Helper()
	tp := &tapped{d: target.Info().NEmbd}
	for _, l := range layers {
		if l < 1 {
			t.Fatalf("layer %d: this helper reads layer inputs as the previous layer's output", l)
		}
		tp.capture = append(tp.capture, l-1)
	}
	o.CaptureLayers = tp.capture
	sess, err := target.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	tp.Session = sess
	tp.row = make([]float32, len(layers)*tp.d)
	return tp
}

// Row returns batch token k's fused input (valid until the next call).
func (tp *tapped) Row(k int) []float32 {
	for i, l := range tp.capture {
		copy(tp.row[i*tp.d:(i+1)*tp.d], tp.Hidden(l, k))
	}
	return tp.row
}

func argmax(v []float32) int32 {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return int32(best)
}
