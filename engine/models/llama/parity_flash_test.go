package llama_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kvcache"
)

// TestParityLogitsFlash is TestParityLogits with flash attention on
// (SessionOptions.FlashAttn, the online-softmax path) for a llama and a
// qwen3 model, on an f32 and an f16 cache: every position within the
// golden's tolerance (plus golden.F16CacheExtra for f16) and the clear
// top-1 tokens kept. The logits must also differ somewhere from the exact
// path's, which shows the session ran the flash path.
func TestParityLogitsFlash(t *testing.T) {
	for _, stem := range []string{"synth-llama3-tiny-q4_k_m", "synth-qwen3-spm-f32"} {
		for _, typ := range []kvcache.Type{kvcache.F32, kvcache.F16} {
			t.Run(stem+"/"+typ.String(), func(t *testing.T) {
				g, err := golden.Load(filepath.Join(testenv.ModelsDir(t), "goldens", stem+".json"))
				if err != nil {
					t.Fatal(err)
				}
				l := loadModel(t, stem+".gguf")
				tol := golden.Tolerance(l.File)
				if typ == kvcache.F16 {
					tol += golden.F16CacheExtra
				}
				differs := false
				var st golden.Stats
				for _, c := range g.Cases {
					flash := flashSession(t, l, typ, true)
					checkCaseSession(t, flash, &c, tol, &st)
					exact := flashSession(t, l, typ, false)
					decodeAll(t, exact, 0, c.Tokens, 0)
					for i := range c.Tokens {
						differs = differs || !slices.Equal(flash.Logits(i), exact.Logits(i))
					}
				}
				checkPooled(t, stem+"/flash/"+typ.String(), &st)
				if !differs {
					t.Error("flash logits are the exact path's bit for bit: the session did not run the flash path")
				}
			})
		}
	}
}

func flashSession(t *testing.T, l *engine.Loaded, typ kvcache.Type, flash bool) engine.Session {
	t.Helper()
	s, err := l.Model.NewSession(engine.SessionOptions{NCtx: 512, NBatch: 512, TypeK: typ, TypeV: typ, FlashAttn: flash})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
