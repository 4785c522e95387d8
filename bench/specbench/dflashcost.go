package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/dflashgen"
	"github.com/waggle-llm/waggle/quantize"
	"github.com/waggle-llm/waggle/spec"
	_ "github.com/waggle-llm/waggle/spec/dflash"
)

// dflashShape is one DFlash configuration of -dflash-cost: a flat draft of
// nMax tokens (branch 0) or a DDTree of nMax main-path tokens plus branch
// nodes over topK candidates per depth.
type dflashShape struct {
	name               string
	nMax, branch, topK int
}

// dflashShapes are the configurations: flat depths 4, 8, 16 and
// trees of 8, 16, 32 nodes (tree budget min(n_max + branch, n_max·K)).
var dflashShapes = []dflashShape{
	{"flat 4", 4, 0, 1}, {"flat 8", 8, 0, 1}, {"flat 16", 16, 0, 1},
	{"tree 8", 4, 4, 4}, {"tree 16", 8, 8, 4}, {"tree 32", 16, 16, 4},
}

// arm is one Speculator generating on its own session.
type arm struct {
	sp     *spec.Speculator
	sl     *spec.Slot
	prompt []int32
	chain  *spec.Chain
}

// dflashCost measures, on model, what one DFlash cycle costs against one
// plain decode step, in process and paired: each round times one plain
// Step and one DFlash Step (the order flipped every round), each arm on
// its own session, and the figure is the median over rounds of the
// per-round ratio. The drafter is a random-weight one of the target's
// width (dflashgen: 2 layers, the target's heads, block 17 so that a flat
// draft of 16 fits), so nearly every draft is rejected and every cycle
// emits one token: the ratio is the whole cycle's cost (drafter pass,
// verify batch, path keeping, ring appends). The speed-up column applies
// the acceptance the trained stories260K drafter measures at the same
// settings (accepted drafts per cycle τ, from the prompts of
// goldens-trained-drafters): (1 + τ) / cycle cost.
func dflashCost(model, draftType string, threads, rounds int, acceptFile, tauTarget, tauDrafter string) error {
	l, err := engine.LoadFile(model)
	if err != nil {
		return err
	}
	defer l.Close()
	info := l.Model.Info()
	raw, err := dflashgen.Build(l.File, dflashgen.Options{Taps: []int{1, info.NLayer / 2, info.NLayer - 2}, NLayer: 2,
		NHead: info.NHead, NHeadKV: info.NHeadKV, HeadDim: info.HeadDim, NFF: info.NFF, BlockSize: 17})
	if err != nil {
		return err
	}
	if draftType != "f32" {
		q, err := quantizeDrafter(raw, draftType)
		if err != nil {
			fmt.Fprintf(os.Stderr, "specbench: %v; the drafter stays f32\n", err)
			draftType = "f32"
		} else {
			raw = q
		}
	}
	dl, err := engine.LoadBytes(raw)
	if err != nil {
		return err
	}
	prompt := l.Tokenizer.Encode(prompts["rejecting"]+" "+prompts["repeating"], true, true)
	taus, err := measureTaus(acceptFile, tauTarget, tauDrafter, threads)
	if err != nil {
		return err
	}
	name := strings.TrimSuffix(model[strings.LastIndex(model, "/")+1:], ".gguf")
	fmt.Printf("DFlash cycle cost, %s, %d threads, %d paired rounds after a %d-token prompt; drafter: random, 2 layers, block 17, %s\n\n", name, threads, rounds, len(prompt), draftType)
	fmt.Println("| shape | verify tokens | cycle / plain step, wall (median, min–max) | cycle / plain step, CPU time | drafter share (wall) | τ (stories260K trained drafter) | speed-up (1+τ)/wall cost |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, sh := range dflashShapes {
		plain, err := newArm(l, nil, sh, threads, prompt, rounds)
		if err != nil {
			return err
		}
		df, err := newArm(l, dl.Model, sh, threads, prompt, rounds)
		if err != nil {
			return err
		}
		var ratios, cpuRatios, shares []float64
		verifyTokens := 0
		for r := range rounds + 2 {
			tp, td, cp, cd, err := pairedSteps(plain, df, r%2 == 1)
			if err != nil {
				return err
			}
			draft := df.chain.Stats()[0].Snapshot()
			if r >= 2 { // two warm-up rounds
				ratios = append(ratios, td/tp)
				shares = append(shares, float64(draft.DraftDur.Microseconds())/1000/td)
				if cp > 0 {
					cpuRatios = append(cpuRatios, cd/cp)
				}
			}
			df.chain.Stats()[0].DraftNS.Store(0)
			verifyTokens = max(verifyTokens, 1+df.sl.DraftN/max(1, int(draft.Accepts)))
		}
		tau := taus[sh.name]
		cpu := 0.0
		if len(cpuRatios) > 0 {
			cpu = median(cpuRatios)
		}
		fmt.Printf("| %s | %d | %.2fx (%.2f–%.2f) | %.2fx | %.0f%% | %.2f | %.2fx |\n", sh.name, verifyTokens, median(ratios),
			slices.Min(ratios), slices.Max(ratios), cpu, 100*median(shares), tau, (1+tau)/median(ratios))
	}
	fmt.Println()
	return nil
}

// newArm opens a session (with the drafter's taps when drafter is set)
// and a Speculator of fixed depth over it, and starts the prompt.
func newArm(l *engine.Loaded, drafter engine.Model, sh dflashShape, threads int, prompt []int32, rounds int) (*arm, error) {
	o := engine.SessionOptions{NCtx: len(prompt) + 4*rounds + 64, NBatch: 512, Threads: threads}
	cfg := spec.DefaultConfig()
	cfg.Adaptive.Enabled = false
	var chain *spec.Chain
	if drafter != nil {
		o.Taps = drafter.(engine.BlockDrafterModel).Block().Taps
		cfg.Types = []string{"dflash"}
		cfg.DFlash = spec.DFlashParams{Model: drafter, Target: l.Model, NMax: sh.nMax, TopK: sh.topK, BranchBudget: sh.branch,
			CrossCtx: 512, NSeq: 1, Threads: threads, Seed: 1}
	}
	sess, err := l.Model.NewSession(o)
	if err != nil {
		return nil, err
	}
	cfg.DFlash.NSeq, cfg.DFlash.Threads = 1, sess.Options().Threads
	if drafter != nil {
		if chain, err = spec.NewChain(&cfg); err != nil {
			return nil, err
		}
	}
	smp, err := sample.New(greedyParams(), l.Model.Info().NVocab)
	if err != nil {
		return nil, err
	}
	a := &arm{sp: spec.New(sess, chain, &cfg), sl: &spec.Slot{Sampler: smp, NPredict: -1}, prompt: prompt, chain: chain}
	if _, err := a.sp.Start(a.sl, prompt); err != nil {
		return nil, err
	}
	return a, nil
}

func greedyParams() sample.Params {
	p := sample.DefaultParams()
	p.Temp, p.Seed = 0, 1
	return p
}

// pairedSteps times one Step of each arm (DFlash first when flip) and
// returns the wall and process CPU milliseconds of each.
func pairedSteps(plain, df *arm, flip bool) (tp, td, cp, cd float64, err error) {
	step := func(a *arm) (float64, float64, error) {
		c0, t0 := cpuMS(), time.Now()
		err := a.sp.Step([]*spec.Slot{a.sl}, func(*spec.Slot, int32) bool { return true })
		return float64(time.Since(t0).Microseconds()) / 1000, cpuMS() - c0, err
	}
	first, second := plain, df
	if flip {
		first, second = df, plain
	}
	t1, c1, err := step(first)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	t2, c2, err := step(second)
	if flip {
		t1, t2, c1, c2 = t2, t1, c2, c1
	}
	return t1, t2, c1, c2, err
}

// measureTaus runs the trained stories260K DFlash drafter at every shape
// over the prompts of acceptance.json (greedy, 128 tokens, fixed depth)
// and returns accepted drafts per verify cycle per shape (empty when the
// files are not given).
func measureTaus(acceptFile, target, drafter string, threads int) (map[string]float64, error) {
	out := map[string]float64{}
	if acceptFile == "" || target == "" || drafter == "" {
		return out, nil
	}
	data, err := os.ReadFile(acceptFile)
	if err != nil {
		return nil, err
	}
	var g struct {
		Prompts []struct {
			IDs []int32 `json:"ids"`
		} `json:"prompts"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, err
	}
	tl, err := engine.LoadFile(target)
	if err != nil {
		return nil, err
	}
	defer tl.Close()
	dl, err := engine.LoadFile(drafter)
	if err != nil {
		return nil, err
	}
	defer dl.Close()
	for _, sh := range dflashShapes {
		acc, cycles := 0, int64(0)
		for _, p := range g.Prompts {
			a, err := newArm(tl, dl.Model, sh, threads, p.IDs, 64)
			if err != nil {
				return nil, err
			}
			a.sl.NPredict = 128
			for !a.sl.Done() {
				if err := a.sp.Step([]*spec.Slot{a.sl}, func(*spec.Slot, int32) bool { return true }); err != nil {
					return nil, err
				}
			}
			acc += a.sl.DraftAccepted
			cycles += a.chain.Stats()[0].Snapshot().Accepts
		}
		out[sh.name] = float64(acc) / float64(max(cycles, 1))
	}
	return out, nil
}

// quantizeDrafter converts a drafter GGUF's matrices to typ (pure: every
// matrix, as a released quantized drafter).
func quantizeDrafter(raw []byte, typ string) ([]byte, error) {
	ft, err := quantize.ParseFileType(typ)
	if err != nil {
		return nil, err
	}
	f, err := gguf.Parse(raw)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := quantize.Model(f, &out, quantize.Options{FileType: ft, Pure: true}); err != nil {
		return nil, fmt.Errorf("quantizing the drafter to %s: %w", typ, err)
	}
	return out.Bytes(), nil
}
