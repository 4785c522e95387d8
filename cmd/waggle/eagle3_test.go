package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestRunEagle3: `waggle run --json` with the trained EAGLE-3 drafter
// (auto-detected from -md, or named by --spec-type draft-eagle3 or eagle3,
// with the draft cache types given) prints exactly plain greedy decoding
// and reports draft_n and draft_n_accepted, drafting chains or trees
// (--spec-branch-budget); the default depth is
// mainline's 3; a missing or mismatched drafter is refused clearly.
func TestRunEagle3(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	md := testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "drafters", "stories260K-eagle3-f32.gguf"))
	args := []string{"run", "-m", m, "--tokens", "1,403,407,261,378", "-n", "48", "--temp", "0", "--json"}
	run := func(extra ...string) runResult {
		t.Helper()
		out, err := runCLI(t, append(slices.Clone(args), extra...)...)
		if err != nil {
			t.Fatalf("%v: %v", extra, err)
		}
		var r runResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain := run()
	fixed := []string{"--no-spec-dm-adaptive"}
	byDefault := run(append(fixed, "-md", md)...)
	for _, extra := range [][]string{
		append(fixed, "--spec-type", "draft-eagle3", "--spec-draft-model", md, "--spec-draft-n-max", "3"),
		append(fixed, "--spec-type", "eagle3", "-md", md, "-ctkd", "f32", "-ctvd", "f32", "--spec-draft-n-max", "3"),
		{"-md", md},
		{"-md", md, "--spec-branch-budget", "6", "--spec-draft-top-k", "3"},
	} {
		r := run(extra...)
		if !slices.Equal(r.Tokens, plain.Tokens) {
			t.Fatalf("%v: %v\nplain: %v", extra, r.Tokens, plain.Tokens)
		}
		if r.Timings.DraftN == 0 || r.Timings.DraftNAccepted == 0 {
			t.Errorf("%v: draft_n %d, draft_n_accepted %d", extra, r.Timings.DraftN, r.Timings.DraftNAccepted)
		}
		if extra[0] == fixed[0] && (r.Timings.DraftN != byDefault.Timings.DraftN || r.Timings.DraftNAccepted != byDefault.Timings.DraftNAccepted) {
			t.Errorf("%v: drafted %d accepted %d; by default (depth 3) %d %d", extra, r.Timings.DraftN, r.Timings.DraftNAccepted, byDefault.Timings.DraftN, byDefault.Timings.DraftNAccepted)
		}
	}
	if deep := run(append(fixed, "-md", md, "--spec-draft-n-max", "8")...); deep.Timings.DraftN == byDefault.Timings.DraftN {
		t.Errorf("depth 8 drafted as many tokens (%d) as the default depth", deep.Timings.DraftN)
	}
	if tree := run(append(fixed, "-md", md, "--spec-branch-budget", "6")...); tree.Timings.DraftN <= byDefault.Timings.DraftN {
		t.Errorf("trees of 9 nodes drafted %d tokens, chains of 3 %d", tree.Timings.DraftN, byDefault.Timings.DraftN)
	}
	wrong := testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "drafters", "synth-eagle3-llama-tiny-f32.gguf"))
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--spec-type", "draft-eagle3"}, "needs an EAGLE-3 drafter"},
		{[]string{"-md", wrong}, "hidden size 256"},
		{[]string{"-md", md, "-ctkd", "q9_9"}, "--cache-type-k-draft"},
		{[]string{"-md", md, "--spec-draft-p-min", "2"}, "--spec-draft-p-min"},
	} {
		if _, err := runCLI(t, append(slices.Clone(args), c.extra...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one mentioning %q", c.extra, err, c.want)
		}
	}
}
