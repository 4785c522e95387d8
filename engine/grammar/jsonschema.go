package grammar

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// spaceRule is llama.cpp's SPACE_RULE: nothing, a space, or one or two
// newlines and up to 20 blanks.
const spaceRule = `| " " | "\n"{1,2} [ \t]{0,20}`

type builtinRule struct {
	content string
	deps    []string
}

var primitiveRules = map[string]builtinRule{
	"boolean":       {`("true" | "false") space`, nil},
	"decimal-part":  {`[0-9]{1,16}`, nil},
	"integral-part": {`[0] | [1-9] [0-9]{0,15}`, nil},
	"number":        {`("-"? integral-part) ("." decimal-part)? ([eE] [-+]? integral-part)? space`, []string{"integral-part", "decimal-part"}},
	"integer":       {`("-"? integral-part) space`, []string{"integral-part"}},
	"value":         {`object | array | string | number | boolean | null`, []string{"object", "array", "string", "number", "boolean", "null"}},
	"object":        {`"{" space ( string ":" space value ("," space string ":" space value)* )? "}" space`, []string{"string", "value"}},
	"array":         {`"[" space ( value ("," space value)* )? "]" space`, []string{"value"}},
	"uuid":          {`"\"" [0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12} "\"" space`, nil},
	"char":          {`[^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})`, nil},
	"string":        {`"\"" char* "\"" space`, []string{"char"}},
	"null":          {`"null" space`, nil},
}

var stringFormatRules = map[string]builtinRule{
	"date":             {`[0-9]{4} "-" ( "0" [1-9] | "1" [0-2] ) "-" ( "0" [1-9] | [1-2] [0-9] | "3" [0-1] )`, nil},
	"time":             {`([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{3} )? ( "Z" | ( "+" | "-" ) ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )`, nil},
	"date-time":        {`date "T" time`, []string{"date", "time"}},
	"date-string":      {`"\"" date "\"" space`, []string{"date"}},
	"time-string":      {`"\"" time "\"" space`, []string{"time"}},
	"date-time-string": {`"\"" date-time "\"" space`, []string{"date-time"}},
}

func isReservedName(name string) bool {
	if name == "root" {
		return true
	}
	_, p := primitiveRules[name]
	_, f := stringFormatRules[name]
	return p || f
}

var invalidRuleChars = regexp.MustCompile(`[^a-zA-Z0-9-]+`)

// FormatLiteral quotes s as a GBNF literal (gbnf_format_literal): only
// \r, \n, " and \ are escaped.
func FormatLiteral(s string) string {
	r := strings.NewReplacer("\r", `\r`, "\n", `\n`, `"`, `\"`, `\`, `\\`)
	return `"` + r.Replace(s) + `"`
}

// SchemaError is a JSON schema the converter cannot turn into a grammar;
// Construct names the offending keyword or value.
type SchemaError struct {
	Construct string
	Msg       string
}

func (e *SchemaError) Error() string { return "json_schema: " + e.Msg }

// Converter turns JSON schemas into GBNF rules with the semantics, rule
// names and output of llama.cpp's common_schema_converter
// (common/json-schema-to-grammar.cpp). Several schemas and hand-written
// rules may share one Converter; Grammar prints them all, sorted by name.
type Converter struct {
	DotAll    bool
	rules     map[string]string
	refs      map[string]*Value
	resolving map[string]bool
	errs      []*SchemaError
}

// NewConverter returns a Converter holding only the space rule.
func NewConverter() *Converter {
	return &Converter{rules: map[string]string{"space": spaceRule}, refs: map[string]*Value{}, resolving: map[string]bool{}}
}

// SchemaToGrammar converts one JSON schema to a grammar rooted at "root"
// (json_schema_to_grammar).
func SchemaToGrammar(schema *Value) (string, error) {
	c := NewConverter()
	s := schema.Copy()
	c.ResolveRefs(s)
	c.Visit(s, "")
	return c.Grammar()
}

// Grammar returns the rules as GBNF, or the first conversion error.
func (c *Converter) Grammar() (string, error) {
	if len(c.errs) > 0 {
		return "", c.errs[0]
	}
	names := make([]string, 0, len(c.rules))
	for n := range c.rules {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + " ::= " + c.rules[n] + "\n")
	}
	return b.String(), nil
}

func (c *Converter) fail(construct, format string, args ...any) {
	c.errs = append(c.errs, &SchemaError{Construct: construct, Msg: fmt.Sprintf(format, args...)})
}

// AddRule adds a rule under name (invalid characters become "-"); a name
// taken by a different rule gets the first free numeric suffix.
func (c *Converter) AddRule(name, rule string) string {
	esc := invalidRuleChars.ReplaceAllString(name, "-")
	if old, ok := c.rules[esc]; !ok || old == rule {
		c.rules[esc] = rule
		return esc
	}
	i := 0
	for {
		key := esc + strconv.Itoa(i)
		if old, ok := c.rules[key]; !ok || old == rule {
			c.rules[key] = rule
			return key
		}
		i++
	}
}

func (c *Converter) addPrimitive(name string, r builtinRule) string {
	n := c.AddRule(name, r.content)
	for _, dep := range r.deps {
		d, ok := primitiveRules[dep]
		if !ok {
			d, ok = stringFormatRules[dep]
		}
		if !ok {
			c.fail(dep, "rule %s not known", dep)
			continue
		}
		if _, have := c.rules[dep]; !have {
			c.addPrimitive(dep, d)
		}
	}
	return n
}

// buildRepetition is build_repetition: item repeated min..max times (max
// < 0 = unbounded), joined by sep when given.
func buildRepetition(item string, min, max int, sep string) string {
	hasMax := max >= 0
	if max == 0 {
		return ""
	}
	if min == 0 && max == 1 {
		return item + "?"
	}
	if sep == "" {
		switch {
		case min == 1 && !hasMax:
			return item + "+"
		case min == 0 && !hasMax:
			return item + "*"
		}
		s := item + "{" + strconv.Itoa(min) + ","
		if hasMax {
			s += strconv.Itoa(max)
		}
		return s + "}"
	}
	innerMax := max
	if hasMax {
		innerMax = max - 1
	}
	res := item + " " + buildRepetition("("+sep+" "+item+")", max0(min-1), innerMax, "")
	if min == 0 {
		res = "(" + res + ")?"
	}
	return res
}

func max0(x int) int {
	if x < 0 {
		return 0
	}
	return x
}

// intField reads an integer keyword (get<int>), recording a clear error for
// anything else.
func (c *Converter) intField(s *Value, key string, def int) int {
	v := s.Get(key)
	if v == nil {
		return def
	}
	if v.Kind != Number {
		c.fail(key, "%s must be an integer, got %s", key, v.Dump())
		return def
	}
	f, err := strconv.ParseFloat(v.Num, 64)
	if err != nil || f < 0 || f > math.MaxInt32 || f != math.Trunc(f) {
		c.fail(key, "%s must be a non-negative integer, got %s", key, v.Num)
		return def
	}
	return int(f)
}
