package dflash_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/spec"
	"github.com/waggle-llm/waggle/spec/dflash"
)

// TestSlotsDraftTogether: three sequences generating together (flat, and
// with trees) draft in one drafter pass per cycle, not one each, and each
// sequence's output is its own plain greedy decoding; with
// MaxSlots 2 the third sequence decodes without drafts.
func TestSlotsDraftTogether(t *testing.T) {
	const n, nctx = 48, 256
	target := model(t, "stories260K-f32.gguf")
	drafter := load(t, filepath.Join(testenv.ModelsDir(t), "drafters", "stories260K-dflash-b16-f32.gguf")).Model
	prompts := [][]int32{{1, 403, 407, 261, 378}, {1, 385, 328, 432, 261, 376}, {1, 301, 314, 343}}
	var refs [][]int32
	for _, p := range prompts {
		refs = append(refs, plain(t, target, p, n, nctx))
	}
	for _, c := range []struct {
		name     string
		branch   int
		maxSlots int
	}{{"flat", 0, 0}, {"tree", 6, 0}, {"flat-max-slots-2", 0, 2}} {
		t.Run(c.name, func(t *testing.T) {
			sess := multiSession(t, target, drafter, nctx, len(prompts))
			cfg := spec.DefaultConfig()
			cfg.Types, cfg.Adaptive.Enabled = []string{"dflash"}, false
			cfg.DFlash = spec.DFlashParams{Model: drafter, Target: target.Model, NMax: 6, TopK: 3, BranchBudget: c.branch,
				CrossCtx: 512, NSeq: len(prompts), MaxSlots: c.maxSlots, Seed: 1}
			st, err := dflash.New(cfg.DFlash)
			if err != nil {
				t.Fatal(err)
			}
			sp := spec.New(sess, spec.NewChainOf(st), &cfg)
			slots := make([]*spec.Slot, len(prompts))
			outs := make([][]int32, len(prompts))
			for i, p := range prompts {
				smp, _ := sample.New(greedy(), target.Model.Info().NVocab)
				slots[i] = &spec.Slot{Seq: int32(i), Sampler: smp, NPredict: n}
				tok, err := sp.Start(slots[i], p)
				if err != nil {
					t.Fatal(err)
				}
				outs[i] = append(outs[i], tok)
			}
			cycles := 0
			for !slots[0].Done() || !slots[1].Done() || !slots[2].Done() {
				if err := sp.Step(slots, func(sl *spec.Slot, tok int32) bool {
					outs[sl.Seq] = append(outs[sl.Seq], tok)
					return true
				}); err != nil {
					t.Fatal(err)
				}
				cycles++
			}
			for i := range prompts {
				if !slices.Equal(outs[i], refs[i]) {
					t.Fatalf("sequence %d differs from its plain greedy decoding:\n got %v\nwant %v", i, outs[i], refs[i])
				}
				t.Logf("sequence %d: drafted %d accepted %d", i, slots[i].DraftN, slots[i].DraftAccepted)
			}
			if st.Passes() > cycles {
				t.Fatalf("%d drafter passes in %d cycles: the sequences did not draft together", st.Passes(), cycles)
			}
			if c.maxSlots == 2 && slots[2].DraftN != 0 {
				t.Fatalf("sequence 2 drafted %d tokens with --spec-dflash-max-slots 2", slots[2].DraftN)
			}
			if slots[0].DraftAccepted == 0 || slots[1].DraftAccepted == 0 {
				t.Fatal("the trained drafter's drafts were never accepted")
			}
		})
	}
}

// multiSession opens a target session of nseq sequences capturing the
// drafter's taps.
func multiSession(t *testing.T, target *engine.Loaded, drafter engine.Model, nctx, nseq int) engine.Session {
	t.Helper()
	s, err := target.Model.NewSession(engine.SessionOptions{NCtx: nctx, NSeq: nseq, NBatch: 512,
		Taps: drafter.(engine.BlockDrafterModel).Block().Taps})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBeginDropsForeignRows: rows committed for other tokens than the new
// prompt's (a restored sequence) are not drafted from; matching rows are.
func TestBeginDropsForeignRows(t *testing.T) {
	target := model(t, "stories260K-f32.gguf")
	drafter := load(t, filepath.Join(testenv.ModelsDir(t), "drafters", "stories260K-dflash-b16-f32.gguf")).Model
	st, err := dflash.New(spec.DFlashParams{Model: drafter, Target: target.Model, NMax: 4, TopK: 1, CrossCtx: 64, NSeq: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	row := make([]float32, 64*3)
	toks := []int32{1, 403, 407, 261}
	st.Committed(0, 0, toks, func(int) []float32 { return row })
	draft := func() int {
		r := &spec.Request{Seq: 0, NMax: 4, NPast: len(toks), Last: 5, BranchBudget: -1, PMin: -1, Draft: make([]int32, 0, 16)}
		st.Draft([]*spec.Request{r})
		return len(r.Draft)
	}
	st.Begin(0, toks)
	if draft() == 0 {
		t.Fatal("no draft from rows that match the prompt")
	}
	st.Begin(0, []int32{1, 403, 9, 261})
	if n := draft(); n != 0 {
		t.Fatalf("drafted %d tokens from rows of other tokens", n)
	}
}
