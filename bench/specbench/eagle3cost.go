package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/internal/eagle3gen"
	"github.com/waggle-llm/waggle/spec"
	"github.com/waggle-llm/waggle/spec/eagle3"
)

// eagle3Shape is one configuration of -eagle3-cost: a chain of depth
// tokens (branch 0) or a tree of depth levels, k candidates per expansion
// and at most depth + branch nodes.
type eagle3Shape struct {
	name             string
	depth, branch, k int
}

// eagle3Shapes are the chains of depths 1, 2, 3 (mainline's default) and
// 5, and trees of 9 and 16 nodes.
var eagle3Shapes = []eagle3Shape{
	{"chain 1", 1, 0, 1}, {"chain 2", 2, 0, 1}, {"chain 3", 3, 0, 1}, {"chain 5", 5, 0, 1},
	{"tree 9", 3, 6, 3}, {"tree 16", 4, 12, 4},
}

// eagle3Cost measures, on model, what one EAGLE-3 cycle costs against one
// plain decode step, in process and paired as dflashCost does: each round
// times one plain Step and one EAGLE-3 Step (the order flipped every
// round), each on its own session, and the figure is the median of the
// per-round ratios, for chains and trees (eagle3Shapes). The drafter is a random one of the target's shape
// (eagle3gen: its width and heads, an own head over the first 32000 ids
// mapped by d2t, as the published Llama-3 drafters have), so its drafts are
// rejected and every cycle emits one token: the ratio is the whole cycle
// (committing the verified rows, the drafter passes, the verify batch of
// depth+1 tokens). The speed-up column applies the acceptance the trained
// stories260K EAGLE-3 drafter measures at the same shape (accepted drafts
// per cycle τ over the prompts of goldens-trained-drafters): (1 + τ) / cost.
func eagle3Cost(model, draftType string, threads, rounds int, acceptFile, tauTarget, tauDrafter string) error {
	l, err := engine.LoadFile(model)
	if err != nil {
		return err
	}
	defer l.Close()
	raw, err := eagle3gen.Build(l.File, eagle3gen.Options{DraftVocab: min(32000, l.Model.Info().NVocab)})
	if err != nil {
		return err
	}
	if draftType != "f32" {
		if raw, err = quantizeDrafter(raw, draftType); err != nil {
			return err
		}
	}
	dl, err := engine.LoadBytes(raw)
	if err != nil {
		return err
	}
	prompt := l.Tokenizer.Encode(prompts["rejecting"]+" "+prompts["repeating"], true, true)
	taus, err := eagle3Taus(acceptFile, tauTarget, tauDrafter, threads)
	if err != nil {
		return err
	}
	name := strings.TrimSuffix(model[strings.LastIndex(model, "/")+1:], ".gguf")
	fmt.Printf("EAGLE-3 cycle cost, %s, %d threads, %d paired rounds after a %d-token prompt; drafter: random, the target's shape, 32000-id head, %s\n\n", name, threads, rounds, len(prompt), draftType)
	fmt.Println("| shape | verify tokens | cycle / plain step, wall (median, min–max) | cycle / plain step, CPU time | drafter share (wall) | τ (stories260K trained drafter) | speed-up (1+τ)/wall cost |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, sh := range eagle3Shapes {
		plain, err := eagle3Arm(l, nil, sh, threads, prompt, rounds)
		if err != nil {
			return err
		}
		e3, err := eagle3Arm(l, dl.Model, sh, threads, prompt, rounds)
		if err != nil {
			return err
		}
		var ratios, cpuRatios, shares []float64
		verifyTokens := 0
		for r := range rounds + 2 {
			tp, te, cp, ce, err := pairedSteps(plain, e3, r%2 == 1)
			if err != nil {
				return err
			}
			st := e3.chain.Stats()[0]
			if r >= 2 { // two warm-up rounds
				ratios = append(ratios, te/tp)
				shares = append(shares, float64(st.DraftNS.Load())/1e6/te)
				if cp > 0 {
					cpuRatios = append(cpuRatios, ce/cp)
				}
			}
			st.DraftNS.Store(0)
			verifyTokens = max(verifyTokens, 1+e3.sl.DraftN/max(1, int(st.Accepts.Load())))
		}
		cpu := 0.0
		if len(cpuRatios) > 0 {
			cpu = median(cpuRatios)
		}
		tau := taus[sh.name]
		fmt.Printf("| %s | %d | %.2fx (%.2f–%.2f) | %.2fx | %.0f%% | %.2f | %.2fx |\n", sh.name, verifyTokens, median(ratios),
			slices.Min(ratios), slices.Max(ratios), cpu, 100*median(shares), tau, (1+tau)/median(ratios))
	}
	fmt.Println()
	return nil
}

// eagle3Arm opens a session (capturing the drafter's layer inputs when
// drafter is set) and a Speculator of fixed depth over it, and starts the
// prompt.
func eagle3Arm(l *engine.Loaded, drafter engine.Model, sh eagle3Shape, threads int, prompt []int32, rounds int) (*arm, error) {
	o := engine.SessionOptions{NCtx: len(prompt) + 4*rounds + 64, NBatch: 512, Threads: threads}
	cfg := spec.DefaultConfig()
	cfg.Adaptive.Enabled = false
	if drafter != nil {
		o.Taps = eagle3.Taps(drafter.(engine.FeatureDrafterModel).Features().Layers)
		cfg.Types = []string{"draft-eagle3"}
	}
	sess, err := l.Model.NewSession(o)
	if err != nil {
		return nil, err
	}
	var chain *spec.Chain
	if drafter != nil {
		cfg.Eagle3.Model, cfg.Eagle3.Target, cfg.Eagle3.NMax, cfg.Eagle3.Session = drafter, l.Model, sh.depth, sess.Options()
		cfg.Eagle3.BranchBudget, cfg.Eagle3.TopK = sh.branch, sh.k
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

// eagle3Taus runs the trained stories260K EAGLE-3 drafter at every shape
// over the prompts of acceptance.json (greedy, 128 tokens, fixed depth)
// and returns accepted drafts per verify cycle per depth (empty when the
// files are not given).
func eagle3Taus(acceptFile, target, drafter string, threads int) (map[string]float64, error) {
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
	for _, sh := range eagle3Shapes {
		acc, cycles := 0, int64(0)
		for _, p := range g.Prompts {
			a, err := eagle3Arm(tl, dl.Model, sh, threads, p.IDs, 64)
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
