package server

import (
	"strings"
	"testing"
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
