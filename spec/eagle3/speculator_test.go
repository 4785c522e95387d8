package eagle3_test

import (
	"fmt"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/spec"
	"github.com/waggle-llm/waggle/spec/eagle3"
)

// run is one speculative setup: the target, the drafter and the knobs.
type specRun struct {
	target   *engine.Loaded
	drafter  engine.Model
	nMax     int
	nSeq     int
	branch   int // tree branch budget (0: chains)
	topK     int
	adaptive bool
	smp      sample.Params
}

func greedyParams() sample.Params {
	p := sample.DefaultParams()
	p.Temp, p.Seed = 0, 1
	return p
}

// speculator opens a target session capturing the drafter's taps and a
// Speculator whose chain is draft-eagle3 alone, built from spec.Config as
// the command line builds it.
func (c specRun) speculator(t testing.TB) *spec.Speculator {
	t.Helper()
	cfg := spec.DefaultConfig()
	cfg.Types, cfg.Adaptive.Enabled = []string{"draft-eagle3"}, c.adaptive
	fm := c.drafter.(engine.FeatureDrafterModel)
	o := engine.SessionOptions{NCtx: 512, NSeq: max(c.nSeq, 1), NBatch: 64, Threads: 1, Taps: eagle3.Taps(fm.Features().Layers)}
	var m engine.Model = c.target.Model
	if q, ok := m.(*qwen35.Model); ok {
		m = q.With(qwen35.Options{Depth: 16})
	}
	sess, err := m.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Eagle3.Model, cfg.Eagle3.Target, cfg.Eagle3.NMax = c.drafter, c.target.Model, c.nMax
	cfg.Eagle3.BranchBudget, cfg.Eagle3.TopK = c.branch, c.topK
	cfg.Eagle3.Session = sess.Options()
	chain, err := spec.NewChain(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	return spec.New(sess, chain, &cfg)
}

// generate runs one request on a fresh Speculator.
func (c specRun) generate(t testing.TB, prompt []int32, n int) ([]int32, *spec.Slot) {
	t.Helper()
	sp := c.speculator(t)
	smp, err := sample.New(c.smp, c.target.Model.Info().NVocab)
	if err != nil {
		t.Fatal(err)
	}
	sl := &spec.Slot{Sampler: smp, IsEOG: c.target.Tokenizer.IsEOG}
	var out []int32
	if _, err := sp.Generate(sl, prompt, n, func(tok int32) bool { out = append(out, tok); return true }); err != nil {
		t.Fatal(err)
	}
	return out, sl
}

// plainWith decodes n tokens with engine.Generator and sampler p.
func plainWith(t testing.TB, target *engine.Loaded, p sample.Params, prompt []int32, n int) []int32 {
	t.Helper()
	s, err := target.Model.NewSession(engine.SessionOptions{NCtx: 512, NBatch: 64, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	smp, _ := sample.New(p, target.Model.Info().NVocab)
	g := &engine.Generator{Sess: s, Sampler: smp, IsEOG: target.Tokenizer.IsEOG}
	var out []int32
	if _, err := g.Generate(prompt, n, func(tok int32) bool { out = append(out, tok); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}

// favouriteDrafter is a random drafter whose head covers only the token
// plain decoding of prompt emits most, reading layers 1, N/2 and N.
func favouriteDrafter(t testing.TB, target *engine.Loaded, plain []int32) engine.Model {
	t.Helper()
	nl := target.Model.Info().NLayer
	return genDrafter(t, target, []int{1, nl / 2, nl}, []int32{favourite(plain, 0)})
}

// TestSpeculatorGreedyIsPlain runs draft-eagle3 through the Speculator
// (the target capturing the layer inputs itself, committed rows shown to
// the strategy by the Speculator) on the trained stories260K drafter and,
// on every architecture of the llama family and the Qwen3.5 hybrids, on a
// drafter of the target's favourite token; at fixed depth 3 and with the
// adaptive controller. The output must be plain greedy decoding token for
// token, and at fixed depth drafts must be accepted.
func TestSpeculatorGreedyIsPlain(t *testing.T) {
	prompt := []int32{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421}
	const n = 64
	type c struct {
		name, target string
		drafter      func(*engine.Loaded, []int32) engine.Model
	}
	trained := func(*engine.Loaded, []int32) engine.Model { return drafter(t, "stories260K-eagle3-f32.gguf").Model }
	fav := func(l *engine.Loaded, plain []int32) engine.Model { return favouriteDrafter(t, l, plain) }
	for _, tc := range []c{
		{"trained stories260K", "stories260K-f32.gguf", trained},
		{"llama", "synth-llama-tiny-q8_0.gguf", fav},
		{"qwen2", "synth-qwen2-tiny-q8_0.gguf", fav},
		{"qwen3", "synth-qwen3-spm-q8_0.gguf", fav},
		{"qwen35", "synth-qwen35-spm-q8_0.gguf", fav},
		{"qwen35moe", "synth-qwen35moe-spm-f32.gguf", fav},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := model(t, tc.target)
			p := prompt
			if tc.target != "stories260K-f32.gguf" {
				p = []int32{1, 20, 31, 42, 53, 64}
			}
			ref := plainWith(t, target, greedyParams(), p, n)
			dm := tc.drafter(target, ref)
			for _, adaptive := range []bool{false, true} {
				got, sl := specRun{target: target, drafter: dm, nMax: 3, adaptive: adaptive, smp: greedyParams()}.generate(t, p, n)
				if fmt.Sprint(got) != fmt.Sprint(ref) {
					t.Fatalf("adaptive %v: speculative output differs from plain greedy:\n%v\n%v", adaptive, got, ref)
				}
				if !adaptive && sl.DraftAccepted == 0 { // the controller may rightly stop drafting
					t.Fatalf("drafted %d, accepted none", sl.DraftN)
				}
				t.Logf("adaptive %v: drafted %d, accepted %d", adaptive, sl.DraftN, sl.DraftAccepted)
			}
		})
	}
}

// TestSpeculatorSlots runs three slots of one Speculator with the trained
// drafter, each with its own prompt and length, stepping them together
// (one drafter pass per depth, one verify batch), drafting chains and
// then trees: every stream must equal its solo run, tokens and draft
// counts.
func TestSpeculatorSlots(t *testing.T) {
	target := model(t, "stories260K-f32.gguf")
	dm := drafter(t, "stories260K-eagle3-f32.gguf").Model
	prompts := [][]int32{
		{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421},
		{1, 301, 314, 343},
		{1, 410, 460, 316, 411, 397, 396, 322, 261, 270, 277, 372, 426, 410, 460, 316},
	}
	lengths := []int{60, 90, 40}
	for _, branch := range []int{0, 5} {
		run := specRun{target: target, drafter: dm, nMax: 3, nSeq: len(prompts), branch: branch, topK: 3, smp: greedyParams()}
		sp := run.speculator(t)
		slots := make([]*spec.Slot, len(prompts))
		outs := make([][]int32, len(prompts))
		for i, p := range prompts {
			smp, _ := sample.New(greedyParams(), target.Model.Info().NVocab)
			slots[i] = &spec.Slot{Seq: int32(i), Sampler: smp, NPredict: lengths[i], IsEOG: target.Tokenizer.IsEOG}
			tok, err := sp.Start(slots[i], p)
			if err != nil {
				t.Fatal(err)
			}
			outs[i] = append(outs[i], tok)
		}
		emit := func(sl *spec.Slot, tok int32) bool { outs[sl.Seq] = append(outs[sl.Seq], tok); return true }
		for sp.Step(slots, emit) == nil { // until every slot is done
		}
		run.nSeq = 1
		for i, p := range prompts {
			solo, sl := run.generate(t, p, lengths[i])
			if fmt.Sprint(outs[i]) != fmt.Sprint(solo) || slots[i].DraftN != sl.DraftN || slots[i].DraftAccepted != sl.DraftAccepted {
				t.Fatalf("branch %d slot %d: %v (drafted %d, accepted %d)\nsolo %v (drafted %d, accepted %d)", branch, i, outs[i], slots[i].DraftN, slots[i].DraftAccepted, solo, sl.DraftN, sl.DraftAccepted)
			}
			if sl.DraftAccepted == 0 {
				t.Fatalf("branch %d slot %d accepted nothing", branch, i)
			}
		}
	}
}

// TestSpeculatorSampled: samplers whose chain draws inside (Mirostat) are
// verified by sampling each row as plain decoding would, so the output is
// plain sampled decoding token for token; a sampler with a distribution
// (temperature) runs the rejection rule and must still draft and accept.
func TestSpeculatorSampled(t *testing.T) {
	target := model(t, "stories260K-f32.gguf")
	dm := drafter(t, "stories260K-eagle3-f32.gguf").Model
	prompt := []int32{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421}
	miro := sample.DefaultParams()
	miro.Mirostat, miro.Seed = 2, 7
	ref := plainWith(t, target, miro, prompt, 64)
	got, _ := specRun{target: target, drafter: dm, nMax: 3, smp: miro}.generate(t, prompt, 64)
	if fmt.Sprint(got) != fmt.Sprint(ref) {
		t.Fatalf("Mirostat: speculative output differs from plain:\n%v\n%v", got, ref)
	}
	temp := sample.DefaultParams()
	temp.Temp, temp.Seed = 0.7, 7
	got, sl := specRun{target: target, drafter: dm, nMax: 3, smp: temp}.generate(t, prompt, 64)
	if len(got) != 64 || sl.DraftAccepted == 0 {
		t.Fatalf("temperature 0.7: %d tokens, drafted %d, accepted %d", len(got), sl.DraftN, sl.DraftAccepted)
	}
}

// genDrafter writes a random drafter reading layers with a head over ids.
func genDrafter(t testing.TB, target *engine.Loaded, layers []int, ids []int32) engine.Model {
	t.Helper()
	data, err := eagle3genBuild(target, layers, ids)
	if err != nil {
		t.Fatal(err)
	}
	l, err := engine.LoadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	return l.Model
}

// TestSpeculatorTrees drafts trees (EAGLE-3's reference growth: 3
// candidates per expansion, depth 3, 6 branch nodes) with the trained
// drafter on the ten prompts of goldens-trained-drafters: the output must
// be plain greedy decoding, and the trees must accept more per cycle than
// chains of the same depth. A hybrid target verifies trees too.
func TestSpeculatorTrees(t *testing.T) {
	target := model(t, "stories260K-f32.gguf")
	dm := drafter(t, "stories260K-eagle3-f32.gguf").Model
	g := loadAcceptance(t)
	var flatAcc, treeAcc, flatN, treeN int
	for _, p := range g.Prompts {
		ref := plainWith(t, target, greedyParams(), p.IDs, 64)
		flat, fs := specRun{target: target, drafter: dm, nMax: 3, smp: greedyParams()}.generate(t, p.IDs, 64)
		tree, ts := specRun{target: target, drafter: dm, nMax: 3, branch: 6, topK: 3, smp: greedyParams()}.generate(t, p.IDs, 64)
		if fmt.Sprint(flat) != fmt.Sprint(ref) || fmt.Sprint(tree) != fmt.Sprint(ref) {
			t.Fatalf("prompt %d: output differs from plain greedy:\nflat %v\ntree %v\nref  %v", p.I, flat, tree, ref)
		}
		flatAcc, flatN = flatAcc+fs.DraftAccepted, flatN+fs.DraftN
		treeAcc, treeN = treeAcc+ts.DraftAccepted, treeN+ts.DraftN
	}
	t.Logf("accepted: chains %d of %d drafted, trees %d of %d", flatAcc, flatN, treeAcc, treeN)
	if treeAcc <= flatAcc {
		t.Errorf("trees accepted %d tokens, chains %d", treeAcc, flatAcc)
	}
	hybrid := model(t, "synth-qwen35-spm-q8_0.gguf")
	prompt := []int32{1, 20, 31, 42, 53, 64}
	ref := plainWith(t, hybrid, greedyParams(), prompt, 48)
	got, sl := specRun{target: hybrid, drafter: favouriteDrafter(t, hybrid, ref), nMax: 3, branch: 6, topK: 3, smp: greedyParams()}.generate(t, prompt, 48)
	if fmt.Sprint(got) != fmt.Sprint(ref) || sl.DraftAccepted == 0 {
		t.Fatalf("qwen35 trees: accepted %d\n%v\n%v", sl.DraftAccepted, got, ref)
	}
}
