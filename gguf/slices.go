package gguf

// sliceLen and sliceAt give uniform access to the typed slices an array
// value holds, without reflection.
func sliceLen(data any) int {
	switch s := data.(type) {
	case []uint8:
		return len(s)
	case []int8:
		return len(s)
	case []uint16:
		return len(s)
	case []int16:
		return len(s)
	case []uint32:
		return len(s)
	case []int32:
		return len(s)
	case []float32:
		return len(s)
	case []bool:
		return len(s)
	case []string:
		return len(s)
	case []uint64:
		return len(s)
	case []int64:
		return len(s)
	case []float64:
		return len(s)
	case []Value:
		return len(s)
	}
	return 0
}

func sliceAt(data any, i int) any {
	switch s := data.(type) {
	case []uint8:
		return s[i]
	case []int8:
		return s[i]
	case []uint16:
		return s[i]
	case []int16:
		return s[i]
	case []uint32:
		return s[i]
	case []int32:
		return s[i]
	case []float32:
		return s[i]
	case []bool:
		return s[i]
	case []string:
		return s[i]
	case []uint64:
		return s[i]
	case []int64:
		return s[i]
	case []float64:
		return s[i]
	case []Value:
		return s[i]
	}
	return nil
}

// elemTypeOf returns the GGUF element type matching a typed slice.
func elemTypeOf(data any) (ValueType, bool) {
	switch data.(type) {
	case []uint8:
		return ValueUint8, true
	case []int8:
		return ValueInt8, true
	case []uint16:
		return ValueUint16, true
	case []int16:
		return ValueInt16, true
	case []uint32:
		return ValueUint32, true
	case []int32:
		return ValueInt32, true
	case []float32:
		return ValueFloat32, true
	case []bool:
		return ValueBool, true
	case []string:
		return ValueString, true
	case []uint64:
		return ValueUint64, true
	case []int64:
		return ValueInt64, true
	case []float64:
		return ValueFloat64, true
	case []Value:
		return ValueArray, true
	}
	return 0, false
}
