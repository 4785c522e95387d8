package grammar

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// ResolveRefs records every local "#/..." $ref of schema (rewritten to its
// absolute form, which for a schema without a URL is the same) with the
// sub-schema it points to. Remote references are an error: Waggle fetches
// nothing.
func (c *Converter) ResolveRefs(schema *Value) {
	c.resolveRefs(schema, schema, 0)
}

func (c *Converter) resolveRefs(root, n *Value, depth int) {
	if depth > MaxJSONDepth {
		c.fail("$ref", "schema nested deeper than %d levels", MaxJSONDepth)
		return
	}
	switch n.Kind {
	case Array:
		for _, x := range n.Arr {
			c.resolveRefs(root, x, depth+1)
		}
	case Object:
		r := n.Get("$ref")
		if r == nil {
			for _, x := range n.Vals {
				c.resolveRefs(root, x, depth+1)
			}
			return
		}
		if r.Kind != String {
			c.fail("$ref", "$ref must be a string, got %s", r.Dump())
			return
		}
		ref := r.Str
		if _, done := c.refs[ref]; done {
			return
		}
		if !strings.HasPrefix(ref, "#/") {
			c.fail("$ref", "unsupported ref: %s (only local \"#/...\" references are supported)", ref)
			return
		}
		target := root
		for _, sel := range strings.Split(ref[2:], "/")[0:] {
			if sel == "" && target == root {
				continue
			}
			switch {
			case target.Kind == Object && target.Has(sel):
				target = target.Get(sel)
			case target.Kind == Array:
				i, err := strconv.ParseUint(sel, 10, 64)
				if err != nil || i >= uint64(len(target.Arr)) {
					c.fail("$ref", "error resolving ref %s: %s not in %s", ref, sel, target.Dump())
					return
				}
				target = target.Arr[i]
			default:
				c.fail("$ref", "error resolving ref %s: %s not in %s", ref, sel, target.Dump())
				return
			}
		}
		c.refs[ref] = target
	}
}

func (c *Converter) resolveRef(ref string) string {
	frag := ref
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		frag = ref[i+1:]
	}
	name := "ref" + invalidRuleChars.ReplaceAllString(frag, "-")
	if _, have := c.rules[name]; !have && !c.resolving[ref] {
		c.resolving[ref] = true
		target := c.refs[ref]
		if target == nil {
			target = &Value{Kind: Null}
		}
		name = c.Visit(target, name)
		delete(c.resolving, ref)
	}
	return name
}

func (c *Converter) unionRule(name string, alts []*Value) string {
	parts := make([]string, len(alts))
	for i, a := range alts {
		sep := "-"
		if name == "" {
			sep = "alternative-"
		}
		parts[i] = c.Visit(a, name+sep+strconv.Itoa(i))
	}
	return strings.Join(parts, " | ")
}

func constantRule(v *Value) string { return FormatLiteral(v.Dump()) }

var uuidFormat = regexp.MustCompile(`^uuid[1-5]?$`)

// Visit adds the rules for schema under name ("" = root) and returns the
// rule name to reference (common_schema_converter::visit).
func (c *Converter) Visit(s *Value, name string) string {
	if len(c.errs) > 0 {
		return ""
	}
	typ := s.Get("type")
	format := ""
	if f := s.Get("format"); f != nil {
		if f.Kind != String {
			c.fail("format", "format must be a string, got %s", f.Dump())
			return ""
		}
		format = f.Str
	}
	ruleName := name
	switch {
	case isReservedName(name):
		ruleName = name + "-"
	case name == "":
		ruleName = "root"
	}
	typeIs := func(t string) bool { return typ != nil && typ.Kind == String && typ.Str == t }
	untyped := typ == nil || typ.Kind == Null

	if r := s.Get("$ref"); r != nil {
		if r.Kind != String {
			c.fail("$ref", "$ref must be a string")
			return ""
		}
		return c.AddRule(ruleName, c.resolveRef(r.Str))
	}
	if alts := firstOf(s, "oneOf", "anyOf"); alts != nil {
		if alts.Kind != Array {
			c.fail("anyOf", "oneOf/anyOf must be an array")
			return ""
		}
		return c.AddRule(ruleName, c.unionRule(name, alts.Arr))
	}
	if typ != nil && typ.Kind == Array {
		alts := make([]*Value, len(typ.Arr))
		for i, t := range typ.Arr {
			cp := s.Copy()
			cp.Set("type", t)
			alts[i] = cp
		}
		return c.AddRule(ruleName, c.unionRule(name, alts))
	}
	if k := s.Get("const"); k != nil {
		return c.AddRule(ruleName, constantRule(k)+" space")
	}
	if e := s.Get("enum"); e != nil {
		if e.Kind != Array {
			c.fail("enum", "enum must be an array")
			return ""
		}
		vals := make([]string, len(e.Arr))
		for i, v := range e.Arr {
			vals[i] = constantRule(v)
		}
		return c.AddRule(ruleName, "("+strings.Join(vals, " | ")+") space")
	}
	if (untyped || typeIs("object")) && (s.Has("properties") || s.Has("additionalProperties") && !isTrue(s.Get("additionalProperties"))) {
		return c.AddRule(ruleName, c.objectRule(c.properties(s), c.required(s), name, s.Get("additionalProperties")))
	}
	if (untyped || typeIs("object") || typeIs("string")) && s.Has("allOf") {
		return c.allOf(s, name, ruleName)
	}
	if (untyped || typeIs("array")) && (s.Has("items") || s.Has("prefixItems")) {
		return c.arrayRule(s, name, ruleName)
	}
	if (untyped || typeIs("string")) && s.Has("pattern") {
		p := s.Get("pattern")
		if p.Kind != String {
			c.fail("pattern", "pattern must be a string")
			return ""
		}
		return c.visitPattern(p.Str, ruleName)
	}
	if (untyped || typeIs("string")) && uuidFormat.MatchString(format) {
		n := format
		if ruleName == "root" {
			n = "root"
		}
		return c.addPrimitive(n, primitiveRules["uuid"])
	}
	if r, ok := stringFormatRules[format+"-string"]; ok && (untyped || typeIs("string")) {
		return c.AddRule(ruleName, c.addPrimitive(format+"-string", r))
	}
	if typeIs("string") && (s.Has("minLength") || s.Has("maxLength")) {
		char := c.addPrimitive("char", primitiveRules["char"])
		lo, hi := c.intField(s, "minLength", 0), c.intField(s, "maxLength", -1)
		return c.AddRule(ruleName, `"\"" `+buildRepetition(char, lo, hi, "")+` "\"" space`)
	}
	if typeIs("integer") && (s.Has("minimum") || s.Has("exclusiveMinimum") || s.Has("maximum") || s.Has("exclusiveMaximum")) {
		return c.intRangeRule(s, ruleName)
	}
	if (s.Kind == Object && len(s.Keys) == 0) || typeIs("object") {
		return c.AddRule(ruleName, c.addPrimitive("object", primitiveRules["object"]))
	}
	if untyped && s.Kind == Object {
		return c.AddRule(ruleName, c.addPrimitive("value", primitiveRules["value"]))
	}
	if typ == nil || typ.Kind != String {
		c.fail("type", "unrecognized schema: %s", s.Dump())
		return ""
	}
	r, ok := primitiveRules[typ.Str]
	if !ok {
		c.fail("type", "unrecognized schema: %s (type %q is not supported)", s.Dump(), typ.Str)
		return ""
	}
	n := typ.Str
	if ruleName == "root" {
		n = "root"
	}
	return c.addPrimitive(n, r)
}

func firstOf(s *Value, keys ...string) *Value {
	for _, k := range keys {
		if v := s.Get(k); v != nil {
			return v
		}
	}
	return nil
}

func isTrue(v *Value) bool { return v != nil && v.Kind == Bool && v.Bool }

type property struct {
	name   string
	schema *Value
}

func (c *Converter) properties(s *Value) []property {
	var out []property
	if p := s.Get("properties"); p != nil {
		if p.Kind != Object {
			c.fail("properties", "properties must be an object")
			return nil
		}
		for i, k := range p.Keys {
			out = append(out, property{k, p.Vals[i]})
		}
	}
	return out
}

func (c *Converter) required(s *Value) map[string]bool {
	req := map[string]bool{}
	if r := s.Get("required"); r != nil && r.Kind == Array {
		for _, x := range r.Arr {
			if x.Kind == String {
				req[x.Str] = true
			}
		}
	}
	return req
}

func (c *Converter) arrayRule(s *Value, name, ruleName string) string {
	items := firstOf(s, "items", "prefixItems")
	prefix := name
	if name != "" {
		prefix += "-"
	}
	if items.Kind == Array {
		rule := `"[" space `
		for i, it := range items.Arr {
			if i > 0 {
				rule += ` "," space `
			}
			rule += c.Visit(it, prefix+"tuple-"+strconv.Itoa(i))
		}
		return c.AddRule(ruleName, rule+` "]" space`)
	}
	item := c.Visit(items, prefix+"item")
	lo := c.intField(s, "minItems", 0)
	hi := -1
	if m := s.Get("maxItems"); m != nil && m.isInteger() {
		hi = c.intField(s, "maxItems", -1)
	}
	return c.AddRule(ruleName, `"[" space `+buildRepetition(item, lo, hi, `"," space`)+` "]" space`)
}

func (c *Converter) allOf(s *Value, name, ruleName string) string {
	req := map[string]bool{}
	var props []property
	enumCount := map[string]int{}
	var enumOrder []string
	var add func(comp *Value, required bool, depth int)
	add = func(comp *Value, required bool, depth int) {
		if depth > MaxJSONDepth {
			c.fail("allOf", "allOf references nest deeper than %d", MaxJSONDepth)
			return
		}
		switch {
		case comp.Has("$ref"):
			if target := c.refs[comp.Get("$ref").Str]; target != nil {
				add(target, required, depth+1)
			}
		case comp.Has("properties"):
			for _, p := range c.properties(comp) {
				props = append(props, p)
				if required {
					req[p.name] = true
				}
			}
		case comp.Has("enum"):
			for _, v := range comp.Get("enum").Arr {
				r := constantRule(v)
				if _, ok := enumCount[r]; !ok {
					enumOrder = append(enumOrder, r)
				}
				enumCount[r]++
			}
		}
	}
	all := s.Get("allOf")
	if all.Kind != Array {
		c.fail("allOf", "allOf must be an array")
		return ""
	}
	for _, t := range all.Arr {
		if any := t.Get("anyOf"); any != nil && any.Kind == Array {
			for _, tt := range any.Arr {
				add(tt, false, 0)
			}
		} else {
			add(t, true, 0)
		}
	}
	if len(enumCount) > 0 {
		// std::map iterates the constants in byte order.
		sortStrings(enumOrder)
		var inter []string
		for _, r := range enumOrder {
			if enumCount[r] == len(all.Arr) {
				inter = append(inter, r)
			}
		}
		if len(inter) > 0 {
			return c.AddRule(ruleName, "("+strings.Join(inter, " | ")+") space")
		}
	}
	return c.AddRule(ruleName, c.objectRule(props, req, name, nil))
}

func (c *Converter) intRangeRule(s *Value, ruleName string) string {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	get := func(key string) (int64, bool) {
		v := s.Get(key)
		if v == nil {
			return 0, false
		}
		if v.Kind != Number {
			c.fail(key, "%s must be a number", key)
			return 0, false
		}
		i, err := strconv.ParseInt(v.Num, 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(v.Num, 64)
			if ferr != nil || f < math.MinInt64 || f >= math.MaxInt64 {
				c.fail(key, "%s is out of the int64 range: %s", key, v.Num)
				return 0, false
			}
			i = int64(f) // get<int64_t> truncates
		}
		return i, true
	}
	if v, ok := get("minimum"); ok {
		lo = v
	} else if v, ok := get("exclusiveMinimum"); ok {
		lo = v + 1
	}
	if v, ok := get("maximum"); ok {
		hi = v
	} else if v, ok := get("exclusiveMaximum"); ok {
		hi = v - 1
	}
	var b strings.Builder
	b.WriteString("(")
	if err := buildMinMaxInt(lo, hi, &b, 16, true); err != nil {
		c.fail("minimum", "%v", err)
		return ""
	}
	b.WriteString(") space")
	return c.AddRule(ruleName, b.String())
}
