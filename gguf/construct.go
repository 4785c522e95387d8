package gguf

// Constructors for metadata values, for building files with Writer. Slices
// are kept, not copied: do not modify them before the file is written.

// Uint8Value returns a scalar value of type uint8.
func Uint8Value(x uint8) Value { return Value{ValueUint8, x} }

// Int8Value returns a scalar value of type int8.
func Int8Value(x int8) Value { return Value{ValueInt8, x} }

// Uint16Value returns a scalar value of type uint16.
func Uint16Value(x uint16) Value { return Value{ValueUint16, x} }

// Int16Value returns a scalar value of type int16.
func Int16Value(x int16) Value { return Value{ValueInt16, x} }

// Uint32Value returns a scalar value of type uint32.
func Uint32Value(x uint32) Value { return Value{ValueUint32, x} }

// Int32Value returns a scalar value of type int32.
func Int32Value(x int32) Value { return Value{ValueInt32, x} }

// Float32Value returns a scalar value of type float32.
func Float32Value(x float32) Value { return Value{ValueFloat32, x} }

// BoolValue returns a scalar value of type bool.
func BoolValue(x bool) Value { return Value{ValueBool, x} }

// StringValue returns a scalar value of type string.
func StringValue(x string) Value { return Value{ValueString, x} }

// Uint64Value returns a scalar value of type uint64.
func Uint64Value(x uint64) Value { return Value{ValueUint64, x} }

// Int64Value returns a scalar value of type int64.
func Int64Value(x int64) Value { return Value{ValueInt64, x} }

// Float64Value returns a scalar value of type float64.
func Float64Value(x float64) Value { return Value{ValueFloat64, x} }

func arrayOf(elem ValueType, data any) Value {
	return Value{ValueArray, &array{elem: elem, data: data}}
}

// Uint8sValue returns an array value of element type uint8.
func Uint8sValue(x []uint8) Value { return arrayOf(ValueUint8, x) }

// Int8sValue returns an array value of element type int8.
func Int8sValue(x []int8) Value { return arrayOf(ValueInt8, x) }

// Uint16sValue returns an array value of element type uint16.
func Uint16sValue(x []uint16) Value { return arrayOf(ValueUint16, x) }

// Int16sValue returns an array value of element type int16.
func Int16sValue(x []int16) Value { return arrayOf(ValueInt16, x) }

// Uint32sValue returns an array value of element type uint32.
func Uint32sValue(x []uint32) Value { return arrayOf(ValueUint32, x) }

// Int32sValue returns an array value of element type int32.
func Int32sValue(x []int32) Value { return arrayOf(ValueInt32, x) }

// Float32sValue returns an array value of element type float32.
func Float32sValue(x []float32) Value { return arrayOf(ValueFloat32, x) }

// BoolsValue returns an array value of element type bool.
func BoolsValue(x []bool) Value { return arrayOf(ValueBool, x) }

// StringsValue returns an array value of element type string.
func StringsValue(x []string) Value { return arrayOf(ValueString, x) }

// Uint64sValue returns an array value of element type uint64.
func Uint64sValue(x []uint64) Value { return arrayOf(ValueUint64, x) }

// Int64sValue returns an array value of element type int64.
func Int64sValue(x []int64) Value { return arrayOf(ValueInt64, x) }

// Float64sValue returns an array value of element type float64.
func Float64sValue(x []float64) Value { return arrayOf(ValueFloat64, x) }

// ArraysValue builds an array of arrays; every element must itself be an

// array value (checked when written). Each inner array keeps its own element

// type, as the format allows.

// ArraysValue returns a scalar value of type ...Value.
func ArraysValue(x ...Value) Value { return arrayOf(ValueArray, x) }
