// Package treetest checks an engine.TreeSession implementation: a tree
// batch must give every node the logits (and captured taps) of its path
// decoded as ordinary tokens, bit for bit, and KeepPath must leave the
// cache that decoding the kept path would have left. Model packages run it
// on their fixtures.
package treetest

import (
	"math"
	"slices"
	"testing"

	"github.com/waggle-llm/waggle/engine"
)

// Parents is the tree the check verifies: the parent of nodes 1…8 (0 is
// the root). Node 1-2-3 is the first chain (stored right after the root,
// as DDTree stores its main chain), 4 a second child of the root, 5 and 8
// branches below the chain, 6 and 7 grandchildren off the chain.
var Parents = []int{0, 1, 2, 0, 1, 5, 4, 2}

// Paths are the node paths KeepPath is checked on (root excluded): the
// first chain, a path leaving it, one that starts off it, the root alone.
var Paths = [][]int{{1, 2, 3}, {1, 5, 6}, {4, 7}, {}}

// Check runs the tree checks on m with session options o (NSeq ≥ 2),
// after a prompt on sequence 0 and another on sequence 1. tokens are the
// root's and the nodes' tokens (len(Parents)+1 ids). The batch also holds
// one ordinary token of sequence 1, before the tree, to show that the two
// do not mix.
func Check(t *testing.T, m engine.Model, o engine.SessionOptions, prompt, prompt1, tokens []int32) {
	t.Helper()
	s := newSession(t, m, o)
	decode(t, s, 0, prompt, 0)
	decode(t, s, 1, prompt1, 0)
	n0 := len(prompt)
	b := treeBatch(tokens, n0, int32(len(prompt1)), prompt1[0])
	if err := s.Decode(b); err != nil {
		t.Fatalf("tree batch: %v", err)
	}
	got := make([][]float32, b.Len())
	taps := make([][]float32, b.Len())
	for i := range b.Len() {
		got[i] = slices.Clone(s.Logits(i))
		if tp, ok := s.(engine.Tapper); ok {
			taps[i] = slices.Clone(tp.Tapped(i))
		}
	}
	want, wantTaps := reference(t, m, o, append(slices.Clone(prompt1), prompt1[0]))
	same(t, "sequence 1's ordinary token", got[0], want, taps[0], wantTaps)
	for k := 0; k <= len(Parents); k++ {
		want, wantTaps := reference(t, m, o, append(slices.Clone(prompt), pathTokens(tokens, k)...))
		same(t, "tree node "+itoa(k), got[1+k], want, taps[1+k], wantTaps)
	}
	next := prompt1[1]
	for _, p := range Paths {
		s := newSession(t, m, o)
		decode(t, s, 0, prompt, 0)
		decode(t, s, 1, prompt1, 0)
		if err := s.Decode(treeBatch(tokens, n0, int32(len(prompt1)), prompt1[0])); err != nil {
			t.Fatal(err)
		}
		pos := make([]int32, len(p))
		toks := append(slices.Clone(prompt), tokens[0])
		for j, node := range p {
			pos[j] = int32(n0 + node)
			toks = append(toks, tokens[node])
		}
		if err := s.(engine.TreeSession).KeepPath(0, n0, pos); err != nil {
			t.Fatalf("KeepPath %v: %v", p, err)
		}
		if got := s.SeqLen(0); got != n0+1+len(p) {
			t.Fatalf("KeepPath %v: sequence holds %d positions, want %d", p, got, n0+1+len(p))
		}
		decode(t, s, 0, []int32{next}, s.SeqLen(0))
		want, wantTaps := reference(t, m, o, append(toks, next))
		var tp []float32
		if tr, ok := s.(engine.Tapper); ok {
			tp = tr.Tapped(0)
		}
		same(t, "token after KeepPath "+pathName(p), s.Logits(0), want, tp, wantTaps)
	}
	s = newSession(t, m, o)
	decode(t, s, 0, prompt, 0)
	if err := s.Decode(treeBatch(tokens, n0, -1, 0)); err != nil {
		t.Fatal(err)
	}
	ts := s.(engine.TreeSession)
	for _, bad := range [][]int32{{int32(n0 + 2), int32(n0 + 1)}, {int32(n0 + 20)}, {int32(n0)}} {
		if err := ts.KeepPath(0, n0, bad); err == nil {
			t.Fatalf("KeepPath accepted path %v", bad)
		}
	}
	for _, bad := range []*engine.Batch{badTree(n0, 0, 2), badTree(n0, 1, -2), orphanAfterTree(n0)} {
		s := newSession(t, m, o)
		decode(t, s, 0, prompt, 0)
		if err := s.Decode(bad); err == nil {
			t.Fatalf("tree batch with parents %v accepted", bad.Parent)
		}
	}
}

// treeBatch is [sequence 1's token (when pos1 ≥ 0), root, nodes…] with
// every token an output; the tree is stored from position n0 of sequence 0.
func treeBatch(tokens []int32, n0 int, pos1, tok1 int32) *engine.Batch {
	var b engine.Batch
	off := int32(0)
	if pos1 >= 0 {
		b.AddNode(tok1, pos1, 1, -1, true)
		off = 1
	}
	b.AddNode(tokens[0], int32(n0), 0, -1, true)
	for k, p := range Parents {
		b.AddNode(tokens[k+1], int32(n0+k+1), 0, off+int32(p), true)
	}
	return &b
}

// badTree has node k's parent replaced by p (a later token, or not -1).
func badTree(n0, k int, p int32) *engine.Batch {
	b := treeBatch([]int32{5, 6, 7, 8, 9, 10, 11, 12, 13}, n0, -1, 0)
	b.Parent[k] = p
	return b
}

// orphanAfterTree has an ordinary token after the tree's nodes.
func orphanAfterTree(n0 int) *engine.Batch {
	b := treeBatch([]int32{5, 6, 7, 8, 9, 10, 11, 12, 13}, n0, -1, 0)
	b.AddNode(14, int32(n0+len(Parents)+1), 0, -1, true)
	return b
}

// pathTokens returns the tokens of the root and node k's ancestors and k.
func pathTokens(tokens []int32, k int) []int32 {
	var rev []int32
	for ; k > 0; k = Parents[k-1] {
		rev = append(rev, tokens[k])
	}
	out := []int32{tokens[0]}
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
	}
	return out
}

// reference decodes toks as one ordinary batch on sequence 0 of a fresh
// session and returns the last token's logits and taps.
func reference(t *testing.T, m engine.Model, o engine.SessionOptions, toks []int32) ([]float32, []float32) {
	t.Helper()
	s := newSession(t, m, o)
	decode(t, s, 0, toks, 0)
	var tp []float32
	if tr, ok := s.(engine.Tapper); ok {
		tp = slices.Clone(tr.Tapped(len(toks) - 1))
	}
	return slices.Clone(s.Logits(0)), tp
}

func newSession(t *testing.T, m engine.Model, o engine.SessionOptions) engine.Session {
	t.Helper()
	s, err := m.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// decode runs toks from position start as one batch, the last an output.
func decode(t *testing.T, s engine.Session, seq int32, toks []int32, start int) {
	t.Helper()
	var b engine.Batch
	for i, tok := range toks {
		b.Add(tok, int32(start+i), seq, i == len(toks)-1)
	}
	if err := s.Decode(&b); err != nil {
		t.Fatal(err)
	}
}

// same fails unless the logits and taps are bit-identical.
func same(t *testing.T, what string, got, want, gotTaps, wantTaps []float32) {
	t.Helper()
	if d := maxDiff(got, want); d != 0 || len(got) != len(want) {
		t.Fatalf("%s: logits differ from its path decoded in order by %g", what, d)
	}
	if d := maxDiff(gotTaps, wantTaps); d != 0 || len(gotTaps) != len(wantTaps) {
		t.Fatalf("%s: taps differ from its path decoded in order by %g", what, d)
	}
}

func maxDiff(a, b []float32) float64 {
	d := 0.0
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			d = max(d, math.Abs(float64(a[i]-b[i])), math.SmallestNonzeroFloat64)
		}
	}
	return d
}

func itoa(k int) string {
	if k == 0 {
		return "0 (root)"
	}
	return string(rune('0' + k))
}

func pathName(p []int) string {
	out := "root"
	for _, k := range p {
		out += "-" + string(rune('0'+k))
	}
	return out
}
