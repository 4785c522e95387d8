package qwen35_test

import (
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/golden"
)

// TestParityBatchFlash is TestParityBatch with flash attention on
// (SessionOptions.FlashAttn) for the dense f32 hybrid: every position
// within the golden's tolerance and no clear top-1 token changed; the
// logits differ somewhere from the exact path's, so the session did run
// the flash path.
func TestParityBatchFlash(t *testing.T) {
	pm := parityModels[0]
	l := loadModel(t, pm.stem+".gguf")
	g := loadGolden(t, pm.stem)
	var st golden.Stats
	differs := false
	for _, c := range g.Cases {
		s := newSession(t, l, engine.SessionOptions{FlashAttn: true})
		if !s.Options().FlashAttn {
			t.Fatal("session options lost FlashAttn")
		}
		decode(t, s, 0, c.Tokens, 0)
		st.Add(&c, s.Logits, pm.max)
		exact := newSession(t, l, engine.SessionOptions{})
		decode(t, exact, 0, c.Tokens, 0)
		for i := range c.Tokens {
			differs = differs || !slices.Equal(s.Logits(i), exact.Logits(i))
		}
	}
	if !differs {
		t.Error("flash logits are the exact path's bit for bit: the session did not run the flash path")
	}
	checkStats(t, &st, "one batch, flash", pm)
}
