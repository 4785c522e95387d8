package main

import (
	"fmt"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/diffusion"
)

// pairedCache measures, in this process, the CPU time of a whole decode
// with the prefix recomputed every step against one with the prefix
// cached, alternating the two (off, on, on, off, …) and reporting the
// median of the per-pair ratios: a figure that holds on a busy machine,
// where wall-clock times do not.
func pairedCache(model, text string, canvases []int, threads, pairs, perStep int) error {
	l, err := engine.LoadFile(model)
	if err != nil {
		return err
	}
	defer l.Close()
	dm, ok := l.Model.(engine.DiffusionModel)
	if !ok {
		return fmt.Errorf("%s is not a diffusion model", model)
	}
	prompt, err := chatTokens(l, text)
	if err != nil {
		return err
	}
	fmt.Printf("in-process, CPU time (getrusage), prompt %d tokens, %d threads, %d pairs, %d canvas tokens per step\n\n", len(prompt), threads, pairs, perStep)
	fmt.Printf("| canvas | CPU ms/step recomputed | CPU ms/step cached | cached speed-up (median of pairs) |\n| ---: | ---: | ---: | ---: |\n")
	for _, c := range canvases {
		steps := max(1, c/perStep)
		var off, on, ratios []float64
		for p := range pairs {
			for _, cache := range [][]bool{{false, true}, {true, false}}[p%2] {
				ms, err := decodeCPU(dm, prompt, c, steps, threads, cache)
				if err != nil {
					return err
				}
				if cache {
					on = append(on, ms/float64(steps))
				} else {
					off = append(off, ms/float64(steps))
				}
			}
			ratios = append(ratios, off[p]/on[p])
		}
		fmt.Printf("| %d | %.1f | %.1f | %.2f× |\n", c, median(off), median(on), median(ratios))
	}
	return nil
}

// decodeCPU runs one greedy timestep-schedule decode (llama-diffusion-cli
// --top-k 1 --diffusion-eps 0.001) and returns the process CPU time it took.
func decodeCPU(dm engine.DiffusionModel, prompt []int32, canvas, steps, threads int, cache bool) (float64, error) {
	cfg := diffusion.Defaults(dm.Diffusion())
	cfg.Algorithm, cfg.Steps, cfg.Eps, cfg.BlockLength, cfg.TopK, cfg.Seed = diffusion.Confidence, steps, 0.001, 0, 1, 1
	r, err := diffusion.NewRun(dm.Diffusion(), dm.Info().NVocab, cfg, prompt, diffusion.Options{Canvas: canvas})
	if err != nil {
		return 0, err
	}
	d, err := dm.NewDenoiser(engine.DenoiserOptions{NCtx: len(prompt) + canvas, Threads: threads, CachePrefix: cache})
	if err != nil {
		return 0, err
	}
	t0 := cpuTime()
	if err := diffusion.Generate(d, r, 0, nil); err != nil {
		return 0, err
	}
	return float64(cpuTime()-t0) / float64(time.Millisecond), nil
}
