package engine

import "fmt"

// Tap names a point of a model's residual stream between layers: Tap(L) is
// the input of layer L, which is the output of layer L-1 (after its
// feed-forward residual), and Tap(0) is the token embeddings. Tap(NLayer)
// is the last layer's output, before the final norm. Drafters read the
// stream at such points: DFlash taps layer outputs (LayerOutput), EAGLE-3
// layer inputs (LayerInput); both are the same mechanism.
type Tap int

// LayerInput is the tap at the input of layer l (l = 0: the embeddings).
func LayerInput(l int) Tap { return Tap(l) }

// LayerOutput is the tap at the output of layer l (llama.cpp's "l_out-l").
func LayerOutput(l int) Tap { return Tap(l + 1) }

// Tapper is implemented by sessions that capture the residual stream at
// SessionOptions.Taps for every token of every Decode (not only the
// outputs), so that a drafter can read the target's hidden states of the
// tokens it commits.
type Tapper interface {
	// Tapped returns batch token i's captured row of the last Decode: the
	// taps of SessionOptions.Taps in order, NEmbd values each. The slice is
	// owned by the session and valid until the next Decode; nil when the
	// session captures nothing or i is out of range.
	Tapped(i int) []float32
}

// TapBuffer is the capture storage of a session: for each of up to NBatch
// batch tokens one row of len(taps)·nEmbd values. Sized once, so capturing
// allocates nothing.
type TapBuffer struct {
	taps  []Tap
	nEmbd int
	n     int // tokens captured by the last forward pass
	buf   []float32
}

// NewTapBuffer checks taps against a model of nLayer layers and sizes the
// storage for nBatch tokens. It returns nil, nil when taps is empty.
func NewTapBuffer(taps []Tap, nLayer, nEmbd, nBatch int) (*TapBuffer, error) {
	if len(taps) == 0 {
		return nil, nil
	}
	for _, t := range taps {
		if t < 0 || int(t) > nLayer {
			return nil, fmt.Errorf("tap %d out of range [0, %d] (the model has %d layers)", t, nLayer, nLayer)
		}
	}
	return &TapBuffer{taps: append([]Tap(nil), taps...), nEmbd: nEmbd, buf: make([]float32, nBatch*len(taps)*nEmbd)}, nil
}

// Begin starts a forward pass over n tokens.
func (t *TapBuffer) Begin(n int) {
	if t != nil {
		t.n = n
	}
}

// Capture copies the first n rows of x (nEmbd values each, the residual
// stream at tap) into every slot that asks for tap. A nil buffer does
// nothing.
func (t *TapBuffer) Capture(tap Tap, x []float32) {
	if t == nil {
		return
	}
	e, w := t.nEmbd, len(t.taps)*t.nEmbd
	for j, want := range t.taps {
		if want != tap {
			continue
		}
		for i := range t.n {
			copy(t.buf[i*w+j*e:i*w+(j+1)*e], x[i*e:(i+1)*e])
		}
	}
}

// Row returns batch token i's captured row (see Tapper.Tapped).
func (t *TapBuffer) Row(i int) []float32 {
	if t == nil || i < 0 || i >= t.n {
		return nil
	}
	w := len(t.taps) * t.nEmbd
	return t.buf[i*w : (i+1)*w]
}
