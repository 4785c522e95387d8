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

// newStrategy binds drafter to target with depth nMax for nSeq sequences.
func newStrategy(t testing.TB, target, draft *engine.Loaded, nMax, nSeq, nCtx int) *eagle3.Strategy {
	t.Helper()
	p := spec.DefaultEagle3()
	p.Model, p.Target, p.NMax = draft.Model, target.Model, nMax
	p.TargetVocab, p.DraftVocab = target.Tokenizer, draft.Tokenizer
	p.Session = engine.SessionOptions{NCtx: nCtx, NSeq: nSeq, NBatch: 64, Threads: 1}
	s, err := eagle3.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tapped is a target session capturing the inputs of the drafter's
// layers for every token of every Decode (engine.Tapper).
type tapped struct {
	engine.Session
	engine.Tapper
}

func newTapped(t testing.TB, target engine.Model, layers []int, o engine.SessionOptions) *tapped {
	t.Helper()
	o.Taps = eagle3.Taps(layers)
	sess, err := target.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	return &tapped{Session: sess, Tapper: sess.(engine.Tapper)}
}

// Row returns batch token k's fused input: the drafter's layer inputs,
// concatenated (valid until the next Decode).
func (tp *tapped) Row(k int) []float32 { return tp.Tapped(k) }

func argmax(v []float32) int32 {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return int32(best)
}
