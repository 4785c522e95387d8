package grammar

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

var errIntRange = errors.New("integer bounds too close to the int64 limits")

// buildMinMaxInt writes a grammar for the decimal integers in [lo, hi]
// (math.MinInt64 / math.MaxInt64 meaning unbounded), as llama.cpp's
// build_min_max_int: digit ranges per length, at most decimalsLeft digits
// when unbounded.
func buildMinMaxInt(lo, hi int64, out *strings.Builder, decimalsLeft int, topLevel bool) error {
	hasMin, hasMax := lo != math.MinInt64, hi != math.MaxInt64
	if hasMin && lo == math.MinInt64+1 || hasMax && hi == math.MinInt64 {
		return errIntRange
	}
	w := intWriter{out}
	if hasMin && hasMax {
		if lo > hi {
			return errors.New("minimum is above maximum")
		}
		if lo < 0 && hi < 0 {
			out.WriteString(`"-" (`)
			if err := buildMinMaxInt(-hi, -lo, out, decimalsLeft, true); err != nil {
				return err
			}
			out.WriteString(")")
			return nil
		}
		if lo < 0 {
			out.WriteString(`"-" (`)
			if err := buildMinMaxInt(0, -lo, out, decimalsLeft, true); err != nil {
				return err
			}
			out.WriteString(") | ")
			lo = 0
		}
		minS, maxS := strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10)
		for d := len(minS); d < len(maxS); d++ {
			w.uniformRange(minS, strings.Repeat("9", d))
			minS = "1" + strings.Repeat("0", d)
			out.WriteString(" | ")
		}
		w.uniformRange(minS, maxS)
		return nil
	}
	less := max(decimalsLeft-1, 1)
	if hasMin {
		return w.atLeast(lo, decimalsLeft, less, topLevel)
	}
	if hasMax {
		if hi >= 0 {
			if topLevel {
				out.WriteString(`"-" [1-9] `)
				w.moreDigits(0, less)
				out.WriteString(" | ")
			}
			return buildMinMaxInt(0, hi, out, decimalsLeft, true)
		}
		out.WriteString(`"-" (`)
		if err := buildMinMaxInt(-hi, math.MaxInt64, out, decimalsLeft, false); err != nil {
			return err
		}
		out.WriteString(")")
		return nil
	}
	return errors.New("at least one of minimum or maximum must be set")
}

type intWriter struct{ out *strings.Builder }

func (w intWriter) digitRange(from, to byte) {
	w.out.WriteString("[")
	if from == to {
		w.out.WriteByte(from)
	} else {
		w.out.WriteByte(from)
		w.out.WriteString("-")
		w.out.WriteByte(to)
	}
	w.out.WriteString("]")
}

// moreDigits writes [0-9] repeated lo..hi times (hi < 0: unbounded).
func (w intWriter) moreDigits(lo, hi int) {
	w.out.WriteString("[0-9]")
	if lo == hi && lo == 1 {
		return
	}
	w.out.WriteString("{" + strconv.Itoa(lo))
	if hi != lo {
		w.out.WriteString(",")
		if hi >= 0 {
			w.out.WriteString(strconv.Itoa(hi))
		}
	}
	w.out.WriteString("}")
}

// uniformRange matches the numbers from..to of the same length.
func (w intWriter) uniformRange(from, to string) {
	i := 0
	for i < len(from) && i < len(to) && from[i] == to[i] {
		i++
	}
	if i > 0 {
		w.out.WriteString(`"` + from[:i] + `"`)
	}
	if i >= len(from) || i >= len(to) {
		return
	}
	if i > 0 {
		w.out.WriteString(" ")
	}
	subLen := len(from) - i - 1
	if subLen == 0 {
		w.out.WriteString("[" + string(from[i]) + "-" + string(to[i]) + "]")
		return
	}
	fromSub, toSub := from[i+1:], to[i+1:]
	zeros, nines := strings.Repeat("0", subLen), strings.Repeat("9", subLen)
	toReached := false
	w.out.WriteString("(")
	if fromSub == zeros {
		w.digitRange(from[i], to[i]-1)
		w.out.WriteString(" ")
		w.moreDigits(subLen, subLen)
	} else {
		w.out.WriteString("[" + string(from[i]) + "] (")
		w.uniformRange(fromSub, nines)
		w.out.WriteString(")")
		if from[i] < to[i]-1 {
			w.out.WriteString(" | ")
			if toSub == nines {
				w.digitRange(from[i]+1, to[i])
				toReached = true
			} else {
				w.digitRange(from[i]+1, to[i]-1)
			}
			w.out.WriteString(" ")
			w.moreDigits(subLen, subLen)
		}
	}
	if !toReached {
		w.out.WriteString(" | ")
		w.digitRange(to[i], to[i])
		w.out.WriteString(" ")
		w.uniformRange(zeros, toSub)
	}
	w.out.WriteString(")")
}

// atLeast is the has_min-only branch of build_min_max_int.
func (w intWriter) atLeast(lo int64, decimalsLeft, less int, topLevel bool) error {
	out := w.out
	switch {
	case lo < 0:
		out.WriteString(`"-" (`)
		if err := buildMinMaxInt(math.MinInt64, -lo, out, decimalsLeft, false); err != nil {
			return err
		}
		out.WriteString(") | [0] | [1-9] ")
		w.moreDigits(0, decimalsLeft-1)
	case lo == 0:
		if topLevel {
			out.WriteString("[0] | [1-9] ")
			w.moreDigits(0, less)
		} else {
			w.moreDigits(1, decimalsLeft)
		}
	case lo <= 9:
		c := byte('0' + lo)
		start := byte('0')
		if topLevel {
			start = '1'
		}
		if c > start {
			w.digitRange(start, c-1)
			out.WriteString(" ")
			w.moreDigits(1, less)
			out.WriteString(" | ")
		}
		w.digitRange(c, '9')
		out.WriteString(" ")
		w.moreDigits(0, less)
	default:
		s := strconv.FormatInt(lo, 10)
		c := s[0]
		if c > '1' {
			start := byte('0')
			if topLevel {
				start = '1'
			}
			w.digitRange(start, c-1)
			out.WriteString(" ")
			w.moreDigits(len(s), less)
			out.WriteString(" | ")
		}
		w.digitRange(c, c)
		out.WriteString(" (")
		rest, _ := strconv.ParseInt(s[1:], 10, 64)
		if err := buildMinMaxInt(rest, math.MaxInt64, out, less, false); err != nil {
			return err
		}
		out.WriteString(")")
		if c < '9' {
			out.WriteString(" | ")
			w.digitRange(c+1, '9')
			out.WriteString(" ")
			w.moreDigits(len(s)-1, less)
		}
	}
	return nil
}
