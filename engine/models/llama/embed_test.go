package llama_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
)

// TestDecodeEmbeddingsEqualsFinalCapture: DecodeEmbeddings gives, for
// every output, exactly the final normalised state that a plain Decode
// captures as Hidden(-1, k), without running the output head; a later
// Decode computes logits again.
func TestDecodeEmbeddingsEqualsFinalCapture(t *testing.T) {
	l := demo(t)
	capture := demoSession(t, l, engine.SessionOptions{CaptureLayers: []int{-1}})
	decodeAll(t, capture, 0, prompt, 0)
	s := demoSession(t, l, engine.SessionOptions{NSeq: 2})
	e, ok := s.(engine.Embedder)
	if !ok {
		t.Fatal("llama sessions do not implement engine.Embedder")
	}
	// Logits for as many outputs as below, with other values: the output
	// head must not write this buffer.
	decodeAll(t, s, 1, []int32{330, 320, 321, 322, 323, 324, 325, 326}, 0)
	buf := s.Logits(0)
	before := copyRow(buf)
	if err := s.Truncate(1, 0); err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	for i, tok := range prompt {
		b.Add(tok, int32(i), 0, true)
	}
	if err := e.DecodeEmbeddings(&b); err != nil {
		t.Fatal(err)
	}
	if s.NumOutputs() != len(prompt) {
		t.Fatalf("%d outputs, want %d", s.NumOutputs(), len(prompt))
	}
	for k := range prompt {
		want, got := capture.Hidden(-1, k), e.Embedding(k)
		if len(got) != l.Model.Info().NEmbd || maxDiff(got, want) != 0 {
			t.Fatalf("output %d: embedding differs from the captured final state by %g (len %d)", k, maxDiff(got, want), len(got))
		}
	}
	if maxDiff(buf, before) != 0 {
		t.Fatal("DecodeEmbeddings ran the output head")
	}
	if s.Logits(0) != nil || e.Embedding(len(prompt)) != nil {
		t.Fatal("logits after DecodeEmbeddings, or an embedding past the outputs")
	}
	decodeAll(t, s, 0, []int32{7}, len(prompt))
	if s.Logits(0) == nil || e.Embedding(0) != nil {
		t.Fatal("a plain Decode after DecodeEmbeddings gives no logits, or keeps the embeddings")
	}
}

// TestEmbeddingsBatchInvariant: a sequence's embeddings do not depend on
// another sequence sharing its batch nor on how its prompt is split.
func TestEmbeddingsBatchInvariant(t *testing.T) {
	l := demo(t)
	alone, err := engine.EmbedSequence(demoSession(t, l, engine.SessionOptions{}), 0, prompt, engine.PoolingNone)
	if err != nil {
		t.Fatal(err)
	}
	if len(alone) != len(prompt) {
		t.Fatalf("%d rows for %d tokens", len(alone), len(prompt))
	}
	s := demoSession(t, l, engine.SessionOptions{NSeq: 2, NBatch: 3})
	e := s.(engine.Embedder)
	other := []int32{1, 310, 311, 312, 313, 314, 315, 316}
	for start := 0; start < len(prompt); start += 2 {
		var b engine.Batch // another sequence first, then two of ours
		b.Add(other[start], int32(start), 1, true)
		b.Add(prompt[start], int32(start), 0, true)
		b.Add(prompt[start+1], int32(start+1), 0, true)
		if err := e.DecodeEmbeddings(&b); err != nil {
			t.Fatal(err)
		}
		for k := range 2 {
			if d := maxDiff(e.Embedding(1+k), alone[start+k]); d != 0 {
				t.Fatalf("position %d: embedding differs by %g in a mixed batch", start+k, d)
			}
		}
		b.Reset()
		b.Add(other[start+1], int32(start+1), 1, false)
		if err := e.DecodeEmbeddings(&b); err != nil {
			t.Fatal(err)
		}
	}
}
