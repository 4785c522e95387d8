package chat

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzToolParser: any model output parses without panics, and the result
// does not depend on how the output was split into pieces.
func FuzzToolParser(f *testing.F) {
	for _, s := range []string{"<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}\n</tool_call>", "text <tool_c",
		"[TOOL_CALLS][{\"name\": \"ping\", \"arguments\": {}, \"id\": \"abcdefghi\"}]", "{\"tool_call\": {\"name\": \"ping\", \"arguments\": {\"a\": [1, {\"b\": \"}\"}]}}}",
		"<|python_tag|>{\"name\": \"ping\", \"parameters\": {}}", "<tool_call>{\"name\": \"ping\", \"arguments\": {\"x\": \"\\\"}\"}"} {
		f.Add(s, uint8(1), uint8(3))
	}
	tools, err := ParseTools(json.RawMessage(`[{"type": "function", "function": {"name": "ping"}}]`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, out string, format, piece uint8) {
		if len(out) > 4096 {
			return
		}
		fmtx := ToolFormat(format % 4)
		c1, k1 := parseAll(fmtx, tools, out, len(out)+1)
		c2, k2 := parseAll(fmtx, tools, out, int(piece%7)+1)
		if c1 != c2 || !reflect.DeepEqual(k1, k2) {
			t.Fatalf("%v %q: whole %q %+v, in pieces of %d %q %+v", fmtx, out, c1, k1, piece%7+1, c2, k2)
		}
	})
}
