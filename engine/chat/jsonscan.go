package chat

// skipBlank returns the index of the first non-blank byte of s at or after i.
func skipBlank(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns where the JSON value starting at s[i] ends, matching
// brackets outside strings; ok is false when it does not end in s. It
// does not validate the value (ParseJSON does); it only finds its span.
func valueEnd(s string, i int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				end, ok := stringEnd(s, j)
				if !ok {
					return j, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return len(s), false
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' && s[j] != '\r' {
		j++
	}
	return j, j > i
}

// stringEnd returns the index after the JSON string starting at s[i].
func stringEnd(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(s), false
}

// memberSpan returns the source text of member key's value in the JSON
// object text obj (the first occurrence at the top level), or "".
func memberSpan(obj, key string) string {
	i := skipBlank(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return ""
	}
	i++
	for {
		i = skipBlank(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return ""
		}
		kEnd, ok := stringEnd(obj, i)
		if !ok {
			return ""
		}
		k := obj[i:kEnd]
		i = skipBlank(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return ""
		}
		i = skipBlank(obj, i+1)
		vEnd, ok := valueEnd(obj, i)
		if !ok {
			return ""
		}
		if k == `"`+key+`"` {
			return obj[i:vEnd]
		}
		i = skipBlank(obj, vEnd)
		if i >= len(obj) || obj[i] != ',' {
			return ""
		}
		i++
	}
}

// members reads the top-level members of the JSON object starting at
// obj[i] as raw source spans, stopping at the first member that does not
// complete (llama.cpp's lenient parse of output cut off at the end). It
// returns the spans by key (first occurrence) and the index after the
// object, or -1 when the object does not close.
func members(obj string, i int) (map[string]string, int) {
	out := map[string]string{}
	i = skipBlank(obj, i)
	if i >= len(obj) || obj[i] != '{' {
		return out, -1
	}
	i++
	for {
		i = skipBlank(obj, i)
		if i < len(obj) && obj[i] == '}' {
			return out, i + 1
		}
		if i >= len(obj) || obj[i] != '"' {
			return out, -1
		}
		kEnd, ok := stringEnd(obj, i)
		if !ok {
			return out, -1
		}
		k := obj[i+1 : kEnd-1]
		i = skipBlank(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return out, -1
		}
		i = skipBlank(obj, i+1)
		vEnd, ok := valueEnd(obj, i)
		if !ok || vEnd >= len(obj) && obj[i] != '"' && obj[i] != '{' && obj[i] != '[' {
			return out, -1 // a number or literal at the very end may be cut off
		}
		if _, dup := out[k]; !dup {
			out[k] = obj[i:vEnd]
		}
		i = skipBlank(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i++
		}
	}
}
