package eagle3_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/eagle3"
	"github.com/waggle-llm/waggle/gguf"
)

// stubTarget is a target of hidden size 8, 4 layers and 32 tokens that
// lends its embeddings and head: small enough that fuzzed drafter files
// stay a few kilobytes.
type stubTarget struct {
	info      engine.Info
	embd, out *engine.Matrix
}

func (s *stubTarget) Info() *engine.Info { return &s.info }
func (s *stubTarget) NewSession(engine.SessionOptions) (engine.Session, error) {
	panic("stub target: no session")
}
func (s *stubTarget) SharedHead() (embeddings, output *engine.Matrix) { return s.embd, s.out }

func newStubTarget(t testing.TB) *stubTarget {
	t.Helper()
	ts := map[string]*tensor{}
	for _, name := range []string{"token_embd.weight", "output.weight"} {
		v := make([]float32, 8*32)
		for i := range v {
			v[i] = float32(i%7) * 0.1
		}
		ts[name] = &tensor{dims: []int64{8, 32}, f32: v}
	}
	data := spec{}.writeTensors(t, nil, ts)
	f, err := gguf.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	w := engine.Weights{F: f}
	st := &stubTarget{info: engine.Info{Arch: "stub", NEmbd: 8, NLayer: 4, NVocab: 32}}
	if st.embd, err = w.Matrix("token_embd.weight", 8, 32); err != nil {
		t.Fatal(err)
	}
	if st.out, err = w.Matrix("output.weight", 8, 32); err != nil {
		t.Fatal(err)
	}
	return st
}

// FuzzLoadDrafter drives corrupted drafter files through loading, binding
// to a target and one fuse and decode: a bad file must give an error,
// never a panic or a runaway allocation.
func FuzzLoadDrafter(f *testing.F) {
	target := newStubTarget(f)
	tiny := spec{d: 8, nFF: 8, nHead: 2, nHeadKV: 1, headDim: 4, draftVocab: 16, layers: []int32{1, 2, 4},
		ownOutput: true, d2t: true, targetD: 8, targetVocab: 32}
	f.Add(build(f, tiny, nil).data)
	tiny.normBeforeFC, tiny.d2tI32, tiny.ownEmbd = true, true, true
	f.Add(build(f, tiny, nil).data)
	tiny.normBeforeFC, tiny.fcNorm, tiny.normOutput, tiny.doublePrefix, tiny.ropeFreqs = false, true, true, true, true
	f.Add(build(f, tiny, nil).data)
	f.Fuzz(func(t *testing.T, data []byte) {
		gf, err := gguf.Parse(data)
		if err != nil {
			return
		}
		m, err := eagle3.Load(gf)
		if err != nil {
			return
		}
		dr, err := m.Bind(target, engine.SessionOptions{NCtx: 8, NBatch: 4, Threads: 1})
		if err != nil {
			return
		}
		fi := m.Features()
		g := make([]float32, 2*fi.NEmbd)
		dr.Fuse(g, make([]float32, 2*len(fi.Layers)*fi.TargetEmbd), 2)
		var b engine.Batch
		b.Add(1, 0, 0, false)
		b.Add(2, 1, 0, true)
		if err := dr.Decode(&b, g); err != nil {
			t.Fatalf("decode after a successful bind: %v", err)
		}
		_ = dr.Logits(0)
	})
}
