package gguf

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// decoder reads little-endian GGUF fields from a byte slice. The first
// failure is kept in err and every later read returns zero values, so the
// callers check err once per logical unit rather than after each field.
type decoder struct {
	b    []byte
	off  int
	wide bool // v2+: counts and string lengths are u64; v1: u32
	err  *FormatError

	// Context for error messages, composed only when an error happens so
	// that the hot paths (250k-element arrays) never format strings.
	kind  string // "header", "key", "tensor"
	name  string // key or tensor name once known
	index int    // ordinal of the key or tensor

	alignAt int // offset of the general.alignment pair, if any
}

func (d *decoder) field() string {
	switch {
	case d.name != "":
		return d.kind + " " + strconv.Quote(d.name)
	case d.kind == "header" || d.kind == "":
		return "header"
	default:
		return d.kind + " #" + strconv.Itoa(d.index)
	}
}

func (d *decoder) fail(at int, cause error, format string, args ...any) {
	if d.err == nil {
		d.err = &FormatError{Field: d.field(), Offset: int64(at), Msg: fmt.Sprintf(format, args...), Err: cause}
	}
}

func (d *decoder) remaining() int { return len(d.b) - d.off }

// take returns the next n bytes, or nil after recording a truncation.
func (d *decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > d.remaining() {
		d.fail(d.off, ErrTruncated, "%s needs %d bytes, %d left", what, n, d.remaining())
		return nil
	}
	p := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return p
}

func (d *decoder) u32(what string) uint32 {
	if p := d.take(4, what); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) u64(what string) uint64 {
	if p := d.take(8, what); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// countWidth is the size of a count or length field in this version.
func (d *decoder) countWidth() int {
	if d.wide {
		return 8
	}
	return 4
}

// count reads a count or length field (u32 in v1, u64 later).
func (d *decoder) count(what string) uint64 {
	if d.wide {
		return d.u64(what)
	}
	return uint64(d.u32(what))
}

// fits reports whether n items of at least min bytes each can still be in
// the input, recording an error naming what when they cannot. It is called
// before any allocation sized by n.
func (d *decoder) fits(at int, n uint64, min int, what string) bool {
	if d.err != nil {
		return false
	}
	if n > uint64(d.remaining()/min) {
		d.fail(at, ErrTruncated, "%s %d cannot fit in the %d bytes left (at least %d bytes each)", what, n, d.remaining(), min)
		return false
	}
	return true
}

// strBytes reads a length-prefixed string and returns its bytes (aliasing
// the input).
func (d *decoder) strBytes(what string) []byte {
	at := d.off
	n := d.count(what + " length")
	if d.err != nil {
		return nil
	}
	if n > uint64(d.remaining()) {
		d.fail(at, ErrTruncated, "%s length %d exceeds the %d bytes left", what, n, d.remaining())
		return nil
	}
	return d.take(int(n), what)
}
