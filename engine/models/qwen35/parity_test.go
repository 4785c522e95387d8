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

// parityModel is one hybrid fixture with its tolerances (goldens README,
// "Suggested tolerances" and the *-spm-* section): F32 files are exact to
// 1e-4; quantized qwen35 files, with activations rounded like ggml as this
// engine does, get max 1.5 and median 0.25, because one int8 rounding flip
// persists in the recurrent state.
type parityModel struct {
	stem      string
	max, med  float64
	quantized bool
}

var parityModels = []parityModel{
	{stem: "synth-qwen35-spm-f32", max: 1e-4, med: 1e-4},
	{stem: "synth-qwen35moe-spm-f32", max: 1e-4, med: 1e-4},
	{stem: "synth-qwen35-spm-q8_0", max: 1.5, med: 0.25, quantized: true},
	{stem: "synth-qwen35-spm-q4_k_m", max: 1.5, med: 0.25, quantized: true},
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

// stats are the per-position max |Δlogit| of a file's cases, pooled as the
// goldens README measures them ("max / median over the 79-83 positions").
type stats struct {
	diffs []float64
	flips int
	early float64 // worst |Δ| over the first exactPrefix positions of each case
}

// exactPrefix is how many leading positions of every case must match to
// 1e-4 even for quantized files: the README's rounding flips appear
// suddenly and persist, and on these fixtures none comes before position 8,
// so a wiring mistake cannot hide behind the loose quantized bound.
const exactPrefix = 8

// add compares the logits of every position of case c (row i: logits(i)).
func (st *stats) add(c *golden.Case, logits func(i int) []float32, tol float64) {
	for i := range c.Positions {
		d := golden.ComparePosition(logits(i), &c.Positions[i], tol)
		st.diffs = append(st.diffs, d.MaxAbs)
		if i < exactPrefix {
			st.early = max(st.early, d.MaxAbs)
		}
		if d.Clear && !d.Top1OK {
			st.flips++
		}
	}
}

func (st *stats) check(t *testing.T, what string, pm parityModel) {
	t.Helper()
	worst, med := slices.Max(st.diffs), golden.Median(st.diffs)
	t.Logf("%s: %d positions, max |Δ| %.3g, median %.3g, first %d positions %.3g", what, len(st.diffs), worst, med, exactPrefix, st.early)
	if worst > pm.max || med > pm.med {
		t.Errorf("%s: max |Δlogit| %.3g (tolerance %.3g), median %.3g (tolerance %.3g)", what, worst, pm.max, med, pm.med)
	}
	if st.early > 1e-4 {
		t.Errorf("%s: the first %d positions of a case differ by %.3g > 1e-4", what, exactPrefix, st.early)
	}
	if st.flips > 0 && !pm.quantized {
		t.Errorf("%s: argmax differs from llama.cpp's at %d positions with a clear margin", what, st.flips)
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
				var st stats
				for _, c := range g.Cases {
					if got := l.Tokenizer.Encode(c.Prompt, true, false); !slices.Equal(got, c.Tokens[:c.NPrompt]) {
						t.Errorf("%q tokenizes to %v, llama.cpp: %v", c.Prompt, got, c.Tokens[:c.NPrompt])
					}
					s := newSession(t, l, engine.SessionOptions{})
					decode(t, s, 0, c.Tokens, 0)
					st.add(&c, s.Logits, pm.max)
				}
				st.check(t, "one batch", pm)
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
			var st stats
			for _, c := range g.Cases {
				rows := sequentialLogits(t, l, c.Tokens)
				st.add(&c, func(i int) []float32 { return rows[i] }, pm.max)
			}
			st.check(t, "sequential", pm)
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
