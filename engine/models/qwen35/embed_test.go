package qwen35_test

import (
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
)

// TestDecodeEmbeddingsEqualsFinalCapture: on the hybrid model too,
// DecodeEmbeddings gives exactly the final normalised states a plain
// Decode captures as Hidden(-1, k), leaves the logits buffer alone, and
// its embeddings do not depend on what else is in the batch.
func TestDecodeEmbeddingsEqualsFinalCapture(t *testing.T) {
	l := loadModel(t, denseF32)
	toks := tokens(12, 5)
	capture := newSession(t, l, engine.SessionOptions{CaptureLayers: []int{-1}})
	decode(t, capture, 0, toks, 0)

	s := newSession(t, l, engine.SessionOptions{NSeq: 2})
	e, ok := s.(engine.Embedder)
	if !ok {
		t.Fatal("qwen35 sessions do not implement engine.Embedder")
	}
	decode(t, s, 1, tokens(len(toks)+1, 9), 0) // logits for more outputs than below
	buf := s.Logits(0)
	before := slices.Clone(buf)
	var b engine.Batch
	b.Add(tokens(1, 3)[0], int32(len(toks)+1), 1, true) // another sequence in the batch
	for i, tok := range toks {
		b.Add(tok, int32(i), 0, true)
	}
	if err := e.DecodeEmbeddings(&b); err != nil {
		t.Fatal(err)
	}
	for k := range toks {
		want, got := capture.Hidden(-1, k), e.Embedding(k+1)
		if len(got) != l.Model.Info().NEmbd || maxDiff(got, want) != 0 {
			t.Fatalf("position %d: embedding differs from the captured final state by %g", k, maxDiff(got, want))
		}
	}
	if maxDiff(buf, before) != 0 || s.Logits(0) != nil {
		t.Fatal("DecodeEmbeddings ran the output head or left logits readable")
	}
}
