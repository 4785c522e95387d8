package sample

import (
	"math/rand/v2"
	"testing"
)

// modConstraint allows the tokens whose id is congruent to the number of
// accepted tokens modulo m: a stateful rule whose allowed set moves with
// every Accept. It counts Filter calls to show the shortcut.
type modConstraint struct {
	m, n     int32
	filtered int
}

func (c *modConstraint) Allowed(tok int32) bool { return tok%c.m == c.n%c.m }
func (c *modConstraint) Accept(int32)           { c.n++ }
func (c *modConstraint) Filter(cs []Candidate) {
	c.filtered++
	for i := range cs {
		if !c.Allowed(cs[i].ID) {
			cs[i].Logit = negInf
		}
	}
}
func (c *modConstraint) CloneConstraint() Constraint { cp := *c; return &cp }

// masked returns l with -Inf on every token c rejects.
func masked(l []float32, c Constraint) []float32 {
	out := append([]float32(nil), l...)
	for i := range out {
		if !c.Allowed(int32(i)) {
			out[i] = negInf
		}
	}
	return out
}

// Sample under a constraint equals llama.cpp's two-pass rule, rebuilt here
// from an unconstrained twin with the same seed: draw once; keep the token
// if allowed; else draw again (the RNG moved on) from the masked logits.
func TestConstraintTwoPassMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, temp := range []float32{0, 0.7, 1.3} {
		p := DefaultParams()
		p.Temp, p.Seed, p.RepeatPenalty = temp, 42, 1.1
		got := mustNew(t, p, 64)
		ref := mustNew(t, p, 64)
		con := &modConstraint{m: 3}
		got.SetConstraint(con)
		rejected := 0
		for step := range 200 {
			l := randomLogits(r, 64)
			want := ref.Sample(l)
			if !con.Allowed(want) {
				rejected++
				want = ref.Sample(masked(l, con))
			}
			tok := got.Sample(l)
			if tok != want {
				t.Fatalf("temp %v step %d: got %d, want %d", temp, step, tok, want)
			}
			got.Accept(tok)
			ref.Accept(tok)
		}
		if rejected == 0 || rejected == 200 {
			t.Fatalf("temp %v: %d of 200 first picks rejected; the test needs both paths", temp, rejected)
		}
		if con.n != 200 {
			t.Fatalf("Accept advanced the constraint %d times, want 200", con.n)
		}
	}
}

// The full-vocabulary Filter runs only when the first pick is rejected.
func TestConstraintFiltersOnlyOnRejection(t *testing.T) {
	p := neutral()
	p.Temp = 0
	s := mustNew(t, p, 6)
	con := &modConstraint{m: 2}
	s.SetConstraint(con)
	if got := s.Sample([]float32{9, 1, 2, 3, 4, 5}); got != 0 || con.filtered != 0 {
		t.Fatalf("allowed argmax: got %d after %d filters, want 0 after none", got, con.filtered)
	}
	if got := s.Sample([]float32{1, 9, 2, 3, 4, 5}); got != 4 || con.filtered != 1 {
		t.Fatalf("rejected argmax: got %d after %d filters, want 4 after one", got, con.filtered)
	}
}

func TestConstraintAcceptPromptDoesNotAdvance(t *testing.T) {
	p := neutral()
	p.RepeatPenalty, p.Temp = 2, 0
	s := mustNew(t, p, 4)
	con := &modConstraint{m: 4}
	s.SetConstraint(con)
	s.AcceptPrompt(0)
	if con.n != 0 {
		t.Fatal("AcceptPrompt advanced the constraint")
	}
	// Only 0 is allowed, so the penalized 0 is the pick; without the
	// constraint the penalty (which saw the prompt token) makes it lose.
	if got := s.Sample([]float32{4, 3, 1, 1}); got != 0 {
		t.Fatalf("got %d, want 0 (the only allowed token)", got)
	}
	s.SetConstraint(nil)
	if got := s.Sample([]float32{4, 3, 1, 1}); got != 1 {
		t.Fatalf("without the constraint: got %d, want 1 (0 is penalized to 2)", got)
	}
}

func TestConstraintCloneIsIndependent(t *testing.T) {
	s := mustNew(t, neutral(), 8)
	con := &modConstraint{m: 2}
	s.SetConstraint(con)
	c := s.Clone()
	c.Accept(1)
	if con.n != 0 || c.Constraint().(*modConstraint).n != 1 {
		t.Fatal("the clone's Accept must advance its own constraint only")
	}
}

func TestAllowedPrefix(t *testing.T) {
	s := mustNew(t, neutral(), 8)
	if n := s.AllowedPrefix([]int32{5, 5}); n != 2 {
		t.Fatalf("no constraint: %d, want 2", n)
	}
	con := &modConstraint{m: 2}
	s.SetConstraint(con)
	// Allowed in turn: even, odd, even, odd.
	if n := s.AllowedPrefix([]int32{2, 3, 6, 6, 1}); n != 3 {
		t.Fatalf("got %d, want 3", n)
	}
	if con.n != 0 {
		t.Fatal("AllowedPrefix advanced the constraint")
	}
}

func TestDistributionFiltered(t *testing.T) {
	for _, temp := range []float32{0, 1} {
		p := neutral()
		p.Temp = temp
		s := mustNew(t, p, 6)
		s.SetConstraint(&modConstraint{m: 2})
		for _, c := range s.Distribution([]float32{1, 9, 2, 3, 4, 5}) {
			if c.ID%2 != 0 && c.P > 0 {
				t.Fatalf("temp %v: rejected token %d has P %v", temp, c.ID, c.P)
			}
		}
	}
}

func TestConstraintNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	l := randomLogits(r, 4096)
	for _, temp := range []float32{0, 0.8} {
		p := DefaultParams()
		p.Temp, p.Seed = temp, 9
		s := mustNew(t, p, len(l))
		s.SetConstraint(&modConstraint{m: 7})
		if n := testing.AllocsPerRun(20, func() { s.Accept(s.Sample(l)) }); n != 0 {
			t.Fatalf("temp %v: Sample+Accept allocates %v times", temp, n)
		}
	}
}
