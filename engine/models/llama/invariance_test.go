package llama_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kvcache"
)

// TestBatchInvarianceQuantized: on real quantized and half-precision
// weights, a sequence's logits are bit-identical whether its prompt is
// decoded in one batch, token by token, or beside another sequence in the
// same batches. The server's "no mixing" guarantee and exact speculative
// verification rest on this.
func TestBatchInvarianceQuantized(t *testing.T) {
	for _, name := range []string{"synth-llama-tiny-q4_0", "synth-llama-tiny-q4_1", "synth-llama-tiny-q8_0", "synth-llama-tiny-q4_k_m", "synth-llama-tiny-f16", "synth-llama-tiny-bf16", "synth-qwen2-tiny-q8_0"} {
		t.Run(name, func(t *testing.T) {
			l := loadModel(t, name+".gguf")
			toks := []int32{1, 400, 401, 300, 310, 42, 43, 44, 45, 46, 47}
			o := engine.SessionOptions{NCtx: 64, NSeq: 2, TypeK: kvcache.F16, TypeV: kvcache.F16, Threads: 2}
			one, err := l.Model.NewSession(o)
			if err != nil {
				t.Fatal(err)
			}
			decodeAll(t, one, 0, toks, 0)
			seq, _ := l.Model.NewSession(o)
			mixed, _ := l.Model.NewSession(o)
			other := []int32{1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}
			for i, tok := range toks {
				decodeAll(t, seq, 0, []int32{tok}, i)
				var b engine.Batch
				b.Add(other[i], int32(i), 1, true)
				b.Add(tok, int32(i), 0, true)
				if err := mixed.Decode(&b); err != nil {
					t.Fatal(err)
				}
				if d := maxDiff(seq.Logits(0), one.Logits(i)); d != 0 {
					t.Fatalf("position %d: one batch vs token by token differ by %g", i, d)
				}
				if d := maxDiff(mixed.Logits(1), seq.Logits(0)); d != 0 {
					t.Fatalf("position %d: alone vs beside another sequence differ by %g", i, d)
				}
			}
		})
	}
}
