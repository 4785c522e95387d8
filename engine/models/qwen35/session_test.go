package qwen35_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/qwen35"
	"github.com/waggle-llm/waggle/kvcache"
)

const (
	denseF32 = "synth-qwen35-spm-f32.gguf"
	moeF32   = "synth-qwen35moe-spm-f32.gguf"
)

// tokens returns n deterministic ids in [3, 512) (the fixtures' vocabulary).
func tokens(n int, seed int32) []int32 {
	out := make([]int32, n)
	x := uint32(seed)*2654435761 + 12345
	for i := range out {
		x = x*1664525 + 1013904223
		out[i] = 3 + int32(x>>8)%509
	}
	return out
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// reference decodes toks in a fresh session, one batch, and returns the
// logits of the last token.
func reference(t testing.TB, l *engine.Loaded, toks []int32) []float32 {
	t.Helper()
	s := newSession(t, l, engine.SessionOptions{})
	decode(t, s, 0, toks, 0)
	return slices.Clone(s.Logits(len(toks) - 1))
}

// TestBatchEqualsSequential: up to a batch long enough for the chunked
// delta rule the per-token path runs, and a whole batch gives exactly the
// logits of one token per Decode. A 200-token prompt runs its first 128
// tokens through kernels.GatedDeltaChunk; it must stay within 3e-4 of the
// sequential run (measured 1.05e-4 dense, 8.2e-5 MoE: the chunked form's
// float32 rounding, kernels.tolDeltaChunk, carried through six DeltaNet
// layers and 200 positions; llama.cpp's own one-batch and sequential
// passes differ by 3.3e-5 on the 40-token golden prompts).
func TestBatchEqualsSequential(t *testing.T) {
	for _, name := range []string{denseF32, moeF32} {
		l := loadModel(t, name)
		for _, n := range []int{40, 200} {
			toks := tokens(n, int32(n))
			s := newSession(t, l, engine.SessionOptions{})
			decode(t, s, 0, toks, 0)
			seq := sequentialLogits(t, l, toks)
			var worst float64
			for i := range toks {
				worst = max(worst, maxDiff(s.Logits(i), seq[i]))
			}
			t.Logf("%s, %d tokens: batch vs sequential max |Δ| %.3g", name, n, worst)
			if n <= 64 && worst != 0 {
				t.Errorf("%s: a %d-token batch differs from sequential decoding by %g (want bit-identical)", name, n, worst)
			}
			if worst > 3e-4 {
				t.Errorf("%s: a %d-token batch (chunked delta rule) differs from sequential decoding by %.3g > 3e-4", name, n, worst)
			}
		}
	}
}

// TestMultiSequenceBatch: three sequences of different lengths (one long
// enough for the chunked path) decoded in one interleaved batch, then a
// step of all three together, give exactly their single-sequence logits.
func TestMultiSequenceBatch(t *testing.T) {
	for _, name := range []string{denseF32, moeF32} {
		l := loadModel(t, name)
		prompts := [][]int32{tokens(7, 1), tokens(150, 2), tokens(3, 3)}
		s := newSession(t, l, engine.SessionOptions{NSeq: 3})
		var b engine.Batch
		type out struct{ seq, pos int }
		var outs []out
		for i := 0; i < 150; i++ { // interleave: token i of every prompt that has one
			for seq, p := range prompts {
				if i < len(p) {
					b.Add(p[i], int32(i), int32(seq), true)
					outs = append(outs, out{seq, i})
				}
			}
		}
		if err := s.Decode(&b); err != nil {
			t.Fatal(err)
		}
		for seq, p := range prompts {
			ref := newSession(t, l, engine.SessionOptions{})
			decode(t, ref, 0, p, 0)
			for k, o := range outs {
				if o.seq == seq {
					if d := maxDiff(s.Logits(k), ref.Logits(o.pos)); d != 0 {
						t.Fatalf("%s: sequence %d position %d differs from a single-sequence run by %g", name, seq, o.pos, d)
					}
				}
			}
		}
		b.Reset()
		next := tokens(3, 9)
		for seq, p := range prompts {
			b.Add(next[seq], int32(len(p)), int32(seq), true)
		}
		if err := s.Decode(&b); err != nil {
			t.Fatal(err)
		}
		for seq, p := range prompts {
			want := reference(t, l, append(slices.Clone(p), next[seq]))
			if d := maxDiff(s.Logits(seq), want); d != 0 {
				t.Fatalf("%s: decode step of sequence %d differs by %g", name, seq, d)
			}
		}
	}
}

// rollbacks are the two real strategies; every rollback test runs both.
var rollbacks = []qwen35.Rollback{qwen35.RollbackReplay, qwen35.RollbackSnapshots}

// newSessionWith is newSession with hybrid options.
func newSessionWith(t testing.TB, l *engine.Loaded, o engine.SessionOptions, h qwen35.Options) engine.Session {
	t.Helper()
	if o.NCtx == 0 {
		o.NCtx = 512
	}
	if o.NBatch == 0 {
		o.NBatch = 512
	}
	o.TypeK, o.TypeV = kvcache.F32, kvcache.F32
	s, err := l.Model.(*qwen35.Model).NewSessionWith(o, h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// truncateThenDecode decodes prompt and then draft as one batch, truncates
// to keep and decodes alt, returning alt's logits and those of a fresh run
// of the same tokens.
func truncateThenDecode(t *testing.T, l *engine.Loaded, h qwen35.Options, prompt, draft []int32, keep int, alt int32) (got, want []float32) {
	t.Helper()
	s := newSessionWith(t, l, engine.SessionOptions{}, h)
	decode(t, s, 0, prompt, 0)
	decode(t, s, 0, draft, len(prompt))
	if err := s.Truncate(0, keep); err != nil {
		t.Fatalf("%v: truncate to %d: %v", h.Rollback, keep, err)
	}
	if s.SeqLen(0) != keep {
		t.Fatalf("%v: SeqLen after truncate = %d, want %d", h.Rollback, s.SeqLen(0), keep)
	}
	decode(t, s, 0, []int32{alt}, keep)
	full := append(append(slices.Clone(prompt), draft...)[:keep], alt)
	return slices.Clone(s.Logits(0)), reference(t, l, full)
}

// TestTruncateToSnapshots: after a prompt and a verify-like batch of 6
// tokens, Truncate to every length the batch covers (its start and each
// token but the last) and decoding a different token reproduces a fresh
// run of that prefix exactly, with snapshots and with the replay tape
// (bit-identical: the replay runs the forward pass's per-token kernel on
// the recorded inputs).
func TestTruncateToSnapshots(t *testing.T) {
	for _, name := range []string{denseF32, moeF32} {
		l := loadModel(t, name)
		prompt, draft := tokens(10, 4), tokens(6, 5)
		for _, rb := range rollbacks {
			for keep := 10; keep < 16; keep++ {
				got, want := truncateThenDecode(t, l, qwen35.Options{Rollback: rb}, prompt, draft, keep, 77)
				if d := maxDiff(got, want); d != 0 {
					t.Fatalf("%s %v: truncate to %d then decode: logits differ from a fresh run by %g", name, rb, keep, d)
				}
			}
		}
	}
}

// TestReplayAfterChunkedPrefix: a 99-token batch after one token runs its
// first 64 tokens through the chunked delta rule and tapes the last 17
// (from length 83); truncating to 83, 90 and 99 replays 0, 7 and 16 tokens
// and gives exactly the logits of the snapshot strategy (the forward
// pass's own states), and a fresh run's within the chunked form's 3e-4
// (its chunk boundaries differ, TestBatchEqualsSequential); 82 is below
// the tape and fails. A depth of 4 keeps only lengths 96…99.
func TestReplayAfterChunkedPrefix(t *testing.T) {
	l := loadModel(t, denseF32)
	toks := tokens(100, 12)
	for _, keep := range []int{83, 90, 99} {
		got, fresh := truncateThenDecode(t, l, qwen35.Options{Rollback: qwen35.RollbackReplay}, toks[:1], toks[1:], keep, 5)
		snap, _ := truncateThenDecode(t, l, qwen35.Options{Rollback: qwen35.RollbackSnapshots}, toks[:1], toks[1:], keep, 5)
		if d := maxDiff(got, snap); d != 0 {
			t.Errorf("truncate to %d after a chunked prefix: replay and snapshot logits differ by %g", keep, d)
		}
		if d := maxDiff(got, fresh); d > 3e-4 {
			t.Errorf("truncate to %d after a chunked prefix: logits differ from a fresh run by %g", keep, d)
		}
	}
	for _, rb := range rollbacks {
		for depth, keep := range map[int]int{17: 82, 4: 95} {
			s := newSessionWith(t, l, engine.SessionOptions{}, qwen35.Options{Rollback: rb, Depth: depth})
			decode(t, s, 0, toks, 0)
			if err := s.Truncate(0, keep); !errors.Is(err, qwen35.ErrNoSnapshot) {
				t.Fatalf("%v depth %d: truncate to %d: %v, want ErrNoSnapshot", rb, depth, keep, err)
			}
			if err := s.Truncate(0, keep+1); err != nil {
				t.Fatalf("%v depth %d: truncate to %d: %v", rb, depth, keep+1, err)
			}
		}
	}
}

// TestFaultyReplayIsVisible: the deliberately broken replays (restore
// without replaying, restore nothing) change the logits after a partial
// rollback, so a test comparing against fresh runs can see them; the
// spec-level exactness test relies on the same faults.
func TestFaultyReplayIsVisible(t *testing.T) {
	l := loadModel(t, denseF32)
	prompt, draft := tokens(10, 4), tokens(6, 5)
	for _, rb := range []qwen35.Rollback{qwen35.RollbackFaultNoReplay, qwen35.RollbackFaultNoRestore} {
		got, want := truncateThenDecode(t, l, qwen35.Options{Rollback: rb}, prompt, draft, 13, 77)
		d := maxDiff(got, want)
		t.Logf("%v: logits off by %.3g after truncating 3 of 6 tokens", rb, d)
		if d < 1e-3 {
			t.Errorf("%v: a broken rollback changes the logits by only %g", rb, d)
		}
	}
}

// TestTruncateWithoutSnapshotFails: truncating to a length no snapshot
// holds (inside an earlier single-token step, or dropped by a previous
// truncation) fails with ErrNoSnapshot and leaves the sequence intact;
// Truncate(0) always works.
func TestTruncateWithoutSnapshotFails(t *testing.T) {
	l := loadModel(t, denseF32)
	for _, rb := range rollbacks {
		t.Run(rb.String(), func(t *testing.T) { truncateWithoutSnapshot(t, l, rb) })
	}
}

func truncateWithoutSnapshot(t *testing.T, l *engine.Loaded, rb qwen35.Rollback) {
	toks := tokens(12, 6)
	s := newSessionWith(t, l, engine.SessionOptions{}, qwen35.Options{Rollback: rb})
	decode(t, s, 0, toks[:8], 0) // snapshots at 0..7
	decode(t, s, 0, toks[8:9], 8)
	decode(t, s, 0, toks[9:10], 9) // single tokens: none at 9
	if err := s.Truncate(0, 9); !errors.Is(err, qwen35.ErrNoSnapshot) {
		t.Fatalf("truncate to 9 after single-token steps: %v, want ErrNoSnapshot", err)
	}
	if s.SeqLen(0) != 10 {
		t.Fatalf("failed truncate changed the length to %d", s.SeqLen(0))
	}
	decode(t, s, 0, toks[10:11], 10)
	if d := maxDiff(s.Logits(0), reference(t, l, toks[:11])); d != 0 {
		t.Fatalf("decode after a failed truncate differs by %g", d)
	}
	if err := s.Truncate(0, 5); err != nil { // a snapshot from the first batch
		t.Fatalf("truncate to 5: %v", err)
	}
	alt := tokens(3, 11)
	for i, tok := range alt { // a new branch, one token at a time
		decode(t, s, 0, []int32{tok}, 5+i)
	}
	if err := s.Truncate(0, 7); !errors.Is(err, qwen35.ErrNoSnapshot) {
		t.Fatalf("truncate to 7 on a new branch: %v; the old snapshot at 7 held dropped tokens", err)
	}
	if err := s.Truncate(0, 0); err != nil {
		t.Fatal(err)
	}
	decode(t, s, 0, toks[:3], 0)
	if d := maxDiff(s.Logits(2), reference(t, l, toks[:3])); d != 0 {
		t.Fatalf("decode after Truncate(0) differs by %g", d)
	}
}

// TestForkHybrid: Fork at the source's length and at a snapshot length
// continue exactly like fresh runs; a fork at a length without a snapshot
// fails with ErrNoSnapshot.
func TestForkHybrid(t *testing.T) {
	l := loadModel(t, moeF32)
	for _, rb := range rollbacks {
		t.Run(rb.String(), func(t *testing.T) { forkHybrid(t, l, rb) })
	}
}

func forkHybrid(t *testing.T, l *engine.Loaded, rb qwen35.Rollback) {
	toks := tokens(9, 7)
	s := newSessionWith(t, l, engine.SessionOptions{NSeq: 3}, qwen35.Options{Rollback: rb})
	decode(t, s, 0, toks[:6], 0)
	if err := s.Fork(0, 1, 6); err != nil {
		t.Fatal(err)
	}
	if err := s.Fork(0, 2, 4); err != nil {
		t.Fatal(err)
	}
	var b engine.Batch
	b.Add(toks[6], 6, 0, true)
	b.Add(toks[7], 6, 1, true)
	b.Add(toks[8], 4, 2, true)
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
	wants := [][]int32{append(slices.Clone(toks[:6]), toks[6]), append(slices.Clone(toks[:6]), toks[7]), append(slices.Clone(toks[:4]), toks[8])}
	for seq, w := range wants {
		if d := maxDiff(s.Logits(seq), reference(t, l, w)); d != 0 {
			t.Fatalf("sequence %d after fork differs from a fresh run by %g", seq, d)
		}
	}
	decode(t, s, 0, toks[7:8], 7) // single token: no snapshot at 7
	decode(t, s, 0, toks[8:9], 8)
	if err := s.Fork(0, 1, 8); !errors.Is(err, qwen35.ErrNoSnapshot) {
		t.Fatalf("fork at 8: %v, want ErrNoSnapshot", err)
	}
	if s.SeqLen(1) != 7 {
		t.Fatalf("failed fork changed the destination's length to %d", s.SeqLen(1))
	}
}

// TestRejectedBatchLeavesState: a batch that fails validation changes
// neither the cache nor the recurrent state.
func TestRejectedBatchLeavesState(t *testing.T) {
	l := loadModel(t, denseF32)
	toks := tokens(6, 8)
	s := newSession(t, l, engine.SessionOptions{})
	decode(t, s, 0, toks[:4], 0)
	var b engine.Batch
	b.Add(toks[4], 4, 0, true)
	b.Add(toks[5], 7, 0, true) // gap
	if err := s.Decode(&b); err == nil {
		t.Fatal("a batch with a position gap was accepted")
	}
	decode(t, s, 0, toks[4:6], 4)
	if d := maxDiff(s.Logits(1), reference(t, l, toks)); d != 0 {
		t.Fatalf("decode after a rejected batch differs by %g", d)
	}
}

// TestDecodeAllocatesNothing: a warm decode step and a warm verify batch
// with its snapshots or tape and rollback (replayed) allocate nothing.
func TestDecodeAllocatesNothing(t *testing.T) {
	for _, name := range []string{denseF32, moeF32} {
		for _, rb := range rollbacks {
			t.Run(name+"/"+rb.String(), func(t *testing.T) { decodeAllocatesNothing(t, name, rb) })
		}
	}
}

func decodeAllocatesNothing(t *testing.T, name string, rb qwen35.Rollback) {
	{
		l := loadModel(t, name)
		s := newSessionWith(t, l, engine.SessionOptions{NCtx: 256}, qwen35.Options{Rollback: rb})
		toks := tokens(8, 10)
		decode(t, s, 0, toks, 0)
		var b engine.Batch
		pos := 8
		step := func() {
			b.Reset()
			b.Add(toks[pos%8], int32(pos), 0, true)
			if err := s.Decode(&b); err != nil {
				t.Fatal(err)
			}
			pos++
		}
		step()
		if a := testing.AllocsPerRun(20, step); a != 0 {
			t.Errorf("%s: a warm decode step allocates %v times", name, a)
		}
		verify := func() {
			b.Reset()
			for j := range 4 {
				b.Add(toks[j], int32(pos+j), 0, true)
			}
			if err := s.Decode(&b); err != nil {
				t.Fatal(err)
			}
			if err := s.Truncate(0, pos+2); err != nil {
				t.Fatal(err)
			}
			pos += 2
		}
		verify()
		if a := testing.AllocsPerRun(20, verify); a != 0 {
			t.Errorf("%s: a warm verify batch with rollback allocates %v times", name, a)
		}
	}
}
