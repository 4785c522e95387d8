package qwen35_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// parityModel is one hybrid fixture with its maximum tolerance (goldens
// README, "Suggested tolerances" and the *-spm-* section): F32 files are
// exact to 1e-4; quantized qwen35 files, with activations rounded like ggml
// as this engine does, get 1.5, because one int8 rounding flip persists in
// the recurrent state. The median bound is the file's in
// internal/golden/medians.go.
type parityModel struct {
	stem      string
	max       float64
	quantized bool
}

var parityModels = []parityModel{
	{stem: "synth-qwen35-spm-f32", max: 1e-4},
	{stem: "synth-qwen35moe-spm-f32", max: 1e-4},
	{stem: "synth-qwen35-spm-q8_0", max: 1.5, quantized: true},
	{stem: "synth-qwen35-spm-q4_k_m", max: 1.5, quantized: true},
}

func loadModel(t testing.TB, name string) *engine.Loaded {
	t.Helper()
	l, err := engine.LoadFile(testenv.Model(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func loadGolden(t testing.TB, stem string) *golden.File {
	t.Helper()
	g, err := golden.Load(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "goldens", stem+".json")))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func newSession(t testing.TB, l *engine.Loaded, o engine.SessionOptions) engine.Session {
	t.Helper()
	if o.NCtx == 0 {
		o.NCtx = 512
	}
	if o.NBatch == 0 {
		o.NBatch = 512
	}
	o.TypeK, o.TypeV = kvcache.F32, kvcache.F32
	s, err := l.Model.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// forEachKernels runs body under every kernel implementation this machine
// has (generic, avx2, avx512 / neon, neondot), so one test run covers the
// paths WAGGLE_KERNELS would select.
func forEachKernels(t *testing.T, body func(t *testing.T)) {
	for _, name := range kernels.Impls() {
		t.Run(name, func(t *testing.T) {
			restore, err := kernels.SelectImpl(name)
			if err != nil {
				t.Fatal(err)
			}
			defer restore()
			body(t)
		})
	}
}

// checkStats checks a file's pooled comparison: the maximum against the
// file's tolerance, the median against its recorded bound, the exact
// prefix (golden.ExactPrefix: on these fixtures no rounding flip comes
// before it), and no clear-margin argmax flips for unquantized files.
func checkStats(t *testing.T, st *golden.Stats, what string, pm parityModel) {
	t.Helper()
	worst, med := st.Worst(), st.Median()
	t.Logf("%s: %d positions, max |Δ| %.3g, median %.3g, first %d positions %.3g", what, len(st.Diffs), worst, med, golden.ExactPrefix, st.Early)
	bound, ok := golden.MedianBound(pm.stem)
	if !ok {
		t.Errorf("no median bound recorded for %s in internal/golden/medians.go", pm.stem)
	}
	if worst > pm.max || med > bound {
		t.Errorf("%s: max |Δlogit| %.3g (tolerance %.3g), median %.3g (bound %.3g)", what, worst, pm.max, med, bound)
	}
	if st.Early > golden.ExactPrefixTolerance {
		t.Errorf("%s: the first %d positions of a case differ by %.3g > %.3g", what, golden.ExactPrefix, st.Early, golden.ExactPrefixTolerance)
	}
	if st.Flips > 0 && !pm.quantized {
		t.Errorf("%s: argmax differs from llama.cpp's at %d positions with a clear margin", what, st.Flips)
	}
}

// TestParityBatch feeds each golden sequence as one batch (F32 KV cache,
// as the goldens were made) and compares every position.
func TestParityBatch(t *testing.T) {
	for _, pm := range parityModels {
		t.Run(pm.stem, func(t *testing.T) {
			l := loadModel(t, pm.stem+".gguf")
			g := loadGolden(t, pm.stem)
			forEachKernels(t, func(t *testing.T) {
				var st golden.Stats
				for _, c := range g.Cases {
					if got := l.Tokenizer.Encode(c.Prompt, true, false); !slices.Equal(got, c.Tokens[:c.NPrompt]) {
						t.Errorf("%q tokenizes to %v, llama.cpp: %v", c.Prompt, got, c.Tokens[:c.NPrompt])
					}
					s := newSession(t, l, engine.SessionOptions{})
					decode(t, s, 0, c.Tokens, 0)
					st.Add(&c, s.Logits, pm.max)
				}
				checkStats(t, &st, "one batch", pm)
			})
		})
	}
}

// TestParitySequential decodes the golden sequences one token at a time
// (the per-token delta rule and the decode matmul kernels) and compares
// every position.
func TestParitySequential(t *testing.T) {
	for _, pm := range parityModels {
		t.Run(pm.stem, func(t *testing.T) {
			l := loadModel(t, pm.stem+".gguf")
			g := loadGolden(t, pm.stem)
			var st golden.Stats
			for _, c := range g.Cases {
				rows := sequentialLogits(t, l, c.Tokens)
				st.Add(&c, func(i int) []float32 { return rows[i] }, pm.max)
			}
			checkStats(t, &st, "sequential", pm)
		})
	}
}

// sequentialLogits decodes toks one per Decode in a fresh session.
func sequentialLogits(t testing.TB, l *engine.Loaded, toks []int32) [][]float32 {
	s := newSession(t, l, engine.SessionOptions{})
	rows := make([][]float32, len(toks))
	for i, tok := range toks {
		decode(t, s, 0, []int32{tok}, i)
		rows[i] = slices.Clone(s.Logits(0))
	}
	return rows
}

func decode(t testing.TB, s engine.Session, seq int32, toks []int32, start int) {
	t.Helper()
	var b engine.Batch
	for i, tok := range toks {
		b.Add(tok, int32(start+i), seq, true)
	}
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
}
