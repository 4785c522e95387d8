package server

import (
	"slices"
	"strings"
	"testing"
)

// TestContextShift: with --context-shift a request asking for more tokens
// than its slot's context holds gets them all and "truncated": true;
// without it, it stops at the context with stop_type "limit". ignore_eos
// is not a request field here, so the test picks a prompt whose greedy
// continuation on the demo network does not hit EOS (checked below).
func TestContextShift(t *testing.T) {
	const nCtx, nPredict = 48, 100
	shifted := newTestServer(t, func(c *Config) { c.ContextShift = true; c.Parallel = 1; c.CtxSize = nCtx })
	m := shifted.complete(t, slotPrompt, nPredict, `,"n_keep":2`)
	if m["stop_type"] == "eos" {
		t.Skip("the demo network emitted EOS; pick another prompt")
	}
	if numAt(t, m, "tokens_predicted") != nPredict || m["truncated"] != true || m["stop_type"] != "limit" {
		t.Fatalf("with context shift: predicted %v, truncated %v, stop %v", m["tokens_predicted"], m["truncated"], m["stop_type"])
	}
	if n := shifted.sess.SeqLen(0); n >= nCtx || n == 0 {
		t.Fatalf("the slot holds %d positions, its context is %d", n, nCtx)
	}

	plain := newTestServer(t, func(c *Config) { c.Parallel = 1; c.CtxSize = nCtx })
	m = plain.complete(t, slotPrompt, nPredict, "")
	if got := numAt(t, m, "tokens_predicted"); got >= nPredict || m["truncated"] != false || m["stop_type"] != "limit" {
		t.Fatalf("without context shift: predicted %d, truncated %v, stop %v", got, m["truncated"], m["stop_type"])
	}

	// Unlimited generation still stops at the context (llama-server's
	// guard against endless generation with context shift).
	m = shifted.complete(t, slotPrompt, -1, "")
	if m["stop_type"] != "eos" && numAt(t, m, "tokens_evaluated")+numAt(t, m, "tokens_predicted") > nCtx {
		t.Fatalf("n_predict -1 ran past the context: %v", m)
	}

	for _, bad := range []string{`,"n_keep":-2`, `,"n_discard":-1`} {
		code, m := shifted.post(t, "/completion", jsonf(`{"prompt":"hi","n_predict":2%s}`, bad))
		if code != 400 || !strings.Contains(errorOf(t, m)["message"].(string), "n_") {
			t.Fatalf("%s: %d %v", bad, code, m)
		}
	}
}

// TestShiftContextKeeps: the scheduler keeps n_keep tokens plus BOS
// (n_keep -1: the prompt, plus BOS, as llama-server) and drops half of the
// rest, or n_discard; the slot's tokens and the session stay in step.
func TestShiftContextKeeps(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.ContextShift = true; c.Parallel = 1; c.CtxSize = 64 })
	toks := ts.cfg.Tokenizer.Encode(slotPrompt, true, false)
	n := len(toks) // 1 BOS + the words
	for _, tc := range []struct{ keep, discard, wantKeep, wantDrop int }{
		{0, 0, 1, (n - 1) / 2},
		{3, 0, 4, (n - 4) / 2},
		{2, 5, 3, 5},
		{2, 1000, 3, n - 3},
		{-1, 0, 6, (n - 6) / 2}, // the task's prompt is 5 tokens
		{n, 0, n, 0},            // nothing to drop: the task must end
	} {
		var ok bool
		var got []int32
		ts.control(func() {
			s, sl := ts.sched, ts.sched.slots[0]
			s.dropCache(sl)
			s.batch.Reset()
			for i, tok := range toks {
				s.batch.Add(tok, int32(i), 0, false)
			}
			if err := s.sess.Decode(&s.batch); err != nil {
				t.Error(err)
				return
			}
			sl.cached = append(sl.cached[:0], toks...)
			sl.t = &task{prompt: toks[:5], nKeep: tc.keep, nDiscard: tc.discard}
			ok = s.shiftContext(sl)
			sl.t = nil
			got = append([]int32(nil), sl.cached...)
			if s.sess.SeqLen(0) != len(sl.cached) {
				t.Errorf("session holds %d positions, the slot %d tokens", s.sess.SeqLen(0), len(sl.cached))
			}
		})
		want := append(append([]int32(nil), toks[:tc.wantKeep]...), toks[tc.wantKeep+tc.wantDrop:]...)
		if ok != (tc.wantDrop > 0) || !slices.Equal(got, want) {
			t.Fatalf("n_keep %d n_discard %d: ok %v, tokens %v, want %v", tc.keep, tc.discard, ok, got, want)
		}
	}
}
