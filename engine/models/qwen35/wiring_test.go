package qwen35

import (
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kvcache"
)

// TestWiringMistakesFail is a test of the parity test: each classic wiring
// mistake of the goldens README (and the two traps of the reference notes),
// injected into a loaded synth-qwen35-spm-f32, must move the logits far
// outside the 1e-4 F32 tolerance, so the parity tests can fail for each of
// them. Each mutation rewires the model the way a buggy engine would read
// the file; the code under test stays unchanged.
func TestWiringMistakesFail(t *testing.T) {
	stem := "synth-qwen35-spm-f32"
	g, err := golden.Load(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "goldens", stem+".json")))
	if err != nil {
		t.Fatal(err)
	}
	mistakes := map[string]func(m *Model){
		"none": func(*Model) {},
		// V head h paired with K head h/2 instead of h mod 2.
		"grouped V-head pairing": func(m *Model) { m.v.groupedHeads = true },
		// Conv taps applied newest-first.
		"reversed conv taps": func(m *Model) {
			for _, l := range m.layers {
				if d := l.delta; d != nil {
					k, c := m.hp.convK, m.hp.convDim
					for j := range k / 2 {
						for ch := range c {
							a, b := j*c+ch, (k-1-j)*c+ch
							d.convW[a], d.convW[b] = d.convW[b], d.convW[a]
						}
					}
				}
			}
		},
		// Rotary over all 64 head dims instead of the first 16.
		"rope on all head dims": func(m *Model) { m.hp.rope.NRot = m.hp.headDim },
		// ssm_norm weight ignored.
		"ssm_norm ignored": func(m *Model) {
			for _, l := range m.layers {
				if d := l.delta; d != nil {
					for i := range d.norm {
						d.norm[i] = 1
					}
				}
			}
		},
		// Qwen's +1 added again to norms that already carry it.
		"norm +1 twice": func(m *Model) {
			for _, l := range m.layers {
				for i := range l.attnNorm {
					l.attnNorm[i]++
				}
			}
		},
		// attn_q read as [all q | all gates] instead of per-head [q | gate].
		"q/gate halves": func(m *Model) {
			for _, l := range m.layers {
				if a := l.attn; a != nil {
					a.wq = halvesAsInterleaved(a.wq, m.hp.nHead, m.hp.headDim)
				}
			}
		},
	}
	for name, mutate := range mistakes {
		t.Run(name, func(t *testing.T) {
			l, err := engine.LoadFile(testenv.Model(t, stem+".gguf"))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			m := l.Model.(*Model)
			mutate(m)
			worst := 0.0
			for _, c := range g.Cases {
				worst = max(worst, maxGoldenDiff(t, m, &c))
			}
			t.Logf("max |Δlogit| vs llama.cpp: %.3g", worst)
			if name == "none" && worst > 1e-4 {
				t.Fatalf("the unmodified model is %.3g from the golden", worst)
			}
			if name != "none" && worst < 0.5 {
				t.Fatalf("the mistake moves the logits by only %.3g; the parity test would not see it", worst)
			}
		})
	}
}

func maxGoldenDiff(t *testing.T, m *Model, c *golden.Case) float64 {
	s, err := m.NewSession(engine.SessionOptions{NCtx: 128, TypeK: kvcache.F32, TypeV: kvcache.F32})
	if err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	for i, tok := range c.Tokens {
		b.Add(tok, int32(i), 0, true)
	}
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range c.Positions {
		worst = max(worst, golden.ComparePosition(s.Logits(i), &c.Positions[i], 1e-4).MaxAbs)
	}
	return worst
}

// halvesAsInterleaved returns a heap copy of attn_q whose per-head
// interleaved reading gives what reading the original as halves would:
// head h's q rows from [h·hd, (h+1)·hd) and its gate rows from
// [nh·hd + h·hd, …).
func halvesAsInterleaved(wq *engine.Matrix, nHead, hd int) *engine.Matrix {
	rb := len(wq.Data) / wq.Rows
	data := make([]byte, len(wq.Data))
	for h := range nHead {
		for j := range hd {
			q, gate := h*hd+j, nHead*hd+h*hd+j
			copy(data[(2*h*hd+j)*rb:], wq.Data[q*rb:(q+1)*rb])
			copy(data[(2*h*hd+hd+j)*rb:], wq.Data[gate*rb:(gate+1)*rb])
		}
	}
	return &engine.Matrix{Name: wq.Name, Type: wq.Type, Rows: wq.Rows, Cols: wq.Cols, Data: data}
}
