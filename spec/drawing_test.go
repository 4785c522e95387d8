package spec_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine/sample"
	"github.com/waggle-llm/waggle/spec"
)

// Chains that draw inside (Mirostat, XTC, adaptive-p) have no
// Distribution to judge drafts by; verification samples each row as plain
// decoding would and compares, so with one seed the output is plain
// decoding's token for token, whatever the drafts.
func TestDrawingChainsEqualPlain(t *testing.T) {
	l := loadDemo(t)
	prompt := l.Tokenizer.Encode(repeatText, true, true)
	const n, nctx = 48, 256
	chains := map[string]func(*sample.Params){
		"mirostat2": func(p *sample.Params) { p.Mirostat, p.MirostatTau = 2, 2 },
		"xtc":       func(p *sample.Params) { p.XTCProbability, p.XTCThreshold = 0.6, 0.05 },
		"adaptive": func(p *sample.Params) {
			p.AdaptiveTarget, p.Samplers = 0.4, []sample.Stage{sample.StageTopK, sample.StageTemperature, sample.StageAdaptiveP}
		},
	}
	for name, set := range chains {
		p := sample.DefaultParams()
		p.Seed, p.Temp = 5, 0.7
		set(&p)
		ref := plain(t, l, p, prompt, n, nctx)
		for _, strategy := range spec.Order {
			if strategy == "dflash" || strategy == "draft-eagle3" {
				continue // needs a drafter bound to the target: spec/dflash's and spec/eagle3's tests
			}
			got, _, err := speculative(t, l, p, corruptChain(t, l, strategy), prompt, n, nctx, nil, nil, false)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, strategy, err)
			}
			if i := equalTokens(got, ref); i >= 0 {
				t.Fatalf("%s/%s: differs from plain decoding at token %d:\n got %v\nwant %v", name, strategy, i, got, ref)
			}
		}
	}
}
