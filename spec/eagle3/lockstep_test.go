package eagle3_test

import (
	"fmt"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/spec"
	"github.com/waggle-llm/waggle/spec/eagle3"
)

// seqRun is one sequence of a lockstep run.
type seqRun struct {
	seq               int
	nMax              int // the request's draft cap (0: lockstep's)
	history           []int32
	idLast            int32
	nPast, nPred      int
	done              bool
	cycles            []cycle
	drafted, accepted int
}

// prefill decodes prompt[from:len-1] on seq (the cache holds prompt[:from])
// and commits it, as a server slot starting a request does; the last
// prompt token becomes id_last.
func prefill(t *testing.T, sess *tapped, s *eagle3.Strategy, seq int, prompt []int32, from int) *seqRun {
	t.Helper()
	n := len(prompt)
	if from < n-1 {
		var b engine.Batch
		for i := from; i < n-1; i++ {
			b.Add(prompt[i], int32(i), int32(seq), true)
		}
		if err := sess.Decode(&b); err != nil {
			t.Fatal(err)
		}
		s.Committed(seq, from, prompt[from:n-1], sess.Row)
	}
	history := append([]int32(nil), prompt[:n-1]...)
	s.Begin(seq, history)
	return &seqRun{seq: seq, history: history, idLast: prompt[n-1], nPast: n - 1}
}

// lockstep runs cycles for every sequence not done, all drafted in one
// Draft call and verified in one target batch, until each has generated
// more than nPredict tokens (or cycles cycles, when > 0), with mainline's
// budget rule and greedy verification.
func lockstep(t *testing.T, sess *tapped, s *eagle3.Strategy, runs []*seqRun, nPredict, nMax, cycles int) {
	t.Helper()
	var b engine.Batch
	for c := 0; cycles <= 0 || c < cycles; c++ {
		var reqs []*spec.Request
		var active []*seqRun
		for _, r := range runs {
			if !r.done {
				n := nMax
				if r.nMax > 0 {
					n = r.nMax
				}
				active = append(active, r)
				reqs = append(reqs, &spec.Request{Seq: r.seq, NMax: n, NPast: r.nPast, Last: r.idLast, History: r.history, Draft: make([]int32, 0, n), PMin: -1})
			}
		}
		if len(active) == 0 {
			return
		}
		s.Draft(reqs)
		b.Reset()
		for i, r := range active {
			budget := max(nPredict-r.nPred-1, 0)
			if budget > 0 && len(reqs[i].Draft) > budget {
				reqs[i].Draft = reqs[i].Draft[:budget]
			}
			b.Add(r.idLast, int32(r.nPast), int32(r.seq), true)
			for k, d := range reqs[i].Draft {
				b.Add(d, int32(r.nPast+1+k), int32(r.seq), true)
			}
		}
		if err := sess.Decode(&b); err != nil {
			t.Fatal(err)
		}
		row := 0
		for i, r := range active {
			draft := reqs[i].Draft
			var ids []int32
			for k := 0; k <= len(draft); k++ {
				tok := argmax(sess.Logits(row + k))
				ids = append(ids, tok)
				if k == len(draft) || tok != draft[k] {
					break
				}
			}
			committed := append([]int32{r.idLast}, ids[:len(ids)-1]...)
			off := row
			s.Committed(r.seq, r.nPast, committed, func(k int) []float32 { return sess.Row(off + k) })
			s.Accept(r.seq, len(ids)-1)
			r.cycles = append(r.cycles, cycle{nPast: r.nPast, idLast: r.idLast, draft: append([]int32(nil), draft...), targetIDs: ids})
			r.drafted += len(draft)
			r.accepted += len(ids) - 1
			r.nPred += len(ids)
			r.history = append(r.history, committed...)
			r.nPast += len(ids)
			r.idLast = ids[len(ids)-1]
			r.done = r.nPred > nPredict
			row += len(draft) + 1
		}
		for _, r := range active {
			if err := sess.Truncate(r.seq, r.nPast); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func sameCycles(a, b []cycle) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d cycles vs %d", len(a), len(b))
	}
	for i := range a {
		if fmt.Sprint(a[i]) != fmt.Sprint(b[i]) {
			return fmt.Sprintf("cycle %d: %v vs %v", i, a[i], b[i])
		}
	}
	return ""
}

// TestSequencesDraftTogether drafts three sequences of the trained
// drafter in lockstep (one Draft call, one drafter pass per depth, one
// verify batch), each to its own depth so that they stop drafting at
// different steps: each must draft, verify and accept exactly what it
// does alone.
func TestSequencesDraftTogether(t *testing.T) {
	target := model(t, "stories260K-f32.gguf")
	dm := drafter(t, "stories260K-eagle3-f32.gguf")
	prompts := [][]int32{
		{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421},
		{1, 301, 314, 343},
		{1, 410, 460, 316, 411, 397, 396, 322, 261, 270, 277, 372, 426, 410, 460, 316},
	}
	const nPredict, nMax = 48, 3
	depths := []int{1, 3, 2}
	s := newStrategy(t, target, dm, nMax, len(prompts), 256)
	sess := newTapped(t, target.Model, s.Layers(), engine.SessionOptions{NCtx: 256, NSeq: len(prompts), NBatch: 64, Threads: 1})
	var runs []*seqRun
	for i, p := range prompts {
		runs = append(runs, prefill(t, sess, s, i, p, 0))
		runs[i].nMax = depths[i]
	}
	lockstep(t, sess, s, runs, nPredict, nMax, 0)
	for i, p := range prompts {
		solo := mainlineLoop(t, target, newStrategy(t, target, dm, depths[i], 1, 256), p, nPredict, depths[i], 256, false)
		if msg := sameCycles(runs[i].cycles, solo.cycles); msg != "" {
			t.Fatalf("sequence %d together differs from alone: %s", i, msg)
		}
		if runs[i].accepted == 0 {
			t.Fatalf("sequence %d accepted nothing", i)
		}
	}
}

// TestContinuedPrompt reuses a sequence for a new prompt that shares a
// prefix with what it held (the target keeps that prefix, as a server's
// prompt cache does): the strategy must draft exactly as a fresh one does
// on the new prompt, since the kept prefix's pairs and the feature of its
// last position are still valid.
func TestContinuedPrompt(t *testing.T) {
	target := model(t, "stories260K-f32.gguf")
	dm := drafter(t, "stories260K-eagle3-f32.gguf")
	const nMax = 3
	first := []int32{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421}
	s := newStrategy(t, target, dm, nMax, 1, 256)
	sess := newTapped(t, target.Model, s.Layers(), engine.SessionOptions{NCtx: 256, NBatch: 64, Threads: 1})
	r := prefill(t, sess, s, 0, first, 0)
	lockstep(t, sess, s, []*seqRun{r}, 1000, nMax, 8)
	keep := len(r.history) - 5
	next := append(append([]int32(nil), r.history[:keep]...), 385, 328, 432, 261, 376, 268)
	if err := sess.Truncate(0, keep); err != nil {
		t.Fatal(err)
	}
	cont := prefill(t, sess, s, 0, next, keep)
	lockstep(t, sess, s, []*seqRun{cont}, 40, nMax, 0)
	fresh := mainlineLoop(t, target, newStrategy(t, target, dm, nMax, 1, 256), next, 40, nMax, 256, false)
	if msg := sameCycles(cont.cycles, fresh.cycles); msg != "" {
		t.Fatalf("continued prompt differs from a fresh run: %s", msg)
	}
}

// TestUnseenPositions gives the strategy a sequence whose first positions
// it never saw committed (decoded outside speculation): it must still
// draft (those positions pair with zero features), and its drafts are
// verified as usual.
func TestUnseenPositions(t *testing.T) {
	target := model(t, "stories260K-f32.gguf")
	dm := drafter(t, "stories260K-eagle3-f32.gguf")
	const nMax = 3
	prompt := []int32{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421}
	s := newStrategy(t, target, dm, nMax, 1, 256)
	sess := newTapped(t, target.Model, s.Layers(), engine.SessionOptions{NCtx: 256, NBatch: 64, Threads: 1})
	var b engine.Batch
	for i, tok := range prompt[:6] { // decoded without telling the strategy
		b.Add(tok, int32(i), 0, true)
	}
	if err := sess.Decode(&b); err != nil {
		t.Fatal(err)
	}
	r := prefill(t, sess, s, 0, prompt, 6)
	lockstep(t, sess, s, []*seqRun{r}, 40, nMax, 0)
	solo := mainlineLoop(t, target, newStrategy(t, target, dm, nMax, 1, 256), prompt, 40, nMax, 256, false)
	if r.drafted == 0 || r.accepted == 0 {
		t.Fatalf("drafted %d accepted %d after unseen positions", r.drafted, r.accepted)
	}
	want := solo.history(prompt)
	if n := min(len(r.history), len(want)); fmt.Sprint(r.history[:n]) != fmt.Sprint(want[:n]) {
		t.Fatalf("output differs from plain greedy:\n%v\n%v", r.history, want)
	}
	t.Logf("drafted %d accepted %d (fully seen: %d %d)", r.drafted, r.accepted, solo.drafted, solo.accepted)
}

// history is the committed sequence of a run of prompt.
func (r *run) history(prompt []int32) []int32 {
	h := append([]int32(nil), prompt[:len(prompt)-1]...)
	for _, c := range r.cycles {
		h = append(append(h, c.idLast), c.targetIDs[:len(c.targetIDs)-1]...)
	}
	return h
}
