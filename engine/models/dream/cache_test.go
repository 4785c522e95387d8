package dream

import (
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
)

// denoiseAll runs one Denoise of canvas on sequence 0 and returns the
// logits of every canvas position.
func denoiseAll(t *testing.T, d *denoiser, canvas []int32) [][]float32 {
	t.Helper()
	out := make([][]float32, len(canvas))
	err := d.Denoise([]engine.Canvas{{Seq: 0, Tokens: canvas}}, func(k, i int, logits []float32) {
		out[i] = slices.Clone(logits)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCachePrefix: with CachePrefix the first step after SetPrefix is the
// full forward; a later step forwards only the canvas (and, with shifted
// logits, the last prefix row, which predicts the first canvas position)
// against the cached prefix rows, and gives the full forward's bits while
// the canvas is the one the cache was made with. After the canvas changes
// the cached prefix is stale (the approximation Dream and LLaDA accept
// for the speed) and the logits differ from the full forward's (on these
// random-weight fixtures by up to about 8).
func TestCachePrefix(t *testing.T) {
	for _, stem := range diffusionFixtures {
		t.Run(stem, func(t *testing.T) {
			l, g := loadFixture(t, stem)
			c := &g.Cases[2] // chat prompt + a final canvas
			prefix, canvas := c.InputIDs[:c.NPrompt], c.InputIDs[c.NPrompt:]
			exact := newDenoiser(t, l.Model, engine.DenoiserOptions{NCtx: 128, Threads: 2})
			cached := newDenoiser(t, l.Model, engine.DenoiserOptions{NCtx: 128, Threads: 2, CachePrefix: true})
			for _, d := range []*denoiser{exact, cached} {
				if err := d.SetPrefix(0, prefix); err != nil {
					t.Fatal(err)
				}
			}
			want := denoiseAll(t, exact, canvas)
			for step := range 2 {
				got := denoiseAll(t, cached, canvas)
				for i := range got {
					if !slices.Equal(got[i], want[i]) {
						t.Fatalf("step %d, canvas position %d: cached logits differ from the full forward's", step, i)
					}
				}
			}
			wantRows := len(canvas)
			if cached.m.diff.ShiftLogits {
				wantRows++
			}
			if len(cached.rows.tokens) != wantRows {
				t.Fatalf("a cached step forwarded %d rows, want %d", len(cached.rows.tokens), wantRows)
			}
			moved := slices.Clone(canvas)
			for i := range moved[:len(moved)/2] {
				moved[i] = 512 // mask half of it again
			}
			want, got := denoiseAll(t, exact, moved), denoiseAll(t, cached, moved)
			worst := 0.0
			for i := range got {
				for v := range got[i] {
					worst = max(worst, float64(abs(got[i][v]-want[i][v])))
				}
			}
			if worst == 0 {
				t.Fatal("after the canvas changed, the cached step still equals the full forward: the prefix was recomputed")
			}
			t.Logf("stale prefix after masking half the canvas: max |Δlogit| %.3g", worst)
		})
	}
}

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
