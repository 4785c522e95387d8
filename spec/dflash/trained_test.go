package dflash_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// acceptance is goldens-trained-drafters/acceptance.json.
type acceptance struct {
	Meta struct {
		NPredict int `json:"n_predict"`
	} `json:"meta"`
	Prompts []struct {
		I      int              `json:"i"`
		IDs    []int32          `json:"ids"`
		DFlash map[string][]int `json:"dflash"`
	} `json:"prompts"`
}

// TestTrainedDrafterAcceptance runs the trained stories260K drafter on the
// prompts of goldens-trained-drafters (greedy, fixed depth 4 and 8, f32
// caches, 128 tokens, the prompts in order on one strategy so that the
// length adapter carries over as in BeeLlama's server): the drafted and
// accepted counts must be BeeLlama's on every prompt, and the output
// plain greedy decoding.
func TestTrainedDrafterAcceptance(t *testing.T) {
	dir := testenv.ModelsDir(t)
	data, err := os.ReadFile(testenv.Require(t, filepath.Join(dir, "goldens-trained-drafters", "acceptance.json")))
	if err != nil {
		t.Fatal(err)
	}
	var g acceptance
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	target := model(t, "stories260K-f32.gguf")
	drafter := load(t, filepath.Join(dir, "drafters", "stories260K-dflash-b16-f32.gguf")).Model
	const nctx = 512
	for _, depth := range []int{4, 8} {
		c := setup{nMax: depth, target: greedy(), nctx: nctx}
		sess := session(t, target, drafter, nctx)
		_, c.strat = newSpeculator(t, target, drafter, sess, c)
		sumGot, sumWant := 0, 0
		for _, p := range g.Prompts {
			ref := plain(t, target, p.IDs, g.Meta.NPredict, nctx)
			got, sl := generate(t, target, drafter, c, p.IDs, g.Meta.NPredict)
			if i := firstDiff(got, ref); i >= 0 {
				t.Fatalf("depth %d prompt %d: differs from plain greedy at token %d", depth, p.I, i)
			}
			want := p.DFlash[itoa(depth)]
			if sl.DraftN != want[0] || sl.DraftAccepted != want[1] {
				t.Errorf("depth %d prompt %d: drafted %d accepted %d, BeeLlama %d %d", depth, p.I, sl.DraftN, sl.DraftAccepted, want[0], want[1])
			}
			sumGot += sl.DraftAccepted
			sumWant += want[1]
		}
		t.Logf("depth %d: accepted %d, BeeLlama %d", depth, sumGot, sumWant)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
