package qwen35_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/qwen35"
)

// prefill decodes toks from start in one batch asking only for the last
// token's logits, the way the server and spec.Speculator feed a prompt.
func prefill(t testing.TB, s engine.Session, toks []int32, start int) {
	t.Helper()
	var b engine.Batch
	for i, tok := range toks {
		b.Add(tok, int32(start+i), 0, i == len(toks)-1)
	}
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointPrefixReuse: with --ctx-checkpoints, a sequence that has
// moved on (single-token steps after a 150-token prompt) can be truncated
// to lengths no snapshot or tape holds: 130 restores the every-64
// checkpoint at 128 and re-decodes 2 tokens, 153 the prompt-end one at 150
// and re-decodes 3; decoding then matches a fresh run of that prefix within
// the chunked delta rule's 3e-4 (its chunk boundaries differ). Without
// checkpoints the same truncations fail with ErrNoSnapshot, and below the
// oldest checkpoint they fail too.
func TestCheckpointPrefixReuse(t *testing.T) {
	l := loadModel(t, denseF32)
	toks := tokens(170, 21)
	for _, n := range []int{0, 4} {
		for _, keep := range []int{130, 153, 100} {
			s := newSessionWith(t, l, engine.SessionOptions{}, qwen35.Options{CtxCheckpoints: n, CheckpointEvery: 64})
			prefill(t, s, toks[:150], 0)
			for i := 150; i < 160; i++ {
				decode(t, s, 0, toks[i:i+1], i)
			}
			err := s.Truncate(0, keep)
			if n == 0 || keep == 100 {
				if !errors.Is(err, qwen35.ErrNoSnapshot) || s.SeqLen(0) != 160 {
					t.Fatalf("checkpoints %d: truncate to %d: %v, length %d; want ErrNoSnapshot at 160", n, keep, err, s.SeqLen(0))
				}
				continue
			}
			if err != nil {
				t.Fatalf("truncate to %d from a checkpoint: %v", keep, err)
			}
			if s.SeqLen(0) != keep {
				t.Fatalf("length %d after truncating to %d", s.SeqLen(0), keep)
			}
			decode(t, s, 0, []int32{9}, keep)
			want := reference(t, l, append(slices.Clone(toks[:keep]), 9))
			d := maxDiff(s.Logits(0), want)
			t.Logf("truncate to %d via checkpoint: max |Δ| %.3g against a fresh run", keep, d)
			if d > 3e-4 {
				t.Fatalf("truncate to %d via checkpoint: logits differ from a fresh run by %g", keep, d)
			}
		}
	}
}

// TestCheckpointEviction: with one checkpoint the newest prompt end
// replaces the older one, and truncation below it fails.
func TestCheckpointEviction(t *testing.T) {
	l := loadModel(t, denseF32)
	toks := tokens(80, 22)
	s := newSessionWith(t, l, engine.SessionOptions{}, qwen35.Options{CtxCheckpoints: 1})
	prefill(t, s, toks[:30], 0)    // checkpoint at 30
	prefill(t, s, toks[30:60], 30) // replaces it by 60
	for i := 60; i < 64; i++ {
		decode(t, s, 0, toks[i:i+1], i)
	}
	if err := s.Truncate(0, 40); !errors.Is(err, qwen35.ErrNoSnapshot) {
		t.Fatalf("truncate to 40 with only the checkpoint at 60: %v", err)
	}
	if err := s.Truncate(0, 62); err != nil {
		t.Fatalf("truncate to 62 from the checkpoint at 60: %v", err)
	}
	decode(t, s, 0, []int32{9}, 62)
	if d := maxDiff(s.Logits(0), reference(t, l, append(slices.Clone(toks[:62]), 9))); d > 3e-4 {
		t.Fatalf("after the checkpoint at 60: logits differ from a fresh run by %g", d)
	}
}
