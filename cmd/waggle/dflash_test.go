package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestRunDFlash: `waggle run --json` with a DFlash drafter (auto-detected
// from -md, flat and DDTree) prints exactly plain greedy decoding and
// reports draft_n and draft_n_accepted; a drafter without --spec-type
// dflash's model, or for another target, is refused clearly.
func TestRunDFlash(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	md := testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "drafters", "stories260K-dflash-b16-f32.gguf"))
	args := []string{"run", "-m", m, "--tokens", "1,403,407,261,378", "-n", "40", "--temp", "0", "--json"}
	plain, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	var a runResult
	if err := json.Unmarshal([]byte(plain), &a); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{
		{"-md", md, "--no-spec-dm-adaptive"},
		{"--spec-type", "dflash", "--spec-draft-model", md, "--spec-branch-budget", "6", "--spec-draft-top-k", "3"},
		{"-md", md, "--tree-budget", "20", "--spec-draft-n-max", "8", "--spec-draft-temp", "auto"},
	} {
		out, err := runCLI(t, append(slices.Clone(args), extra...)...)
		if err != nil {
			t.Fatalf("%v: %v", extra, err)
		}
		var b runResult
		if err := json.Unmarshal([]byte(out), &b); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Tokens, b.Tokens) {
			t.Fatalf("%v: %v\nplain: %v", extra, b.Tokens, a.Tokens)
		}
		if b.Timings.DraftN == 0 || b.Timings.DraftNAccepted == 0 {
			t.Errorf("%v: draft_n %d, draft_n_accepted %d", extra, b.Timings.DraftN, b.Timings.DraftNAccepted)
		}
	}
	wrong := testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "drafters", "synth-dflash-qwen3-f32.gguf"))
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--spec-type", "dflash"}, "needs a DFlash drafter"},
		{[]string{"-md", wrong}, "hidden states of 256 values"},
		{[]string{"-md", md, "--spec-draft-temp", "hot"}, "--spec-draft-temp"},
		{[]string{"-md", md, "--spec-draft-top-k", "0"}, "--spec-draft-top-k"},
	} {
		if _, err := runCLI(t, append(slices.Clone(args), c.extra...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one mentioning %q", c.extra, err, c.want)
		}
	}
}

// TestTreeBudgetConversion: the legacy --tree-budget gives
// max(0, T - draft max) branch nodes unless --spec-branch-budget is set.
func TestTreeBudgetConversion(t *testing.T) {
	for _, c := range []struct{ tree, branch, nmax, want int }{
		{-1, 0, 16, 0}, {-1, 5, 16, 5}, {24, 0, 16, 8}, {10, 0, 16, 0}, {24, 3, 16, 3},
	} {
		f := specFlags{TreeBudget: c.tree, BranchBudget: c.branch, DraftNMax: &c.nmax}
		if got := f.branchBudget(); got != c.want {
			t.Errorf("--tree-budget %d --spec-branch-budget %d --spec-draft-n-max %d: %d branch nodes, want %d", c.tree, c.branch, c.nmax, got, c.want)
		}
	}
}
