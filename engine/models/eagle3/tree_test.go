package eagle3_test

import (
	"math"
	"testing"

	"github.com/waggle-llm/waggle/engine"
)

// TestTreeBatchIsItsPaths decodes a tree batch on the drafter — a root
// and two branches, one two deep — after a shared prefix, and each
// root-to-node path as ordinary tokens on a sequence of its own: every
// node's logits and state must have exactly the bits of its path's last
// token (a node attends to the prefix and its ancestors only, rotated at
// its depth).
func TestTreeBatchIsItsPaths(t *testing.T) {
	target := model(t, "synth-llama-tiny-f32.gguf")
	m := drafterModel(t, "synth-eagle3-llama-tiny-accept-f32.gguf")
	dr, err := m.Bind(target.Model, engine.SessionOptions{NCtx: 64, NSeq: 4, NBatch: 16, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := m.Features().NEmbd
	feat := func(seed int) []float32 {
		g := make([]float32, d)
		for i := range g {
			g[i] = float32(math.Sin(float64(seed*31 + i)))
		}
		return g
	}
	prefix := []int32{403, 407, 261, 378}
	// Tree after the prefix: root r, children a and b, c under a.
	toks := []int32{336, 7, 149, 299}
	parents := []int32{-1, 0, 0, 1}
	paths := [][]int{{0}, {0, 1}, {0, 2}, {0, 1, 3}}
	var b engine.Batch
	var g []float32
	for seq := range 4 {
		b.Reset()
		g = g[:0]
		for i, tok := range prefix {
			b.Add(tok, int32(i), int32(seq), false)
			g = append(g, feat(i)...)
		}
		if err := dr.Decode(&b, g); err != nil {
			t.Fatal(err)
		}
	}
	b.Reset()
	g = g[:0]
	for i, tok := range toks {
		b.AddNode(tok, int32(len(prefix)+i), 0, parents[i], true)
		g = append(g, feat(100+i)...)
	}
	if err := dr.Decode(&b, g); err != nil {
		t.Fatal(err)
	}
	treeLogits := make([][]float32, len(toks))
	treeNext := make([][]float32, len(toks))
	for k := range toks {
		treeLogits[k] = append([]float32(nil), dr.Logits(k)...)
		treeNext[k] = append([]float32(nil), dr.Next(k)...)
	}
	for node, path := range paths {
		seq := int32(node)
		if node == 0 {
			seq = 1 // the root alone, on sequence 1
		}
		b.Reset()
		g = g[:0]
		for depth, i := range path {
			b.Add(toks[i], int32(len(prefix)+depth), seq, depth == len(path)-1)
			g = append(g, feat(100+i)...)
		}
		if err := dr.Decode(&b, g); err != nil {
			t.Fatal(err)
		}
		for i, v := range dr.Logits(0) {
			if math.Float32bits(v) != math.Float32bits(treeLogits[node][i]) {
				t.Fatalf("node %d: logit %d is %v in the tree, %v along its path", node, i, treeLogits[node][i], v)
			}
		}
		for i, v := range dr.Next(0) {
			if math.Float32bits(v) != math.Float32bits(treeNext[node][i]) {
				t.Fatalf("node %d: state %d is %v in the tree, %v along its path", node, i, treeNext[node][i], v)
			}
		}
		if err := dr.Truncate(int(seq), len(prefix)); err != nil {
			t.Fatal(err)
		}
	}
}
