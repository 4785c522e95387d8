package server

import (
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/demomodel"
)

// FuzzRequestDecoder feeds arbitrary bodies through the decoder and every
// field resolver: each must give a value or a 400, never a panic.
func FuzzRequestDecoder(f *testing.F) {
	for _, s := range []string{
		`{"messages":[{"role":"user","content":"hi"}],"max_tokens":5,"stop":["a","b"],"n":2,"logprobs":true,"top_logprobs":3}`,
		`{"prompt":[1,2,3],"logprobs":5,"seed":-1,"temperature":0.5}`,
		`{"prompt":"x","stop":"y","stream":true,"stream_options":{"include_usage":true}}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"}]}]}`,
		`{"prompt":"x","speculative.n_max":4,"speculative.n_min":1,"speculative.type":"ngram-simple,none"}`,
		`{"speculative.type":["a",""],"speculative.n_max":-3}`,
		strings.Repeat("[", 70), `{"seed":1e400}`, `{"n":-1}`, "\x00", `{"stop":[1]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var r rawRequest
		if e := decodeRequest(body, &r); e != nil {
			if e.Status != 400 {
				t.Fatalf("status %d", e.Status)
			}
			return
		}
		r.sampling(DefaultSampling())
		r.maxTokens(-1)
		r.stops()
		r.choices()
		r.logprobs(true)
		r.logprobs(false)
		r.unsupported()
		specTypes(r.Type)
		for i, m := range r.Messages {
			normaliseMessage(m, i)
		}
	})
}

// FuzzSamplingFields feeds arbitrary bodies through llama.cpp's sampling
// fields (logit_bias in every form, samplers, DRY breakers, the loop guard)
// and builds the sampler from the result: a 400 or a sampler, never a
// panic.
func FuzzSamplingFields(f *testing.F) {
	for _, s := range []string{
		`{"logit_bias":{"5":1.5,"hello":false,"12":-100},"ignore_eos":true}`,
		`{"logit_bias":[[5,1],["time",false],[1.5,2]],"samplers":"edskypmxt"}`,
		`{"samplers":["top_k","dry","xtc","adaptive_p"],"dry_multiplier":1,"dry_sequence_breakers":["\n","once upon"]}`,
		`{"mirostat":2,"mirostat_tau":0,"mirostat_eta":1e9,"top_n_sigma":1e9,"min_keep":1000000}`,
		`{"reasoning_loop_guard":"stop","reasoning_loop_window":96,"reasoning_loop_max_period":32,"reasoning_loop_min_coverage":48,"reasoning_loop_min_tokens":48}`,
		`{"logit_bias":{"":1}}`, `{"logit_bias":[]}`, `{"samplers":[]}`, `{"dry_sequence_breakers":[""]}`,
	} {
		f.Add([]byte(s))
	}
	ts := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		var r rawRequest
		if e := decodeRequest(body, &r); e != nil {
			return
		}
		p, e := r.sampling(DefaultSampling())
		if e == nil {
			e = ts.applySampling(&r.samplingRequest, &p)
		}
		if _, e2 := r.loopGuard(DefaultLoopGuard()); e == nil && e2 != nil {
			e = e2
		}
		if e != nil {
			if e.Status != 400 || e.Param == "" {
				t.Fatalf("status %d, param %q: %s", e.Status, e.Param, e.Message)
			}
			return
		}
		p.NCtx = 256
		if _, err := ts.cfg.NewSampler(p, ts.cfg.Tokenizer.NVocab()); err != nil {
			samplerError(err)
		}
	})
}

// newFuzzServer is a Server with just enough (the demo tokenizer and the
// full sampler factory) for the request resolvers.
func newFuzzServer(f *testing.F) *Server {
	data, err := demomodel.Build()
	if err != nil {
		f.Fatal(err)
	}
	l, err := engine.LoadBytes(data)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { l.Close() })
	cfg := ConfigFor(l)
	cfg.NewSampler = fullSampler(l.Tokenizer)
	return &Server{cfg: cfg}
}
