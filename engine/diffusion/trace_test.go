// The traces run hundreds of forwards; the decoder has no assembly, so
// the purego build (CI's no-assembly step) leaves them to the assembly
// build and checks the generic forward by the models' parity tests.

//go:build !purego

package diffusion_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/diffusion"
	_ "github.com/waggle-llm/waggle/engine/models/dream"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
)

var fixtures = []string{"synth-dream-spm-f32", "synth-llada-spm-f32"}

func loadFixture(t testing.TB, stem string) (*engine.Loaded, engine.DiffusionModel, *golden.DiffusionFile) {
	t.Helper()
	l, err := engine.LoadFile(testenv.Model(t, filepath.Join("diffusion", stem+".gguf")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	g, err := golden.LoadDiffusion(testenv.Model(t, filepath.Join("goldens-diffusion", stem+".json")))
	if err != nil {
		t.Fatal(err)
	}
	return l, l.Model.(engine.DiffusionModel), g
}

// traceConfig is the decoder configuration a golden trace was made with:
// llama-diffusion-cli's command line for cli traces, the reference-greedy
// mode for ref traces.
func traceConfig(dm engine.DiffusionModel, tr *golden.Trace) diffusion.Config {
	c := diffusion.Defaults(dm.Diffusion())
	c.Algorithm, c.Steps, c.CLIBlocks = diffusion.Algorithm(tr.Algorithm), tr.Steps, true
	c.Eps, c.BlockLength = 0, 0
	if tr.Schedule == "eps" {
		c.Eps = float32(tr.ScheduleParam)
	} else {
		c.BlockLength = int(tr.ScheduleParam)
	}
	if tr.Mode == "ref" {
		c.Greedy = true
	} else {
		c.TopK, c.TopP, c.Temp, c.Seed = tr.TopK, tr.TopP, tr.Temp, tr.Seed
	}
	return c
}

// TestTraces reproduces every trace of goldens-diffusion step by step: the
// masks in scope, the transfer count and the (position, token) pairs
// written in order, then the final canvas and its text, which for the cli
// traces is what llama-diffusion-cli printed.
func TestTraces(t *testing.T) {
	for _, stem := range fixtures {
		l, dm, g := loadFixture(t, stem)
		for _, tr := range g.Traces {
			t.Run(stem+"/"+tr.Name(), func(t *testing.T) {
				canvas := 96 - tr.NPrompt // the traces run with -ub 96
				got := runTrace(t, dm, l, &tr, canvas, engine.DenoiserOptions{NCtx: 96, Threads: 2})
				checkFinal(t, l, &tr, got)
			})
		}
	}
}

func runTrace(t *testing.T, dm engine.DiffusionModel, l *engine.Loaded, tr *golden.Trace, canvas int, o engine.DenoiserOptions) []int32 {
	t.Helper()
	r, err := diffusion.NewRun(dm.Diffusion(), dm.Info().NVocab, traceConfig(dm, tr), tr.PromptIDs, diffusion.Options{Canvas: canvas})
	if err != nil {
		t.Fatal(err)
	}
	d, err := dm.NewDenoiser(o)
	if err != nil {
		t.Fatal(err)
	}
	step := 0
	err = diffusion.Generate(d, r, 0, func(r *diffusion.Run) {
		if step >= len(tr.PerStep) {
			t.Fatalf("step %d: the golden trace has only %d steps", step, len(tr.PerStep))
		}
		if msg := compareStep(r.Record(), &tr.PerStep[step]); msg != "" {
			t.Fatalf("step %d: %s", step, msg)
		}
		step++
	})
	if err != nil {
		t.Fatal(err)
	}
	if step != len(tr.PerStep) {
		t.Fatalf("ran %d steps, the golden trace has %d", step, len(tr.PerStep))
	}
	return r.Tokens()
}

func compareStep(got *diffusion.StepRecord, want *golden.TraceStep) string {
	if got.Block != want.Block || got.Masked != want.Masked || got.Transfer != want.Transfer {
		return fmt.Sprintf("block %d, %d masked, transfer %d; llama.cpp: block %d, %d masked, transfer %d",
			got.Block, got.Masked, got.Transfer, want.Block, want.Masked, want.Transfer)
	}
	if !slices.Equal(got.Wrote, want.Wrote) {
		return fmt.Sprintf("wrote %v; llama.cpp wrote %v", got.Wrote, want.Wrote)
	}
	return ""
}

func checkFinal(t *testing.T, l *engine.Loaded, tr *golden.Trace, got []int32) {
	t.Helper()
	if !slices.Equal(got, tr.FinalCanvas) {
		t.Fatalf("final canvas %v\nllama.cpp:    %v", got, tr.FinalCanvas)
	}
	want, err := tr.Text()
	if err != nil {
		t.Fatal(err)
	}
	if text := l.Tokenizer.Decode(got, false, false); text != want {
		t.Errorf("text %q, llama.cpp %q", text, want)
	}
}

// TestWarmStepAllocs: once warm, a denoising step (the forward, the
// sampler chain over every masked position and the transfer) allocates
// nothing.
func TestWarmStepAllocs(t *testing.T) {
	l, dm, g := loadFixture(t, "synth-llada-spm-f32")
	_ = l
	tr := &g.Traces[len(g.Traces)-2] // top-k 40, top-p 0.95, temperature 0.8
	cfg := traceConfig(dm, tr)
	cfg.Steps = 44 // 11 per block: measured steps (odd ones) cross block boundaries
	cfg.BlockLength, cfg.CLIBlocks = 32, false
	r, err := diffusion.NewRun(dm.Diffusion(), dm.Info().NVocab, cfg, tr.PromptIDs, diffusion.Options{Canvas: 128})
	if err != nil {
		t.Fatal(err)
	}
	d, err := dm.NewDenoiser(engine.DenoiserOptions{NCtx: 256, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	b := diffusion.NewBatch(d)
	runs, seqs := []*diffusion.Run{r}, []int{0}
	step := func() {
		if _, err := b.Step(runs, seqs); err != nil {
			t.Fatal(err)
		}
	}
	step()
	for i := range 17 { // one step at a time: AllocsPerRun rounds an average down
		if n := testing.AllocsPerRun(1, step); n != 0 {
			t.Fatalf("warm step %d allocates %v times", i, n)
		}
	}
}
