package eagle3_test

import (
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kvcache"
)

// parityTol bounds the top-20 logits and the pre-norm state against the
// goldens (the bound; measured differences are ~1e-6).
const parityTol = 1e-4

// goldenCase is one goldens-eagle3 file and how it was run.
type goldenCase struct {
	file, drafter string
	defaults      bool // f16 KV caches and flash attention (mainline's defaults)
}

var goldenCases = []goldenCase{
	{"eagle3-llama-tiny-n1.json", "synth-eagle3-llama-tiny-f32.gguf", false},
	{"eagle3-llama-tiny-n3.json", "synth-eagle3-llama-tiny-f32.gguf", false},
	{"eagle3-llama-tiny-accept-n1.json", "synth-eagle3-llama-tiny-accept-f32.gguf", false},
	{"eagle3-llama-tiny-accept-n3.json", "synth-eagle3-llama-tiny-accept-f32.gguf", false},
	{"eagle3-llama-tiny-n1-defaults.json", "synth-eagle3-llama-tiny-f32.gguf", true},
	{"eagle3-llama-tiny-n3-defaults.json", "synth-eagle3-llama-tiny-f32.gguf", true},
}

// TestGoldenDrafts recomputes every draft decode of every goldens-eagle3
// file over the committed sequence of its cycle: the target's features
// of positions 0..n_past-1, the pairs (token p+1, g_p) written for p <
// n_past-1, the seed (id_last, g_{n_past-1}), then each step fed the
// previous draft and state. Drafted ids must be mainline's, the top-20
// logits and the first pre-norm values within parityTol (exact files;
// the defaults files, run with f16 caches and flash attention, within
// the f16 rounding their README reports).
func TestGoldenDrafts(t *testing.T) {
	target := model(t, "synth-llama-tiny-f32.gguf")
	for _, gc := range goldenCases {
		t.Run(gc.file, func(t *testing.T) {
			g, err := golden.LoadEagle3(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "goldens-eagle3", gc.file)))
			if err != nil {
				t.Fatal(err)
			}
			m := drafterModel(t, gc.drafter)
			o := engine.SessionOptions{NCtx: 256, NBatch: 64, Threads: 1}
			tol := parityTol
			if gc.defaults {
				o.TypeK, o.TypeV, o.FlashAttn = kvcache.F16, kvcache.F16, true
				tol = 2e-2
			}
			dr, err := m.Bind(target.Model, o)
			if err != nil {
				t.Fatal(err)
			}
			all := append(append([]int32(nil), g.PromptTokens...), g.Generated...)
			x := features(t, target.Model, m.Features(), all, o)
			d := m.Features().NEmbd
			gs := make([]float32, len(all)*d)
			dr.Fuse(gs, x, len(all))
			checkPrefill(t, g, gs, d, tol)
			worst := 0.0
			for _, c := range g.Cycles {
				worst = max(worst, checkCycle(t, dr, target.Model.Info().NVocab, all, gs, c, tol))
			}
			t.Logf("%d cycles, largest difference %.3g", len(g.Cycles), worst)
		})
	}
}

// checkPrefill compares the fused features of the prefill's first and
// last rows with the golden's encoder output.
func checkPrefill(t *testing.T, g *golden.Eagle3, gs []float32, d int, tol float64) {
	t.Helper()
	last := g.PrefillFC.NRows - 1
	if diff := maxAbsDiff(gs[:16], g.PrefillFC.Row0); diff > tol {
		t.Errorf("prefill g row 0 differs by %.3g", diff)
	}
	if diff := maxAbsDiff(gs[last*d:last*d+16], g.PrefillFC.RowLast); diff > tol {
		t.Errorf("prefill g row %d differs by %.3g", last, diff)
	}
}

// checkCycle replays one cycle's draft decodes and returns the largest
// difference seen.
func checkCycle(t *testing.T, dr engine.FeatureDrafter, nVocab int, all []int32, gs []float32, c golden.Eagle3Cycle, tol float64) float64 {
	t.Helper()
	d := len(gs) / len(all)
	if all[c.NPast] != c.IDLast {
		t.Fatalf("cycle %d: id_last %d is not token %d of the run", c.Cycle, c.IDLast, c.NPast)
	}
	if err := dr.Truncate(0, 0); err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	feat := make([]float32, 0, c.NPast*d)
	for p := 0; p < c.NPast; p++ { // pairs (token p+1, g_p); the last is the seed
		b.Add(all[p+1], int32(p), 0, p == c.NPast-1)
		feat = append(feat, gs[p*d:(p+1)*d]...)
	}
	worst := 0.0
	var drafted []int32
	for s, step := range c.Steps {
		if err := dr.Decode(&b, feat); err != nil {
			t.Fatalf("cycle %d step %d: %v", c.Cycle, s, err)
		}
		k := dr.NumOutputs() - 1
		logits := dr.Logits(k)
		top := golden.Top20(scatter(logits, dr.DraftVocab(), nVocab))
		diff, msg := golden.CompareTop20(top, step.Top20, tol)
		if msg != "" {
			t.Fatalf("cycle %d step %d: top-20 %s", c.Cycle, s, msg)
		}
		h := dr.Next(k)
		worst = max(worst, diff, maxAbsDiff(h[:16], step.Prenorm))
		if hd := maxAbsDiff(h[:16], step.Prenorm); hd > tol {
			t.Fatalf("cycle %d step %d: pre-norm state differs by %.3g", c.Cycle, s, hd)
		}
		tok := argmax(logits, dr.DraftVocab())
		if float64(tok) != step.Top20[0][0] {
			t.Fatalf("cycle %d step %d: drafted %d, mainline %v", c.Cycle, s, tok, step.Top20[0][0])
		}
		drafted = append(drafted, tok)
		b.Reset()
		b.Add(tok, int32(c.NPast+s), 0, true)
		feat = append(feat[:0], h...)
	}
	for i, want := range c.Draft {
		if drafted[i] != want {
			t.Fatalf("cycle %d: draft %v, mainline %v", c.Cycle, drafted, c.Draft)
		}
	}
	return worst
}
