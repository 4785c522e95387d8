package grammar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxJSONDepth bounds the nesting of a JSON schema or tool definition.
const MaxJSONDepth = 64

// Value is a JSON value that keeps the order of object keys (as
// nlohmann::ordered_json does), which the schema converter needs: property
// order decides the grammar.
type Value struct {
	Kind Kind
	Bool bool
	Num  string // the number's source text
	Str  string
	Arr  []*Value
	Keys []string // object keys in first-seen order
	Vals []*Value // Vals[i] belongs to Keys[i]; a repeated key keeps its first place and its last value
}

// Kind is the type of a JSON value.
type Kind uint8

// The JSON value kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// ParseJSON decodes one JSON value, keeping object key order.
func ParseJSON(raw []byte) (*Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (*Value, error) {
	if depth > MaxJSONDepth {
		return nil, fmt.Errorf("JSON nested deeper than %d levels", MaxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := &Value{Kind: Object}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				x, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.Set(k, x)
			}
			_, err := dec.Token()
			return v, err
		case '[':
			v := &Value{Kind: Array, Arr: []*Value{}}
			for dec.More() {
				x, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.Arr = append(v.Arr, x)
			}
			_, err := dec.Token()
			return v, err
		}
		return nil, fmt.Errorf("unexpected %q", t)
	case nil:
		return &Value{Kind: Null}, nil
	case bool:
		return &Value{Kind: Bool, Bool: t}, nil
	case json.Number:
		return &Value{Kind: Number, Num: t.String()}, nil
	case string:
		return &Value{Kind: String, Str: t}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// Get returns the value of key in an object, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i, k := range v.Keys {
		if k == key {
			return v.Vals[i]
		}
	}
	return nil
}

// Has reports whether an object has key.
func (v *Value) Has(key string) bool { return v.Get(key) != nil }

// Set sets key in an object, keeping the place of an existing key.
func (v *Value) Set(key string, x *Value) {
	for i, k := range v.Keys {
		if k == key {
			v.Vals[i] = x
			return
		}
	}
	v.Keys = append(v.Keys, key)
	v.Vals = append(v.Vals, x)
}

// Copy returns a deep copy.
func (v *Value) Copy() *Value {
	if v == nil {
		return nil
	}
	c := *v
	c.Arr = make([]*Value, len(v.Arr))
	for i, x := range v.Arr {
		c.Arr[i] = x.Copy()
	}
	c.Keys = append([]string(nil), v.Keys...)
	c.Vals = make([]*Value, len(v.Vals))
	for i, x := range v.Vals {
		c.Vals[i] = x.Copy()
	}
	return &c
}

// isInteger reports a number written without fraction or exponent that
// fits an int64 or a uint64 (nlohmann's number_integer/number_unsigned).
func (v *Value) isInteger() bool {
	if v.Kind != Number || strings.ContainsAny(v.Num, ".eE") {
		return false
	}
	if _, err := strconv.ParseInt(v.Num, 10, 64); err == nil {
		return true
	}
	_, err := strconv.ParseUint(v.Num, 10, 64)
	return err == nil
}

// Dump writes v compactly as nlohmann::json::dump() does: no spaces,
// strings with only ", \ and control characters escaped (\u00xx in lower
// case), integers as written, other numbers in shortest round-trip form.
func (v *Value) Dump() string {
	var b strings.Builder
	v.dump(&b)
	return b.String()
}

func (v *Value) dump(b *strings.Builder) {
	switch v.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case Number:
		b.WriteString(dumpNumber(v))
	case String:
		dumpString(b, v.Str)
	case Array:
		b.WriteByte('[')
		for i, x := range v.Arr {
			if i > 0 {
				b.WriteByte(',')
			}
			x.dump(b)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			dumpString(b, k)
			b.WriteByte(':')
			v.Vals[i].dump(b)
		}
		b.WriteByte('}')
	}
}

func dumpNumber(v *Value) string {
	if v.isInteger() {
		if i, err := strconv.ParseInt(v.Num, 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
		u, _ := strconv.ParseUint(v.Num, 10, 64)
		return strconv.FormatUint(u, 10)
	}
	f, _ := strconv.ParseFloat(v.Num, 64)
	return formatDouble(f)
}

// formatDouble is nlohmann's float output: the shortest digits that round
// trip, fixed notation for decimal exponents in [-4, 15) with ".0" added to
// whole numbers, scientific ("1e+100", "1.5e-07") otherwise.
func formatDouble(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expS, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expS)
	neg := strings.HasPrefix(mant, "-")
	digits := strings.ReplaceAll(strings.TrimPrefix(mant, "-"), ".", "")
	n := len(digits)
	k := exp + 1 // decimal point position relative to the digits
	var out string
	switch {
	case k >= n && k <= 15:
		out = digits + strings.Repeat("0", k-n) + ".0"
	case k > 0 && k <= 15:
		out = digits[:k] + "." + digits[k:]
	case k > -4 && k <= 0:
		out = "0." + strings.Repeat("0", -k) + digits
	default:
		m := digits[:1]
		if n > 1 {
			m += "." + digits[1:]
		}
		e := k - 1
		sign := "+"
		if e < 0 {
			sign, e = "-", -e
		}
		es := strconv.Itoa(e)
		if len(es) < 2 {
			es = "0" + es
		}
		out = m + "e" + sign + es
	}
	if neg {
		return "-" + out
	}
	return out
}

func dumpString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&15])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}
