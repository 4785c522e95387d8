package grammar

import (
	"slices"
	"strings"
)

func sortStrings(s []string) { slices.Sort(s) }

// objectRule is _build_object_rule: required properties in order, then the
// optional ones (and additional properties, "*") in any subset that keeps
// their order.
func (c *Converter) objectRule(props []property, required map[string]bool, name string, additional *Value) string {
	var req, opt, names []string
	kv := map[string]string{}
	prefix := name
	if name != "" {
		prefix += "-"
	}
	for _, p := range props {
		rule := c.Visit(p.schema, prefix+p.name)
		key := (&Value{Kind: String, Str: p.name}).Dump()
		kv[p.name] = c.AddRule(prefix+p.name+"-kv", FormatLiteral(key)+` space ":" space `+rule)
		if required[p.name] {
			req = append(req, p.name)
		} else {
			opt = append(opt, p.name)
		}
		names = append(names, p.name)
	}
	if additional != nil && (isTrue(additional) || additional.Kind == Object) {
		sub := prefix + "additional"
		var value string
		if additional.Kind == Object {
			value = c.Visit(additional, sub+"-value")
		} else {
			value = c.addPrimitive("value", primitiveRules["value"])
		}
		var key string
		if len(names) == 0 {
			key = c.addPrimitive("string", primitiveRules["string"])
		} else {
			key = c.AddRule(sub+"-k", c.notStrings(names))
		}
		kv["*"] = c.AddRule(sub+"-kv", key+` ":" space `+value)
		opt = append(opt, "*")
	}
	rule := `"{" space `
	for i, p := range req {
		if i > 0 {
			rule += ` "," space `
		}
		rule += kv[p]
	}
	if len(opt) > 0 {
		rule += " ("
		if len(req) > 0 {
			rule += ` "," space ( `
		}
		for i := range opt {
			if i > 0 {
				rule += " | "
			}
			rule += c.recursiveRefs(opt[i:], false, name, kv)
		}
		if len(req) > 0 {
			rule += " )"
		}
		rule += " )?"
	}
	return rule + ` "}" space`
}

// recursiveRefs is get_recursive_refs: the first key (optional when
// firstOptional) followed by a rule for any ordered subset of the rest.
func (c *Converter) recursiveRefs(ks []string, firstOptional bool, name string, kv map[string]string) string {
	if len(ks) == 0 {
		return ""
	}
	k := ks[0]
	comma := `( "," space ` + kv[k] + ` )`
	var res string
	if firstOptional {
		if k == "*" {
			res = comma + "*"
		} else {
			res = comma + "?"
		}
	} else {
		res = kv[k]
		if k == "*" {
			res += " " + comma + "*"
		}
	}
	if len(ks) > 1 {
		prefix := name
		if name != "" {
			prefix += "-"
		}
		res += " " + c.AddRule(prefix+k+"-rest", c.recursiveRefs(ks[1:], true, name, kv))
	}
	return res
}

// notStrings is _not_strings: a JSON string that is none of strings, built
// from a trie of them (byte-wise, children in byte order).
func (c *Converter) notStrings(strs []string) string {
	type node struct {
		children map[byte]*node
		end      bool
	}
	root := &node{children: map[byte]*node{}}
	for _, s := range strs {
		n := root
		for i := 0; i < len(s); i++ {
			ch := n.children[s[i]]
			if ch == nil {
				ch = &node{children: map[byte]*node{}}
				n.children[s[i]] = ch
			}
			n = ch
		}
		n.end = true
	}
	char := c.addPrimitive("char", primitiveRules["char"])
	var b strings.Builder
	b.WriteString(`["] ( `)
	var visit func(n *node)
	visit = func(n *node) {
		keys := make([]byte, 0, len(n.children))
		for k := range n.children {
			keys = append(keys, k)
		}
		// std::map<char, ...> with a signed char: bytes >= 0x80 first.
		slices.SortFunc(keys, func(a, b byte) int { return int(int8(a)) - int(int8(b)) })
		var rejects []byte
		for i, k := range keys {
			rejects = append(rejects, k)
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString("[" + string(k) + "]")
			ch := n.children[k]
			if len(ch.children) > 0 {
				b.WriteString(" (")
				visit(ch)
				b.WriteString(")")
			} else if ch.end {
				b.WriteString(" " + char + "+")
			}
		}
		if len(n.children) > 0 {
			if len(keys) > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(`[^"` + string(rejects) + `] ` + char + "*")
		}
	}
	visit(root)
	b.WriteString(" )")
	if !root.end {
		b.WriteString("?")
	}
	b.WriteString(` ["] space`)
	return b.String()
}
