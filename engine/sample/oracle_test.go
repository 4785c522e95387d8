package sample

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestMatchesLlamaCpp replays testdata/llamacpp_chain.golden: token sequences
// produced by llama.cpp's own sampler functions (src/llama-sampler.cpp, built
// with g++ 12 / libstdc++ and driven in common_sampler's default order; see
// testdata/oracle/). Each line holds the parameters, then "|", then the token
// sampled and accepted at every step. Step s feeds logit
// float32(v)·scale/n − 4 to token i, with v = (7919·i + 104729·s + 13) mod n,
// so logits are distinct and no tie order matters.
func TestMatchesLlamaCpp(t *testing.T) {
	f, err := os.Open("testdata/llamacpp_chain.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		head, toks, ok := strings.Cut(sc.Text(), "|")
		if !ok {
			t.Fatalf("bad golden line %q", sc.Text())
		}
		c := parseOracleCase(t, strings.Fields(head))
		t.Run(c.name, func(t *testing.T) { c.check(t, strings.Fields(toks)) })
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

type oracleCase struct {
	name     string
	n, steps int
	scale    float32
	p        Params
}

func parseOracleCase(t *testing.T, f []string) oracleCase {
	t.Helper()
	if len(f) != 18 {
		t.Fatalf("golden header has %d fields, want 18: %v", len(f), f)
	}
	i := func(k int) int {
		v, err := strconv.Atoi(f[k])
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	x := func(k int) float32 {
		v, err := strconv.ParseFloat(f[k], 32)
		if err != nil {
			t.Fatal(err)
		}
		return float32(v)
	}
	p := Params{
		Seed: uint32(i(3)), Temp: x(4), TopK: i(5), TopP: x(6), MinP: x(7), TypicalP: x(8),
		MinKeep: i(9), DynatempRange: x(10), DynatempExponent: x(11), TopNSigma: x(12),
		RepeatLastN: i(13), RepeatPenalty: x(14), FrequencyPenalty: x(15), PresencePenalty: x(16),
	}
	return oracleCase{name: f[0], n: i(1), steps: i(2), scale: x(17), p: p}
}

func (c oracleCase) check(t *testing.T, want []string) {
	if len(want) != c.steps {
		t.Fatalf("golden has %d tokens, want %d", len(want), c.steps)
	}
	s := mustNew(t, c.p, c.n)
	logits := make([]float32, c.n)
	for step := range c.steps {
		for i := range logits {
			v := (i*7919 + step*104729 + 13) % c.n
			logits[i] = float32(v)*c.scale/float32(c.n) - 4
		}
		got := s.Sample(logits)
		if strconv.Itoa(int(got)) != want[step] {
			t.Fatalf("step %d: sampled %d, llama.cpp sampled %s", step, got, want[step])
		}
		s.Accept(got)
	}
}
