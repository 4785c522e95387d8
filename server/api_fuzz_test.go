package server

import (
	"strings"
	"testing"
)

// FuzzAPIRequests feeds arbitrary bodies through the converters of the
// Responses, Messages, infill and embedding routes: each must give a
// request or a 400, never a panic.
func FuzzAPIRequests(f *testing.F) {
	for _, s := range []string{
		`{"input":"hi","instructions":"x","max_output_tokens":5}`,
		`{"input":[{"role":"user","content":[{"type":"input_text","text":"a"}]},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"r"}]},{"type":"reasoning","content":[{"text":"t"}]}]}`,
		`{"system":[{"type":"text","text":"x-anthropic-billing-header: cch=12345;"}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"},{"type":"tool_use","id":"t","name":"f","input":{}}]}],"tools":[{"name":"f"}]}`,
		`{"input_prefix":["a",5,"b"],"input_suffix":"s","input_extra":[{"filename":"f","text":"t"}],"prompt":"p"}`,
		`{"input":[[1,2],"x",["y",3]],"encoding_format":"base64"}`, `{"content":[1,"a"]}`,
		`{"input":[{"role":"assistant","content":null}]}`, `[]`, `{"messages":[{"role":"user"}]}`,
		strings.Repeat("[", 70), "\x00", `{"input":"` + strings.Repeat("é", 40) + `"}`,
	} {
		f.Add([]byte(s))
	}
	fim := fimTok{addBOS: true, pre: 12, suf: 13, mid: 14, rep: 10, sep: 11}
	s := &Server{cfg: Config{Tokenizer: fim}, sched: &scheduler{nCtx: 64}}
	bad := func(t *testing.T, e *apiError) {
		if e != nil && e.Status != 400 {
			t.Fatalf("status %d: %s", e.Status, e.Message)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, _, e := responsesRequest(body)
		bad(t, e)
		if e == nil {
			for i, m := range r.Messages {
				normaliseMessage(m, i)
			}
		}
		r, _, _, e = messagesRequest(body)
		bad(t, e)
		if e == nil {
			for i, m := range r.Messages {
				normaliseMessage(m, i)
			}
		}
		var in infillFields
		if decodeRequest(body, &in) == nil {
			pre, suf, p, extra, e := s.infillRequest(in)
			bad(t, e)
			if e == nil {
				infillPrompt(fim, fim, fimLayout{nBatch: 16, nPredict: -1, nCtx: 64}, pre, suf, p, extra)
			}
		}
		var er embedRequest
		if decodeRequest(body, &er) == nil && len(er.Input) > 0 {
			_, e := s.embedInputs(er.Input)
			bad(t, e)
		}
	})
}
