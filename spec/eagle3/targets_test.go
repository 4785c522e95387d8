package eagle3_test

import (
	"fmt"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/internal/eagle3gen"
)

// plainGreedy decodes n tokens after prompt one at a time.
func plainGreedy(t *testing.T, target engine.Model, prompt []int32, n int) []int32 {
	t.Helper()
	sess, err := target.NewSession(engine.SessionOptions{NCtx: 256, NBatch: 64, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	for i, tok := range prompt {
		b.Add(tok, int32(i), 0, i == len(prompt)-1)
	}
	out := append([]int32(nil), prompt...)
	for range n {
		if err := sess.Decode(&b); err != nil {
			t.Fatal(err)
		}
		tok := argmax(sess.Logits(0))
		b.Reset()
		b.Add(tok, int32(len(out)), 0, true)
		out = append(out, tok)
	}
	return out
}

// favourite is the token plain decoding emits most after the prompt.
func favourite(out []int32, from int) int32 {
	count := map[int32]int{}
	best := out[from]
	for _, tok := range out[from:] {
		count[tok]++
		if count[tok] > count[best] {
			best = tok
		}
	}
	return best
}

// TestEveryTargetIsPlainGreedy drafts with a random drafter on each
// architecture of the llama family and the Qwen3.5 hybrids (inputs of
// layers 1, N/2 and N, the last being the final layer's output). The
// drafter's head covers only the token plain decoding emits most, so its
// drafts are accepted whenever the target emits it and rejected
// otherwise: the output must be plain greedy decoding, and some drafts
// must have been accepted.
func TestEveryTargetIsPlainGreedy(t *testing.T) {
	for _, name := range []string{"synth-llama-tiny-q8_0.gguf", "synth-qwen2-tiny-q8_0.gguf", "synth-qwen3-spm-q8_0.gguf", "synth-qwen35-spm-q8_0.gguf", "synth-qwen35moe-spm-f32.gguf"} {
		t.Run(name, func(t *testing.T) {
			target := model(t, name)
			prompt := []int32{1, 20, 31, 42, 53, 64}
			const n = 40
			plain := plainGreedy(t, target.Model, prompt, n+8)
			nl := target.Model.Info().NLayer
			data, err := eagle3gen.Build(target.File, eagle3gen.Options{Layers: []int{1, nl / 2, nl}, DraftIDs: []int32{favourite(plain, len(prompt))}})
			if err != nil {
				t.Fatal(err)
			}
			dl, err := engine.LoadBytes(data)
			if err != nil {
				t.Fatal(err)
			}
			s := newStrategy(t, target, dl, 3, 1, 256)
			r := mainlineLoop(t, target, s, prompt, n, 3, 256, false)
			got := r.history(prompt)
			if fmt.Sprint(got) != fmt.Sprint(plain[:len(got)]) {
				t.Fatalf("speculative output differs from plain greedy:\n%v\n%v", got, plain[:len(got)])
			}
			if r.accepted == 0 {
				t.Fatalf("no draft accepted (drafted %d)", r.drafted)
			}
			t.Logf("drafted %d, accepted %d", r.drafted, r.accepted)
		})
	}
}

// eagle3genBuild writes a random drafter for target reading layers, its
// head over ids.
func eagle3genBuild(target *engine.Loaded, layers []int, ids []int32) ([]byte, error) {
	return eagle3gen.Build(target.File, eagle3gen.Options{Layers: layers, DraftIDs: ids})
}
