package llama_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/llama"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kvcache"
)

// parityModels are the llama-family models with logits goldens; the qwen35
// hybrids belong to their own package.
func parityModels(t *testing.T) []string {
	matches, err := filepath.Glob(filepath.Join(testenv.ModelsDir(t), "goldens", "*.json"))
	if err != nil || len(matches) == 0 {
		testenv.Missing(t, "no goldens under %s", testenv.ModelsDir(t))
	}
	var names []string
	for _, m := range matches {
		stem := strings.TrimSuffix(filepath.Base(m), ".json")
		if strings.Contains(stem, "qwen35") {
			continue
		}
		names = append(names, stem)
	}
	if len(names) < 19 {
		t.Fatalf("expected at least 19 llama/qwen2/qwen3 goldens, found %d", len(names))
	}
	return names
}

// TestParityLogits feeds each golden sequence as one batch (F32 KV cache, as
// the goldens were made) and compares the logits of every position with
// llama.cpp's: each position within the file's tolerance, the median over
// all positions within the bound recorded for the file
// (golden.MedianBound), the top-1 token where llama.cpp's margin is clear,
// and the prompt's tokenization.
func TestParityLogits(t *testing.T) {
	for _, stem := range parityModels(t) {
		t.Run(stem, func(t *testing.T) {
			g, err := golden.Load(filepath.Join(testenv.ModelsDir(t), "goldens", stem+".json"))
			if err != nil {
				t.Fatal(err)
			}
			l := loadModel(t, stem+".gguf")
			tol := golden.Tolerance(l.File)
			var st golden.Stats
			for _, c := range g.Cases {
				checkCase(t, l, &c, tol, &st)
			}
			checkPooled(t, stem, &st)
		})
	}
}

// checkPooled checks what a file's cases show together: the median
// difference against the file's recorded bound. (Unlike the hybrid
// fixtures', these files' rounding flips can come in the first positions,
// so there is no exact-prefix check here.)
func checkPooled(t *testing.T, stem string, st *golden.Stats) {
	t.Helper()
	bound, ok := golden.MedianBound(stem)
	if !ok {
		t.Errorf("no median bound recorded for %s in internal/golden/medians.go", stem)
	}
	t.Logf("%s: %d positions, median |Δ| %.3g (bound %.3g)", stem, len(st.Diffs), st.Median(), bound)
	if st.Median() > bound {
		t.Errorf("%s: median |Δlogit| %.3g > %.3g", stem, st.Median(), bound)
	}
}

func loadModel(t *testing.T, name string) *engine.Loaded {
	t.Helper()
	l, err := engine.LoadFile(testenv.Model(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func newSession(t *testing.T, l *engine.Loaded, typ kvcache.Type) engine.Session {
	t.Helper()
	s, err := l.Model.NewSession(engine.SessionOptions{NCtx: 512, NBatch: 512, TypeK: typ, TypeV: typ})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkCase(t *testing.T, l *engine.Loaded, c *golden.Case, tol float64, st *golden.Stats) {
	t.Helper()
	if got := l.Tokenizer.Encode(c.Prompt, true, false); !slices.Equal(got, c.Tokens[:c.NPrompt]) {
		t.Errorf("%q tokenizes to %v, llama.cpp: %v", c.Prompt, got, c.Tokens[:c.NPrompt])
	}
	checkCaseSession(t, newSession(t, l, kvcache.F32), c, tol, st)
}

// checkCaseSession decodes c's tokens as one batch on s, compares every
// position's logits with the golden's and adds them to st.
func checkCaseSession(t *testing.T, s engine.Session, c *golden.Case, tol float64, st *golden.Stats) {
	t.Helper()
	var b engine.Batch
	for i, tok := range c.Tokens {
		b.Add(tok, int32(i), 0, true)
	}
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
	if len(c.Positions) != len(c.Tokens) {
		t.Fatalf("golden has %d positions for %d tokens", len(c.Positions), len(c.Tokens))
	}
	var one golden.Stats
	one.Add(c, s.Logits, tol)
	for i, d := range one.Diffs {
		if d > tol {
			t.Errorf("%q position %d: |Δlogit| %.3g > %.3g", c.Prompt, i, d, tol)
		}
	}
	if one.Flips > 0 {
		t.Errorf("%q: argmax differs from llama.cpp's at %d positions with a clear margin", c.Prompt, one.Flips)
	}
	t.Logf("%q: %d positions, max |Δ| %.3g, median %.3g (tolerance %.3g)", c.Prompt, len(one.Diffs), one.Worst(), one.Median(), tol)
	st.Diffs = append(st.Diffs, one.Diffs...)
	st.Flips += one.Flips
	st.Early = max(st.Early, one.Early)
}

// TestParityGreedy decodes token by token, greedily, and compares with the
// goldens' sequential greedy ids (F32 cache) up to the first step whose
// llama.cpp margin is unclear.
func TestParityGreedy(t *testing.T) {
	for _, stem := range parityModels(t) {
		t.Run(stem, func(t *testing.T) {
			g, err := golden.Load(filepath.Join(testenv.ModelsDir(t), "goldens", stem+".json"))
			if err != nil {
				t.Fatal(err)
			}
			l := loadModel(t, stem+".gguf")
			tol := golden.Tolerance(l.File)
			for _, c := range g.Cases {
				want := c.Tokens[c.NPrompt:]
				clear := 0
				for clear < len(want) && c.Positions[c.NPrompt-1+clear].Margin() > 2*tol {
					clear++
				}
				got := greedy(t, l, kvcache.F32, c.Tokens[:c.NPrompt], len(want))
				if !slices.Equal(got[:min(clear, len(got))], want[:clear]) {
					t.Errorf("%q: greedy ids %v, llama.cpp %v (compared up to step %d)", c.Prompt, got, want, clear)
				}
			}
		})
	}
}

// TestReferenceGreedy compares with reference-greedy.json (64 tokens, F16 KV
// cache, older llama.cpp) up to the first step whose margin is unclear.
func TestReferenceGreedy(t *testing.T) {
	refs, err := golden.LoadGreedy(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "reference-greedy.json")))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, r := range refs {
		path := filepath.Join(testenv.ModelsDir(t), r.Model)
		if !fileExists(path) {
			continue // the README says: skip entries whose file is absent
		}
		ran++
		t.Run(r.Model+"/"+r.Prompt, func(t *testing.T) {
			l := loadModel(t, r.Model)
			if got := l.Tokenizer.Encode(r.Prompt, true, false); !slices.Equal(got, r.PromptIDs) {
				t.Errorf("prompt tokens %v, llama.cpp %v", got, r.PromptIDs)
			}
			tol := golden.Tolerance(l.File) + golden.F16CacheExtra
			clear := 0
			for clear < len(r.GeneratedIDs) && r.StepMargin(clear) > 2*tol {
				clear++
			}
			got := greedy(t, l, kvcache.F16, r.PromptIDs, len(r.GeneratedIDs))
			if !slices.Equal(got[:min(clear, len(got))], r.GeneratedIDs[:clear]) {
				t.Errorf("greedy ids %v\nllama.cpp    %v\n(compared up to step %d)", got, r.GeneratedIDs, clear)
			}
		})
	}
	if ran < 18 {
		t.Fatalf("only %d reference runs had their model file", ran)
	}
}

// greedy generates n tokens with temperature 0, stopping after an
// end-of-generation token (kept, as llama.cpp's driver keeps it).
func greedy(t *testing.T, l *engine.Loaded, typ kvcache.Type, prompt []int32, n int) []int32 {
	t.Helper()
	p := sample.DefaultParams()
	p.Temp = 0
	smp, err := sample.New(p, l.Model.Info().NVocab)
	if err != nil {
		t.Fatal(err)
	}
	g := &engine.Generator{Sess: newSession(t, l, typ), Sampler: smp, IsEOG: l.Tokenizer.IsEOG}
	var out []int32
	if _, err := g.Generate(prompt, n, func(tok int32) bool { out = append(out, tok); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}
