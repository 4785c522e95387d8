package perplexity

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
)

// The log-probability file of llama-perplexity --kl-divergence-base,
// little-endian:
//
//	"_logits_"                      8 bytes
//	n_ctx, n_vocab, n_chunk         int32 each
//	tokens                          n_chunk·n_ctx int32 (the evaluated stream)
//	rows                            per chunk, per scored position (n_ctx/2 .. n_ctx-2):
//	                                nv = 2·((n_vocab+1)/2) + 4 uint16:
//	                                float32 scale, float32 min_log_prob, then
//	                                n_vocab quantized log-probs (padding to nv)
//
// A log-prob is scale·q + min_log_prob; logits more than 16 below the
// maximum are clamped to min_log_prob (q = 0). Files written here are read
// by llama-perplexity --kl-divergence and the other way round.
const baseMagic = "_logits_"

// baseHeaderBytes is the size of the fixed part of the header.
const baseHeaderBytes = 8 + 3*4

// rowUint16s returns nv, the uint16 words of one row.
func rowUint16s(nVocab int) int { return 2*((nVocab+1)/2) + 4 }

// scoredPerChunk returns the scored positions of one chunk.
func scoredPerChunk(nCtx int) int { return nCtx - 1 - nCtx/2 }

// BaseWriter writes a base file while scoring (it is a Scorer and keeps
// the plain NLL statistics too).
type BaseWriter struct {
	w     *bufio.Writer
	row   []byte
	Stats Stats
}

// NewBaseWriter writes the header for nChunk chunks of nCtx tokens of
// tokens (at least nChunk·nCtx) with an nVocab vocabulary.
func NewBaseWriter(w io.Writer, nCtx, nVocab, nChunk int, tokens []int32) (*BaseWriter, error) {
	if len(tokens) < nChunk*nCtx {
		return nil, fmt.Errorf("perplexity: %d tokens for %d chunks of %d", len(tokens), nChunk, nCtx)
	}
	bw := &BaseWriter{w: bufio.NewWriterSize(w, 1<<20), row: make([]byte, 2*rowUint16s(nVocab))}
	hdr := make([]byte, baseHeaderBytes, baseHeaderBytes+4*nChunk*nCtx)
	copy(hdr, baseMagic)
	binary.LittleEndian.PutUint32(hdr[8:], uint32(nCtx))
	binary.LittleEndian.PutUint32(hdr[12:], uint32(nVocab))
	binary.LittleEndian.PutUint32(hdr[16:], uint32(nChunk))
	for _, t := range tokens[:nChunk*nCtx] {
		hdr = binary.LittleEndian.AppendUint32(hdr, uint32(t))
	}
	if _, err := bw.w.Write(hdr); err != nil {
		return nil, err
	}
	return bw, nil
}

// Score implements Scorer: it writes the position's row.
func (bw *BaseWriter) Score(_, _ int, logits []float32, next int32) error {
	if int(next) < 0 || int(next) >= len(logits) || 2*rowUint16s(len(logits)) != len(bw.row) {
		return fmt.Errorf("perplexity: token %d or vocabulary %d does not match the base file", next, len(logits))
	}
	encodeRow(bw.row, logits)
	bw.Stats.add(NLL(logits, next))
	_, err := bw.w.Write(bw.row)
	return err
}

// Flush writes what is buffered.
func (bw *BaseWriter) Flush() error { return bw.w.Flush() }

// encodeRow quantizes the log-softmax of logits into row as llama.cpp does.
func encodeRow(row []byte, logits []float32) {
	maxL, minL := logits[0], logits[0]
	for _, l := range logits {
		maxL, minL = max(maxL, l), min(minL, l)
	}
	minL = max(minL, maxL-16)
	_, _, lse := logSumExp(logits)
	minLogProb := minL - maxL - float32(lse)
	scale := (maxL - minL) / 65535
	binary.LittleEndian.PutUint32(row[0:], math.Float32bits(scale))
	binary.LittleEndian.PutUint32(row[4:], math.Float32bits(minLogProb))
	q := row[8:]
	clear(q)
	if scale == 0 {
		return
	}
	inv := 1 / scale
	for i, l := range logits {
		if l > minL {
			binary.LittleEndian.PutUint16(q[2*i:], uint16(math.RoundToEven(float64(inv*(l-minL)))))
		}
	}
}

// Base is an opened base file positioned at its first row.
type Base struct {
	NCtx, NVocab, NChunk int
	Tokens               []int32
	r                    *bufio.Reader
	f                    *os.File
}

// maxBaseTokens bounds n_ctx·n_chunk in a base file (1 GiB of tokens is
// far beyond any evaluation text).
const maxBaseTokens = 1 << 26

// OpenBase opens a base file and checks that its size is exactly what its
// header promises, so a truncated or corrupt file is refused before any
// scoring (and a hostile header cannot ask for a huge allocation).
func OpenBase(path string) (*Base, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	b, err := readBaseHeader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b.f = f
	return b, nil
}

func readBaseHeader(f *os.File) (*Base, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var hdr [baseHeaderBytes]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil || string(hdr[:8]) != baseMagic {
		return nil, fmt.Errorf("not a llama-perplexity log-probability file")
	}
	nCtx := int(int32(binary.LittleEndian.Uint32(hdr[8:])))
	nVocab := int(int32(binary.LittleEndian.Uint32(hdr[12:])))
	nChunk := int(int32(binary.LittleEndian.Uint32(hdr[16:])))
	if nCtx < 4 || nVocab < 1 || nVocab > 1<<24 || nChunk < 1 || int64(nCtx)*int64(nChunk) > maxBaseTokens {
		return nil, fmt.Errorf("implausible header: n_ctx %d, n_vocab %d, n_chunk %d", nCtx, nVocab, nChunk)
	}
	want := int64(baseHeaderBytes) + 4*int64(nCtx)*int64(nChunk) +
		int64(nChunk)*int64(scoredPerChunk(nCtx))*2*int64(rowUint16s(nVocab))
	if st.Size() != want {
		return nil, fmt.Errorf("size %d bytes, the header (n_ctx %d, n_vocab %d, n_chunk %d) needs %d: truncated or corrupt", st.Size(), nCtx, nVocab, nChunk, want)
	}
	b := &Base{NCtx: nCtx, NVocab: nVocab, NChunk: nChunk, r: bufio.NewReaderSize(f, 1<<20)}
	raw := make([]byte, 4*nCtx*nChunk)
	if _, err := io.ReadFull(b.r, raw); err != nil {
		return nil, err
	}
	b.Tokens = make([]int32, nCtx*nChunk)
	for i := range b.Tokens {
		t := int32(binary.LittleEndian.Uint32(raw[4*i:]))
		if t < 0 || int(t) >= nVocab {
			return nil, fmt.Errorf("token %d at %d outside the vocabulary of %d", t, i, nVocab)
		}
		b.Tokens[i] = t
	}
	return b, nil
}

// Close closes the file.
func (b *Base) Close() error { return b.f.Close() }

// KLD compares every scored position with the base file's row for it, as
// llama-perplexity --kl-divergence does.
type KLD struct {
	base       *Base
	row        []byte
	Q, BaseNLL Stats
	Values     []float64 // KL divergence per scored position, in order
	SameTop    int       // positions where both argmax tokens agree
	PDiff      Stats     // of p(next) - p_base(next), NLL2 = sum of squares
	MaxPDiff   float64
}

// NewKLD scores against b (positioned at its first row).
func NewKLD(b *Base) *KLD {
	return &KLD{base: b, row: make([]byte, 2*rowUint16s(b.NVocab))}
}

// Score implements Scorer.
func (k *KLD) Score(_, _ int, logits []float32, next int32) error {
	if len(logits) != k.base.NVocab || int(next) < 0 || int(next) >= len(logits) {
		return fmt.Errorf("perplexity: the model's vocabulary (%d) differs from the base file's (%d)", len(logits), k.base.NVocab)
	}
	if _, err := io.ReadFull(k.base.r, k.row); err != nil {
		return fmt.Errorf("perplexity: base file: %w", err)
	}
	scale := math.Float32frombits(binary.LittleEndian.Uint32(k.row[0:]))
	minLogProb := math.Float32frombits(binary.LittleEndian.Uint32(k.row[4:]))
	q := k.row[8:]
	maxL, imax, lse := logSumExp(logits)
	nll := float64(maxL) + float64(float32(lse)) - float64(logits[next])
	baseLogProb := func(i int) float32 { return scale*float32(binary.LittleEndian.Uint16(q[2*i:])) + minLogProb }
	nllBase := -float64(baseLogProb(int(next)))
	k.Q.add(nll)
	k.BaseNLL.add(nllBase)
	shift := maxL + float32(lse)
	sum, imaxBase, best := 0.0, -1, float32(0)
	for i, l := range logits {
		pb := baseLogProb(i)
		if i == 0 || pb > best {
			best, imaxBase = pb, i
		}
		if pb > -16 {
			sum += float64(float32(math.Exp(float64(pb)))) * float64(pb-l+shift)
		}
	}
	k.Values = append(k.Values, sum)
	if imax == imaxBase {
		k.SameTop++
	}
	d := math.Exp(-nll) - math.Exp(-nllBase)
	k.PDiff.add(d)
	k.MaxPDiff = max(k.MaxPDiff, math.Abs(d))
	return nil
}

// Summary returns the mean KL divergence with its standard error, the
// median, the 99th percentile and the maximum.
func (k *KLD) Summary() (mean, stderr, median, p99, maxKLD float64) {
	n := len(k.Values)
	if n == 0 {
		return
	}
	s := slices.Clone(k.Values)
	slices.Sort(s)
	var st Stats
	for _, v := range s {
		st.add(v)
	}
	mean = st.NLL / float64(n)
	if n > 1 {
		stderr = math.Sqrt(max(0, st.NLL2/float64(n)-mean*mean) / float64(n-1))
	}
	return mean, stderr, s[n/2], s[min(n-1, n*99/100)], s[n-1]
}
