package qwen35_test

import (
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
)

// TestTapsEveryToken: on the hybrids, taps cover every token of a batch
// (DeltaNet and attention layers alike); a batch captures the same rows as
// token-by-token decoding (per-token delta path: 40 tokens); a
// layer-output tap equals CaptureLayers' hidden state; the logits do not
// change.
func TestTapsEveryToken(t *testing.T) {
	for _, name := range []string{denseF32, moeF32} {
		l := loadModel(t, name)
		nl, e := l.Model.Info().NLayer, l.Model.Info().NEmbd
		taps := []engine.Tap{engine.LayerInput(0), engine.LayerOutput(2), engine.LayerOutput(3), engine.LayerOutput(nl - 1)}
		toks := tokens(40, 7)
		batch := newSession(t, l, engine.SessionOptions{Taps: taps, CaptureLayers: []int{3}})
		var b engine.Batch
		for i, tok := range toks {
			b.Add(tok, int32(i), 0, i == len(toks)-1)
		}
		if err := batch.Decode(&b); err != nil {
			t.Fatal(err)
		}
		rows := make([][]float32, len(toks))
		for i := range toks {
			rows[i] = slices.Clone(batch.(engine.Tapper).Tapped(i))
			if len(rows[i]) != len(taps)*e {
				t.Fatalf("%s token %d: %d values captured", name, i, len(rows[i]))
			}
		}
		if d := maxDiff(rows[len(toks)-1][2*e:3*e], batch.Hidden(3, 0)); d != 0 {
			t.Fatalf("%s: LayerOutput(3) differs from Hidden(3) by %g", name, d)
		}
		one := newSession(t, l, engine.SessionOptions{Taps: taps})
		plain := newSession(t, l, engine.SessionOptions{})
		for i, tok := range toks {
			decode(t, one, 0, []int32{tok}, i)
			decode(t, plain, 0, []int32{tok}, i)
			if d := maxDiff(one.(engine.Tapper).Tapped(0), rows[i]); d != 0 {
				t.Fatalf("%s token %d: one-token capture differs from the batch's by %g", name, i, d)
			}
			if d := maxDiff(one.Logits(0), plain.Logits(0)); d != 0 {
				t.Fatalf("%s token %d: taps changed the logits by %g", name, i, d)
			}
		}
		if maxDiff(rows[5][e:2*e], rows[5][2*e:3*e]) == 0 {
			t.Fatalf("%s: the outputs of a DeltaNet and an attention layer are equal", name)
		}
	}
}
