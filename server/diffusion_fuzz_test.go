package server

import (
	"testing"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/diffusion"
)

// FuzzDiffusionRequest feeds arbitrary bodies through a diffusion model's
// request path (decoding, the diffusion fields, the canvas and the run of
// every choice): each gives a job or a 400, never a panic, and every run
// it builds is a valid one.
func FuzzDiffusionRequest(f *testing.F) {
	for _, s := range []string{
		`{"prompt":"x","max_tokens":40,"diffusion_steps":8,"diffusion_block_length":4,"diffusion_algorithm":"margin"}`,
		`{"prompt":[1,2,3],"max_tokens":-1,"diffusion_eps":0.001,"diffusion_algorithm":3,"seed":-1,"n":3}`,
		`{"messages":[{"role":"user","content":"hi"}],"temperature":0,"entropy_bound":0.5,"diffusion_algorithm":"entropy-bound"}`,
		`{"prompt":"x","max_tokens":0}`, `{"prompt":"x","diffusion_steps":1e9}`, `{"prompt":"x","diffusion_eps":-0}`,
		`{"prompt":"x","logprobs":2}`, `{"prompt":"x","diffusion_algorithm":{"a":1}}`, `{"prompt":"x","top_p":0}`,
	} {
		f.Add([]byte(s))
	}
	l := loadDiffusion(f, "synth-llada-spm-f32")
	fake := &fakeDiffusion{info: engine.DiffusionInfo{MaskToken: 512, PrefixSeesCanvas: true}, nVocab: 513}
	d, err := fake.NewDenoiser(engine.DenoiserOptions{NSeq: 2, NCtx: 96})
	if err != nil {
		f.Fatal(err)
	}
	s := &Server{cfg: Config{Tokenizer: l.Tokenizer, Sampling: DefaultSampling(), NPredict: -1, Timeout: time.Minute}}
	s.diff = &diffScheduler{cfg: &s.cfg, opts: DiffusionOptions{MaxTokens: 64}, info: fake.Diffusion(), d: d,
		tok: l.Tokenizer, nVocab: 513, nCtx: 96}
	s.diff.base = baseConfig(s.diff.info, DiffusionOptions{})
	f.Fuzz(func(t *testing.T, body []byte) {
		var r rawRequest
		if e := decodeRequest(body, &r); e != nil {
			return
		}
		prompts, e := s.completionPrompts(r.Prompt)
		if e != nil || len(prompts) == 0 {
			prompts = [][]int32{{1, 2, 3}}
		}
		j, e := s.newDiffusionJob(&r, prompts, "x")
		if e != nil {
			if e.Status != 400 {
				t.Fatalf("status %d: %v", e.Status, e)
			}
			return
		}
		b := diffusion.NewBatch(d)
		for _, tk := range j.tasks {
			run := tk.diff.run
			if len(run.Tokens()) > s.diff.nCtx-len(tk.prompt) || tk.diff.limit > len(run.Tokens()) {
				t.Fatalf("canvas %d (limit %d) for a prompt of %d in %d positions", len(run.Tokens()), tk.diff.limit, len(tk.prompt), s.diff.nCtx)
			}
			if _, err := b.Step([]*diffusion.Run{run}, []int{0}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
