package spec_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/spec"
)

// TestSpeedRatios measures tokens/s of each strategy against plain greedy
// decoding, interleaved run by run on the same machine, and reports the
// median ratio. Set WAGGLE_SPEC_BENCH=1 to run it (it takes a while).
func TestSpeedRatios(t *testing.T) {
	if os.Getenv("WAGGLE_SPEC_BENCH") == "" {
		t.Skip("set WAGGLE_SPEC_BENCH=1 to measure speed ratios")
	}
	cases := []struct{ model, text string }{
		{"stories260K-f32.gguf", "Once upon a time"},
		{"synth-llama-tiny-f32.gguf", repeatText},
	}
	adaptive := os.Getenv("WAGGLE_SPEC_BENCH") == "adaptive"
	for _, c := range cases {
		l, err := engine.LoadFile(testenv.Model(t, c.model))
		if err != nil {
			t.Fatal(err)
		}
		prompt := l.Tokenizer.Encode(c.text, true, true)
		const n, nctx, reps = 192, 512, 3
		for _, name := range spec.Order {
			if name == "dflash" || name == "draft-eagle3" {
				continue // needs a drafter bound to the target
			}
			var ratios []float64
			var acc, gen int
			for range reps {
				t0 := time.Now()
				ref := plain(t, l, greedyParams(), prompt, n, nctx)
				tp := time.Since(t0)
				cfg := spec.DefaultConfig()
				cfg.Types = []string{name}
				ng := spec.NgramParams{SizeN: 4, SizeM: 16, MinHits: 1}
				cfg.NgramSimple, cfg.NgramMapK, cfg.NgramMapK4V = ng, ng, ng
				cfg.NgramMod = spec.ModParams{NMatch: 4, NMin: 4, NMax: 32}
				cfg.Draft = spec.DraftParams{Model: l.Model, Target: l.Tokenizer, Draft: l.Tokenizer, NMax: 16, PMin: 0.75,
					Session: engine.SessionOptions{NCtx: nctx, NBatch: 512}}
				chain, err := spec.NewChain(&cfg)
				if err != nil {
					t.Fatal(err)
				}
				t1 := time.Now()
				got, sl, err := speculative(t, l, greedyParams(), chain, prompt, n, nctx, nil, nil, adaptive)
				ts := time.Since(t1)
				if err != nil {
					t.Fatal(err)
				}
				if equalTokens(got, ref) >= 0 {
					t.Logf("%s %s: output differs from plain (close margin)", c.model, name)
				}
				ratios = append(ratios, (float64(len(got))/ts.Seconds())/(float64(len(ref))/tp.Seconds()))
				acc, gen = acc+sl.DraftAccepted, gen+sl.DraftN
			}
			slices.Sort(ratios)
			t.Logf("%-26s %-13s speed vs plain: x%.2f (median of %d), drafted %d accepted %d", c.model, name, ratios[len(ratios)/2], reps, gen, acc)
		}
		l.Close()
	}
}
