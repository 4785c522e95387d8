package sample

// adaptiveP is llama_sampler_adaptive_p: it replaces the final draw and
// reshapes the distribution around a target probability that adapts, by
// an exponential moving average of the original probabilities of the
// tokens it picked, so that their average approaches AdaptiveTarget.
type adaptiveP struct {
	target, decay            float32
	weightedSum, totalWeight float32
	orig                     []float32 // P before the reshaping, by candidate index
	pendingID                int32     // the token last picked (-1: none)
	pendingIdx               int
}

// Constants of llama.cpp's transform: a peak logit of 5 at the target,
// falling off quadratically within about 0.3 of it and linearly beyond.
const (
	adaptivePeak      float32 = 5
	adaptiveSharpness float32 = 10
)

// adaptiveInvWidth is 1/0.3 rounded as a float division, as in llama.cpp.
var adaptiveInvWidth = func() float32 { w := float32(0.3); return 1 / w }()

func newAdaptiveP(p Params, nVocab int) *adaptiveP {
	return &adaptiveP{target: p.AdaptiveTarget, decay: p.AdaptiveDecay, orig: make([]float32, nVocab)}
}

func (a *adaptiveP) reset() {
	a.weightedSum = a.target / (1 - a.decay)
	a.totalWeight = 1 / (1 - a.decay)
	a.pendingID, a.pendingIdx = -1, -1
}

func (a *adaptiveP) clone() *adaptiveP {
	if a == nil {
		return nil
	}
	c := *a
	c.orig = append([]float32(nil), a.orig...)
	return &c
}

// accept updates the average when tok is the token last picked.
func (a *adaptiveP) accept(tok int32) {
	if a.pendingID == tok && a.pendingIdx >= 0 {
		a.weightedSum = a.orig[a.pendingIdx] + float32(a.decay*a.weightedSum)
		a.totalWeight = 1 + float32(a.decay*a.totalWeight)
	}
	a.pendingID, a.pendingIdx = -1, -1
}

// sample reshapes and draws (in the candidates' current order; it does not
// sort). A negative target draws from the distribution as it is.
func (a *adaptiveP) sample(cs *cands, rng *mt19937) int32 {
	cs.softmax()
	c := cs.c
	if a.target < 0 {
		return c[discreteDraw(c, rng)].ID
	}
	for i := range c {
		a.orig[i] = c[i].P
	}
	target := min(max(a.target, 0), 1)
	adapted := target
	if a.totalWeight != 0 {
		adapted = float32(2*target) - a.weightedSum/a.totalWeight
	}
	adapted = min(max(adapted, 0), 1)
	for i := range c {
		if c[i].Logit == negInf {
			continue
		}
		d := abs32((c[i].P - adapted) * adaptiveInvWidth)
		c[i].Logit = adaptivePeak - float32(adaptiveSharpness*d)*d/(1+d)
	}
	cs.softmax()
	i := discreteDraw(c, rng)
	a.pendingID, a.pendingIdx = c[i].ID, i
	return c[i].ID
}
