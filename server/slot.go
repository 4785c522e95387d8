package server

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/waggle-llm/waggle/engine/chat"
	"github.com/waggle-llm/waggle/spec"
)

// slot is one KV sequence and the task running in it.
type slot struct {
	id       int
	cached   []int32 // tokens held in the KV sequence
	lastUsed time.Time

	t          *task
	admitted   uint64  // admission number of t (prompts are read oldest first)
	pending    []int32 // prompt tokens still to evaluate
	generating bool
	last       int32 // sampled, not yet evaluated
	nGen       int
	text       []byte // generated text so far
	sent       int    // bytes of text already reported
	forced     []int32
	thinking   bool
	thinkN     int
	probs      []tokenLogprobs
	tokens     []int32 // generated, not yet reported
	cachedN    int
	t0, tGen   time.Time
	promptMS   float64
	truncated  bool // a context shift dropped tokens of this task

	// spec is the slot's speculative sequence, kept across requests so its
	// depth controller keeps learning; specOn marks a task that runs
	// through the Speculator.
	spec   spec.Slot
	specOn bool
	// guard is the reasoning loop guard (slot_loopguard.go).
	guard slotGuard
}

func (sl *slot) start(t *task, keep int) {
	sl.t = t
	sl.cached = sl.cached[:keep]
	sl.pending = t.prompt[keep:]
	sl.generating = false
	sl.nGen, sl.sent, sl.thinkN = 0, 0, 0
	sl.text = sl.text[:0]
	sl.tokens = sl.tokens[:0]
	sl.forced = nil
	sl.thinking = t.inThink
	sl.cachedN = keep
	sl.t0 = time.Now()
	sl.specOn = t.specOn
	sl.truncated = false
	sl.guard.start(t)
}

// draftN and draftAccepted are the task's speculative counters (0 on the
// plain path).
func (sl *slot) draftN() int {
	if !sl.specOn {
		return 0
	}
	return sl.spec.DraftN
}

func (sl *slot) draftAccepted() int {
	if !sl.specOn {
		return 0
	}
	return sl.spec.DraftAccepted
}

// sampleSlot picks the slot's next token from its logits (or the next
// forced one) and hands it to emitToken.
func (s *scheduler) sampleSlot(sl *slot, logits []float32) {
	t := sl.t
	var tok int32
	if len(sl.forced) > 0 {
		tok, sl.forced = sl.forced[0], sl.forced[1:]
		sl.guard.forced = true
	} else {
		tok = t.smp.Sample(logits)
	}
	t.smp.Accept(tok)
	if s.grammarFailed(sl) {
		return
	}
	s.emitToken(sl, tok, logits)
}

// emitToken records tok (already accepted by the sampler) as the slot's
// newest token, reports the text it completes and ends the task on an
// end-of-generation token, a stop word, the token limit or a full context.
// logits (nil on the speculative path) feed logprobs. It returns false
// when the task ended.
func (s *scheduler) emitToken(sl *slot, tok int32, logits []float32) bool {
	t := sl.t
	if !sl.generating {
		sl.generating = true
		sl.tGen = time.Now()
		sl.promptMS = msBetween(sl.t0, sl.tGen)
		s.metrics.prompt(len(t.prompt)-sl.cachedN, sl.promptMS)
	}
	sl.nGen++
	sl.last = tok
	sl.tokens = append(sl.tokens, tok) // until reported: text may be held back
	sl.probs = sl.probs[:0]
	if t.logprobs && logits != nil {
		sl.probs = append(sl.probs, logprobsOf(s.tok, logits, tok, t.nProbs))
	}
	if s.tok.IsEOG(tok) {
		s.finish(sl, "stop", "eos", "", len(sl.text))
		return false
	}
	before := len(sl.text)
	sl.text = append(sl.text, s.pieceOf(t, tok)...)
	if cut, word := findStop(sl.text, before, t.stops); cut >= 0 {
		s.finish(sl, "stop", "word", word, cut)
		return false
	}
	s.trackThinking(sl, tok)
	if sl.nGen >= t.nPredict || (len(sl.cached)+1 >= s.nCtx && !s.shiftContext(sl)) {
		s.finish(sl, "length", "limit", "", len(sl.text))
		return false
	}
	if s.checkLoop(sl, tok) {
		return false
	}
	safe := len(sl.text) - max(chat.PartialSuffix(string(sl.text[sl.sent:]), t.stops), incompleteTail(sl.text))
	if safe > sl.sent || len(sl.probs) > 0 {
		ev := event{text: string(sl.text[sl.sent:max(safe, sl.sent)]), slot: sl.id, predictedN: sl.nGen,
			promptN: len(t.prompt) - sl.cachedN, cachedN: sl.cachedN}
		ev.probs = append([]tokenLogprobs(nil), sl.probs...)
		ev.tokens = append([]int32(nil), sl.tokens...)
		sl.sent = max(safe, sl.sent)
		sl.tokens = sl.tokens[:0]
		t.send(ev)
	}
	return true
}

// trackThinking counts tokens inside <think>…</think> and, past the
// reasoning budget, forces the closing tag, as llama.cpp's
// --reasoning-budget does.
func (s *scheduler) trackThinking(sl *slot, tok int32) {
	t := sl.t
	tail := string(sl.text[max(0, len(sl.text)-32):])
	switch {
	case !sl.thinking && sl.nGen <= 4 && strings.Contains(string(sl.text), chat.ThinkOpen):
		sl.thinking = true
	case sl.thinking && strings.Contains(tail, chat.ThinkClose):
		sl.thinking = false
	case sl.thinking:
		sl.thinkN++
		if t.thinkBudget >= 0 && sl.thinkN >= t.thinkBudget && len(sl.forced) == 0 && len(t.closeThink) > 0 {
			sl.forced = append(sl.forced, t.closeThink...)
			sl.thinking = false
		}
	}
}

// finish reports the rest of the text up to end and frees the slot.
func (s *scheduler) finish(sl *slot, reason, stopType, word string, end int) {
	t := sl.t
	end = max(end, sl.sent)
	genMS := msBetween(sl.tGen, time.Now())
	s.metrics.generated(sl.nGen, genMS)
	t.send(event{
		text: string(sl.text[sl.sent:end]), tokens: append([]int32(nil), sl.tokens...),
		probs: append([]tokenLogprobs(nil), sl.probs...),
		done:  true, finish: reason, stopType: stopType, stopWord: word, slot: sl.id,
		stopDetail: sl.stopDetail(stopType), loop: sl.guard.report,
		promptN: len(t.prompt) - sl.cachedN, cachedN: sl.cachedN, predictedN: sl.nGen,
		promptMS: sl.promptMS, genMS: genMS, draftN: sl.draftN(), draftAccepted: sl.draftAccepted(),
		truncated: sl.truncated, reasoningN: sl.thinkN,
	})
	s.release(sl)
}

// findStop looks for a stop word that ends after byte from of text and
// returns where the earliest one starts.
func findStop(text []byte, from int, stops []string) (int, string) {
	cut, word := -1, ""
	for _, w := range stops {
		start := max(0, from-len(w)+1)
		if i := strings.Index(string(text[start:]), w); i >= 0 && (cut < 0 || start+i < cut) {
			cut, word = start+i, w
		}
	}
	return cut, word
}

// incompleteTail is the length of an unfinished UTF-8 character at the end
// of b (held back until its last byte arrives).
func incompleteTail(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c&0xC0 == 0x80 {
			continue // continuation byte: look further back
		}
		if c >= 0xC0 && !utf8.FullRune(b[len(b)-n:]) {
			return n
		}
		return 0
	}
	return 0
}

// logprobsOf computes log-softmax of the raw logits (llama.cpp's n_probs
// reports the model's distribution before sampling) for tok and the top n.
func logprobsOf(tk Tokenizer, logits []float32, tok int32, n int) tokenLogprobs {
	mx := float32(math.Inf(-1))
	for _, l := range logits {
		mx = max(mx, l)
	}
	var sum float64
	for _, l := range logits {
		sum += math.Exp(float64(l - mx))
	}
	lse := float64(mx) + math.Log(sum)
	lp := func(id int32) tokenProb {
		v := float64(logits[id]) - lse
		if math.IsInf(v, 0) || math.IsNaN(v) {
			v = -9999 // JSON has no -Inf
		}
		return tokenProb{ID: id, Text: tk.Piece(id, false), Logprob: float32(v)}
	}
	out := tokenLogprobs{tokenProb: lp(tok)}
	for _, id := range topN(logits, n) {
		out.Top = append(out.Top, lp(id))
	}
	return out
}

// topN returns the ids of the n largest logits, largest first (ties: lower id).
func topN(logits []float32, n int) []int32 {
	n = min(n, len(logits))
	top := make([]int32, 0, n+1)
	for id := range logits {
		i := len(top)
		for i > 0 && logits[top[i-1]] < logits[id] {
			i--
		}
		if i >= n {
			continue
		}
		top = append(top, 0)
		copy(top[i+1:], top[i:])
		top[i] = int32(id)
		if len(top) > n {
			top = top[:n]
		}
	}
	return top
}

func msBetween(a, b time.Time) float64 { return float64(b.Sub(a).Microseconds()) / 1000 }
