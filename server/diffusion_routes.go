package server

import (
	"github.com/valyala/fasthttp"
)

// diffusionRoutes is the route table of a diffusion model: the generation
// routes (answered block by block), the tokenizer and template routes,
// and its own /props, /slots and /metrics. Routes that need an
// autoregressive session (slot actions, embeddings) are absent.
func (s *Server) diffusionRoutes() map[string]map[string]route {
	gen := func(fn func(*fasthttp.RequestCtx)) map[string]route { return map[string]route{"POST": {fn: fn}} }
	get := func(fn func(*fasthttp.RequestCtx), public bool) map[string]route {
		return map[string]route{"GET": {fn: fn, public: public}}
	}
	return map[string]map[string]route{
		"/v1/chat/completions": gen(s.handleChat),
		"/chat/completions":    gen(s.handleChat),
		"/v1/completions":      gen(s.handleCompletions),
		"/completions":         gen(s.handleCompletions),
		"/completion":          gen(s.handleNative),
		"/tokenize":            gen(s.handleTokenize),
		"/detokenize":          gen(s.handleDetokenize),
		"/apply-template":      gen(s.handleApplyTemplate),
		"/v1/models":           get(s.handleModels, true),
		"/models":              get(s.handleModels, true),
		"/health":              get(s.handleHealth, true),
		"/v1/health":           get(s.handleHealth, true),
		"/metrics":             get(s.handleDiffusionMetrics, false),
		"/props":               get(s.handleDiffusionProps, false),
		"/slots":               get(s.handleDiffusionSlots, false),
	}
}

func (s *Server) handleDiffusionMetrics(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("text/plain; version=0.0.4")
	s.metrics.write(ctx, len(s.diff.queue), len(s.diff.slots))
}

// handleDiffusionProps reports the per-slot context and the request
// defaults, with the diffusion settings under "waggle_diffusion".
func (s *Server) handleDiffusionProps(ctx *fasthttp.RequestCtx) {
	p, d := s.cfg.Sampling, s.diff
	o := d.d.Options()
	s.writeJSON(ctx, map[string]any{
		"default_generation_settings": map[string]any{
			"id": 0, "n_ctx": s.NCtx(), "speculative": false, "is_processing": false,
			"params": map[string]any{"n_predict": s.cfg.NPredict, "temperature": p.Temp, "top_k": p.TopK,
				"top_p": p.TopP, "seed": p.Seed},
		},
		"total_slots": len(d.slots), "model_path": s.cfg.ModelPath, "chat_template": s.tmpl.Source(),
		"modalities": map[string]bool{"vision": false, "audio": false}, "build_info": s.buildInfo(),
		"is_sleeping": false,
		"waggle_diffusion": map[string]any{
			"algorithm": d.base.Algorithm.String(), "steps": d.base.Steps, "block_length": d.base.BlockLength,
			"eps": d.base.Eps, "entropy_bound": d.base.Bound, "mask_token": d.info.MaskToken,
			"shift_logits": d.info.ShiftLogits, "uniform_noise": d.info.UniformNoise,
			"canvas_length": d.info.CanvasLength, "cache_prefix": o.CachePrefix,
			"default_max_tokens": d.opts.MaxTokens, "n_seq": o.NSeq, "n_ctx_seq": o.NCtx,
		},
	})
}

func (s *Server) handleDiffusionSlots(ctx *fasthttp.RequestCtx) {
	busy := s.diff.snapshot()
	out := make([]map[string]any, len(busy))
	for i, b := range busy {
		out[i] = map[string]any{"id": i, "n_ctx": s.NCtx(), "speculative": false, "is_processing": b}
	}
	s.writeJSON(ctx, out)
}
