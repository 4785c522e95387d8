package eagle3_test

import (
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/models/eagle3"
	"github.com/waggle-llm/waggle/gguf"
)

// renameKey renames metadata key from to to.
func renameKey(from, to string) func([]gguf.KV, map[string]*tensor) []gguf.KV {
	return func(kvs []gguf.KV, _ map[string]*tensor) []gguf.KV {
		for i := range kvs {
			if kvs[i].Key == from {
				kvs[i].Key = to
			}
		}
		return kvs
	}
}

// setKey replaces (or adds) metadata key.
func setKey(key string, v gguf.Value) func([]gguf.KV, map[string]*tensor) []gguf.KV {
	return func(kvs []gguf.KV, _ map[string]*tensor) []gguf.KV {
		for i := range kvs {
			if kvs[i].Key == key {
				kvs[i].Value = v
				return kvs
			}
		}
		return append(kvs, gguf.KV{Key: key, Value: v})
	}
}

func dropKey(key string) func([]gguf.KV, map[string]*tensor) []gguf.KV {
	return func(kvs []gguf.KV, _ map[string]*tensor) []gguf.KV {
		out := kvs[:0]
		for _, kv := range kvs {
			if kv.Key != key {
				out = append(out, kv)
			}
		}
		return out
	}
}

func renameTensor(from, to string) func([]gguf.KV, map[string]*tensor) []gguf.KV {
	return func(kvs []gguf.KV, ts map[string]*tensor) []gguf.KV {
		ts[to] = ts[from]
		delete(ts, from)
		return kvs
	}
}

// TestLoadErrors feeds files that must be refused, each with the words its
// error must contain.
func TestLoadErrors(t *testing.T) {
	target := model(t, "synth-llama-tiny-f32.gguf")
	tok := tokenizerKVs(target)
	cases := []struct {
		name string
		edit func([]gguf.KV, map[string]*tensor) []gguf.KV
		mod  func(*spec)
		want string
	}{
		{name: "pre-merge extract_layers", edit: renameKey("eagle3.target_layers", "eagle3.extract_layers"), want: "preceded llama.cpp's merged support"},
		{name: "pre-merge hidden_norm", edit: renameTensor("blk.0.attn_norm_2.weight", "blk.0.hidden_norm.weight"), want: "preceded llama.cpp's merged support"},
		{name: "two target layers", edit: setKey("eagle3.target_layers", gguf.Int32sValue([]int32{1, 2})), want: "exactly 3"},
		{name: "negative target layer", edit: setKey("eagle3.target_layers", gguf.Int32sValue([]int32{1, -2, 3})), want: "holds layer"},
		{name: "two blocks", edit: setKey("eagle3.block_count", gguf.Uint32Value(2)), want: "exactly one decoder block"},
		{name: "no target hidden size", edit: dropKey("eagle3.target_hidden_size"), want: "target_hidden_size"},
		{name: "no epsilon", edit: dropKey("eagle3.attention.layer_norm_rms_epsilon"), want: "layer_norm_rms_epsilon"},
		{name: "fc_norm and norm_before_fc", mod: func(s *spec) { s.fcNorm = true }, edit: setKey("eagle3.norm_before_fc", gguf.BoolValue(true)), want: "both set"},
		{name: "enc norm without its key", mod: func(s *spec) { s.normBeforeFC = true }, edit: setKey("eagle3.norm_before_fc", gguf.BoolValue(false)), want: "neither"},
		{name: "fc_norm weights without the key", mod: func(s *spec) { s.fcNorm = true }, edit: dropKey("eagle3.fc_norm"), want: "neither"},
		{name: "non-boolean flag", edit: setKey("eagle3.norm_before_residual", gguf.Uint32Value(1)), want: "not a boolean"},
		{name: "d2t without head", edit: func(kvs []gguf.KV, ts map[string]*tensor) []gguf.KV {
			delete(ts, "output.weight")
			return kvs
		}, want: "without an own output head"},
		{name: "d2t duplicate ids", edit: func(kvs []gguf.KV, ts map[string]*tensor) []gguf.KV {
			raw := ts["d2t"].raw
			copy(raw[8:16], raw[0:8])
			return kvs
		}, want: "two draft ids"},
		{name: "d2t of floats", edit: func(kvs []gguf.KV, ts map[string]*tensor) []gguf.KV {
			ts["d2t"] = &tensor{dims: ts["d2t"].dims, f32: make([]float32, ts["d2t"].dims[0])}
			return kvs
		}, want: "want I64"},
		{name: "fc of the wrong width", edit: func(kvs []gguf.KV, ts map[string]*tensor) []gguf.KV {
			return setKey("eagle3.target_hidden_size", gguf.Uint32Value(128))(kvs, ts)
		}, want: "fc.weight"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp := baseSpec()
			if c.mod != nil {
				c.mod(&sp)
			}
			sp.edit = c.edit
			_, err := engine.LoadBytes(build(t, sp, tok).data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestBindErrors binds drafters to targets they do not fit.
func TestBindErrors(t *testing.T) {
	target := model(t, "synth-llama-tiny-f32.gguf")
	shared := target.Model
	tok := tokenizerKVs(target)
	cases := []struct {
		name   string
		mod    func(*spec)
		target engine.Model
		want   string
	}{
		{name: "hidden size", mod: func(s *spec) {
			s.edit = setKey("eagle3.target_hidden_size", gguf.Uint32Value(128))
			s.edit = chain(s.edit, func(kvs []gguf.KV, ts map[string]*tensor) []gguf.KV {
				ts["fc.weight"].dims[0] = 3 * 128
				ts["fc.weight"].f32 = ts["fc.weight"].f32[:3*128*int(ts["fc.weight"].dims[1])]
				return kvs
			})
		}, target: shared, want: "hidden size 128"},
		{name: "layer past the target", mod: func(s *spec) { s.layers = []int32{1, 2, 5} }, target: shared, want: "layer 5"},
		{name: "vocabulary", mod: func(s *spec) { s.edit = setKey("eagle3.vocab_size", gguf.Uint32Value(1000)) }, target: shared, want: "1000 tokens"},
		{name: "borrowing from a target that does not share", target: nil, want: "does not share"},
		{name: "full head of another vocabulary", mod: func(s *spec) {
			s.d2t = false
			s.edit = func(kvs []gguf.KV, ts map[string]*tensor) []gguf.KV {
				ts["output.weight"].dims[1] = 100
				ts["output.weight"].f32 = ts["output.weight"].f32[:100*s.d]
				return kvs
			}
		}, target: shared, want: "without a d2t map"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp := baseSpec()
			if c.mod != nil {
				c.mod(&sp)
			}
			l, err := engine.LoadBytes(build(t, sp, tok).data)
			if err != nil {
				t.Fatal(err)
			}
			tgt := c.target
			if tgt == nil {
				tgt = target.Model // llama without SharedHead here: lends nothing
				if _, ok := tgt.(interface {
					SharedHead() (*engine.Matrix, *engine.Matrix)
				}); ok {
					tgt = struct{ engine.Model }{target.Model}
				}
			}
			_, err = l.Model.(*eagle3.Model).Bind(tgt, engine.SessionOptions{NCtx: 32})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func chain(a, b func([]gguf.KV, map[string]*tensor) []gguf.KV) func([]gguf.KV, map[string]*tensor) []gguf.KV {
	return func(kvs []gguf.KV, ts map[string]*tensor) []gguf.KV { return b(a(kvs, ts), ts) }
}

// TestSessionRefused: the drafter has no session of its own.
func TestSessionRefused(t *testing.T) {
	m := drafterModel(t, "synth-eagle3-llama-tiny-f32.gguf")
	if _, err := m.NewSession(engine.SessionOptions{}); err == nil || !strings.Contains(err.Error(), "target") {
		t.Fatalf("NewSession: %v", err)
	}
	if fi := m.Features(); fi.TargetEmbd != 256 || fi.NEmbd != 256 || len(fi.Layers) != 3 || fi.Layers[2] != 3 {
		t.Fatalf("Features %+v", fi)
	}
	if m.Info().NVocab != 128 {
		t.Fatalf("draft vocabulary %d, want 128", m.Info().NVocab)
	}
}
