package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// runCLI parses args like the real binary and runs the command in-process,
// returning what it wrote to stdout.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var c cli
	var out, errOut bytes.Buffer
	oldOut, oldErr := stdout, stderr
	stdout, stderr = &out, &errOut
	t.Cleanup(func() { stdout, stderr = oldOut, oldErr })
	parser, err := kong.New(&c, kong.Name("waggle"), kong.Exit(func(int) { t.Fatalf("kong exited on %v", args) }))
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := parser.Parse(normalizeArgs(args))
	if err != nil {
		return "", err
	}
	err = ctx.Run()
	return out.String(), err
}

func model(t *testing.T, name string) string { return testenv.Model(t, name) }

// TestRunStoriesMatchesLlamaCpp: `waggle run` on stories260K prints the story
// llama.cpp's greedy driver produced (reference-greedy.json, F16 KV cache as
// there, the default here).
func TestRunStoriesMatchesLlamaCpp(t *testing.T) {
	refs, err := golden.LoadGreedy(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "reference-greedy.json")))
	if err != nil {
		t.Fatal(err)
	}
	var ref *golden.GreedyRef
	for i := range refs {
		if refs[i].Model == "stories260K-f32.gguf" && refs[i].Prompt == "Once upon a time" {
			ref = &refs[i]
		}
	}
	if ref == nil {
		t.Fatal("no stories260K reference run")
	}
	out, err := runCLI(t, "run", "-m", model(t, "stories260K-f32.gguf"), "-p", ref.Prompt, "-n", strconv.Itoa(len(ref.GeneratedIDs)), "--temp", "0")
	if err != nil {
		t.Fatal(err)
	}
	if want := ref.Prompt + ref.Text + "\n"; out != want {
		t.Fatalf("run printed\n%q\nllama.cpp\n%q", out, want)
	}
	js, err := runCLI(t, "run", "-m", model(t, "stories260K-f32.gguf"), "-p", ref.Prompt, "-n", "64", "--temp", "0", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res runResult
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatalf("--json output %q: %v", js, err)
	}
	if !slices.Equal(res.PromptTokens, ref.PromptIDs) || !slices.Equal(res.Tokens, ref.GeneratedIDs) || res.Text != ref.Text {
		t.Fatalf("--json: %+v\nwant prompt %v tokens %v text %q", res, ref.PromptIDs, ref.GeneratedIDs, ref.Text)
	}
	if res.Timings.PredictedN != len(ref.GeneratedIDs) || res.Timings.PromptN != len(ref.PromptIDs) {
		t.Fatalf("timings %+v", res.Timings)
	}
}

// TestLogitsMatchesGolden: `waggle logits` on the golden tokens gives the
// golden's numbers within the F32 tolerance.
func TestLogitsMatchesGolden(t *testing.T) {
	g, err := golden.Load(testenv.Require(t, filepath.Join(testenv.ModelsDir(t), "goldens", "stories260K-f32.json")))
	if err != nil {
		t.Fatal(err)
	}
	c := g.Cases[0]
	ids := make([]string, len(c.Tokens))
	for i, id := range c.Tokens {
		ids[i] = strconv.Itoa(int(id))
	}
	out, err := runCLI(t, "logits", "-m", model(t, "stories260K-f32.gguf"), "--tokens", strings.Join(ids, ","), "--top", "20", "-ctk", "f32", "-ctv", "f32", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Positions []golden.Position `json:"positions"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Positions) != len(c.Positions) {
		t.Fatalf("%d positions, golden %d", len(res.Positions), len(c.Positions))
	}
	for i, p := range res.Positions {
		gp := c.Positions[i]
		if p.I != i || len(p.Top) != 20 || p.Top[0][0] != gp.Top[0][0] {
			t.Fatalf("position %d: %+v, golden top %v", i, p, gp.Top[0])
		}
		for _, d := range []float64{p.Max - gp.Max, p.LSE - gp.LSE, p.Top[0][1] - gp.Top[0][1]} {
			if d > 1e-4 || d < -1e-4 {
				t.Fatalf("position %d differs from the golden by %g", i, d)
			}
		}
	}
}

func TestTokenizeLikeLlamaTokenize(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	out, err := runCLI(t, "tokenize", "-m", m, "--ids", "Once upon a time")
	if err != nil {
		t.Fatal(err)
	}
	if out != "[1, 403, 407, 261, 378]\n" {
		t.Fatalf("tokenize --ids printed %q", out)
	}
	// The escape \n becomes a newline token; --no-bos drops <s>.
	out, err = runCLI(t, "tokenize", "-m", m, "--no-bos", "--show-count", `a\nb`)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !strings.Contains(out, " -> '\n'") || strings.Contains(out, "<s>") ||
		lines[len(lines)-1] != "Total number of tokens: "+strconv.Itoa(strings.Count(out, " -> ")) {
		t.Fatalf("tokenize printed %q", out)
	}
}

func TestInspect(t *testing.T) {
	out, err := runCLI(t, "inspect", model(t, "stories260K-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GGUF v3, ", "48 tensors", "general.architecture", `= "llama"`, "token_embd.weight", "F32"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q", want)
		}
	}
}

// TestDemoRun: the Quick start works without any file.
func TestDemoRun(t *testing.T) {
	out, err := runCLI(t, "run", "-p", "Once upon a time", "-n", "8", "--temp", "0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "Once upon a time") || len(out) <= len("Once upon a time\n") {
		t.Fatalf("demo run printed %q", out)
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"run", "-p", "x", "--cache-type-k", "q9"},
		{"run", "-p", "x", "--top-p", "7"},
		{"run", "--tokens", "1,zz"},
		{"run"},
		{"logits", "--tokens", "1,2", "--top", "0"},
		{"run", "-m", "/nonexistent.gguf", "-p", "x"},
	} {
		if _, err := runCLI(t, args...); err == nil {
			t.Errorf("%v succeeded", args)
		}
	}
}

func TestProcessEscapes(t *testing.T) {
	for in, want := range map[string]string{`a\nb`: "a\nb", `\t\\\'\"`: "\t\\'\"", `\x41\x4`: `A\x4`, `\q`: `\q`, `end\`: `end\`} {
		if got := processEscapes(in); got != want {
			t.Errorf("processEscapes(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeArgs(t *testing.T) {
	got := normalizeArgs([]string{"run", "-ctk", "f32", "-ctv=f16", "-c", "5", "--seed", "-1", "-n", "-1",
		"--top-nsigma", "-0.5", "-p", "", "--", "-ctk", "--seed", "-1"})
	want := []string{"run", "--cache-type-k", "f32", "--cache-type-v=f16", "-c", "5", "--seed=-1", "-n-1",
		"--top-nsigma=-0.5", "-p", "", "--", "-ctk", "--seed", "-1"}
	if !slices.Equal(got, want) {
		t.Fatalf("normalizeArgs = %v, want %v", got, want)
	}
}

// TestRunSpeculativeEqualsPlain: greedy speculative decoding through the CLI
// prints exactly what plain greedy decoding prints, and really drafts.
func TestRunSpeculativeEqualsPlain(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	prompt := "Lily and Tom went to the park. Lily and Tom went to the park. Lily and Tom went to the"
	plain, err := runCLI(t, "run", "-m", m, "-p", prompt, "-n", "48", "--temp", "0", "--json")
	if err != nil {
		t.Fatal(err)
	}
	for _, types := range []string{"suffix", "copyspec,ngram-simple", "recycle"} {
		out, err := runCLI(t, "run", "-m", m, "-p", prompt, "-n", "48", "--temp", "0", "--json",
			"--spec-type", types, "--no-spec-dm-adaptive", "--spec-ngram-simple-size-n", "3")
		if err != nil {
			t.Fatal(err)
		}
		var a, b runResult
		if err := json.Unmarshal([]byte(plain), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), &b); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Tokens, b.Tokens) {
			t.Fatalf("--spec-type %s: %v\nplain: %v", types, b.Tokens, a.Tokens)
		}
		if b.Timings.DraftN == 0 {
			t.Errorf("--spec-type %s drafted nothing on a repeating prompt", types)
		}
	}
}
