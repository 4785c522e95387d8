package qwen35_test

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/qwen35"
)

// saveSeq writes sequence seq of s as a kvcache state file.
func saveSeq(t testing.TB, s engine.Session, seq int, toks []int32) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := s.Cache().WriteState(&buf, seq, [32]byte{7}, toks); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// restoreSeq loads a state file into sequence seq of s.
func restoreSeq(t testing.TB, s engine.Session, seq int, file []byte) {
	t.Helper()
	if _, err := s.Cache().RestoreState(bytes.NewReader(file), int64(len(file)), seq, [32]byte{7}); err != nil {
		t.Fatal(err)
	}
}

// continuation runs the same script on sequence seq of s from length n and
// returns every logits row it produced: a 5-token verify batch, a
// truncation into it (served by the tape or the snapshots taken after the
// restore), a single-token step and a 3-token prompt tail.
func continuation(t *testing.T, s engine.Session, seq int32, n int) [][]float32 {
	t.Helper()
	var out [][]float32
	grab := func(k int) {
		for i := range k {
			out = append(out, slices.Clone(s.Logits(i)))
		}
	}
	decode(t, s, seq, tokens(5, 40), n)
	grab(5)
	if err := s.Truncate(int(seq), n+2); err != nil {
		t.Fatalf("truncate into the verify batch after the restore: %v", err)
	}
	decode(t, s, seq, []int32{17}, n+2)
	grab(1)
	decode(t, s, seq, tokens(3, 41), n+3)
	grab(3)
	return out
}

// sameBits reports whether two logits sets are bit-identical.
func sameBits(a, b [][]float32) bool {
	return slices.EqualFunc(a, b, func(x, y []float32) bool {
		return slices.EqualFunc(x, y, func(p, q float32) bool { return math.Float32bits(p) == math.Float32bits(q) })
	})
}

// TestRestoreContinuesExactly: a hybrid sequence saved (attention rows and
// recurrent state) after a 150-token prompt (chunked delta rule) and three
// single-token steps, and restored into another session's sequence that
// held other tokens (with their snapshots or tape and checkpoints),
// continues bit for bit like the uninterrupted sequence: verify batch,
// truncation into it, single steps. Both rollback strategies, with
// checkpoints on, dense and MoE.
func TestRestoreContinuesExactly(t *testing.T) {
	for _, name := range []string{denseF32, moeF32} {
		l := loadModel(t, name)
		for _, rb := range rollbacks {
			h := qwen35.Options{Rollback: rb, CtxCheckpoints: 2, CheckpointEvery: 64}
			toks := tokens(153, 30)
			a := newSessionWith(t, l, engine.SessionOptions{NSeq: 2}, h)
			prefill(t, a, toks[:150], 0)
			for i := 150; i < 153; i++ {
				decode(t, a, 0, toks[i:i+1], i)
			}
			file := saveSeq(t, a, 0, toks)

			b := newSessionWith(t, l, engine.SessionOptions{NSeq: 2}, h)
			other := tokens(160, 31)
			prefill(t, b, other[:130], 0)
			decode(t, b, 1, other[130:160], 0) // seq 1: a tape / snapshots, a checkpoint
			restoreSeq(t, b, 1, file)
			if b.SeqLen(1) != 153 {
				t.Fatalf("restored length %d", b.SeqLen(1))
			}
			want := continuation(t, a, 0, 153)
			got := continuation(t, b, 1, 153)
			if !sameBits(got, want) {
				t.Fatalf("%s %v: the restored sequence does not continue bit for bit like the uninterrupted one", name, rb)
			}
		}
	}
}

// TestRestoreDropsStaleRollback: a file restored over a sequence of the
// same length is noticed (the cache's Generation, not the length): the
// rollback data of the tokens it replaced is dropped, so Truncate into
// them fails with ErrNoSnapshot instead of replaying other tokens' tape or
// checkpoint, and decoding continues exactly as from the file's tokens.
// Truncate to 0 and Fork still work on the restored sequence.
func TestRestoreDropsStaleRollback(t *testing.T) {
	l := loadModel(t, denseF32)
	for _, rb := range rollbacks {
		s := newSessionWith(t, l, engine.SessionOptions{NSeq: 2}, qwen35.Options{Rollback: rb, CtxCheckpoints: 2, CheckpointEvery: 4})
		mine, other := tokens(11, 32), tokens(10, 33)
		decode(t, s, 0, mine[:10], 0)
		file := saveSeq(t, s, 0, mine[:10])
		if err := s.Truncate(0, 0); err != nil {
			t.Fatal(err)
		}
		prefill(t, s, other, 0) // the same length: a tape or snapshots 0…9, checkpoints at 8 and 10
		restoreSeq(t, s, 0, file)
		for _, keep := range []int{9, 8, 5} {
			if err := s.Truncate(0, keep); !errors.Is(err, qwen35.ErrNoSnapshot) || s.SeqLen(0) != 10 {
				t.Fatalf("%v: truncate to %d after a same-length restore: %v (length %d), want ErrNoSnapshot", rb, keep, err, s.SeqLen(0))
			}
		}
		if err := s.Fork(0, 1, 10); err != nil {
			t.Fatal(err)
		}
		decode(t, s, 0, mine[10:11], 10)
		if d := maxDiff(s.Logits(0), reference(t, l, mine)); d != 0 {
			t.Fatalf("%v: after the restore the logits differ from a fresh run by %g", rb, d)
		}
		decode(t, s, 1, mine[10:11], 10)
		if d := maxDiff(s.Logits(0), reference(t, l, mine)); d != 0 {
			t.Fatalf("%v: a fork of the restored sequence differs from a fresh run by %g", rb, d)
		}
		if err := s.Truncate(0, 0); err != nil || s.SeqLen(0) != 0 {
			t.Fatal(err)
		}
		decode(t, s, 0, mine[:3], 0)
		if d := maxDiff(s.Logits(2), reference(t, l, mine[:3])); d != 0 {
			t.Fatalf("%v: after Truncate(0) the logits differ by %g", rb, d)
		}
	}
}
