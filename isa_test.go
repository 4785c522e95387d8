package waggle_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestAssemblyLevels checks every assembly function of the module against
// the instruction-set level its name claims, for amd64 and arm64, from the
// assembler's own listing of the code it emitted (go build -asmflags=-S:
// each instruction with its offset, and the function's bytes). The host CPU
// plays no part, so an AVX2 kernel that the Go assembler silently encoded
// with EVEX (an operand form VEX lacks, such as a shift by immediate from
// memory) fails here even on an AVX-512 machine. go tool objdump is not
// used: its x86 decoder has no VEX or EVEX tables and loses the instruction
// boundaries.
//
// Levels by name (see asmLevel): amd64 functions named …AVX512… or …VNNI…
// may use anything; …AVX2… no EVEX encoding, K mask register or X/Y/Z16-31;
// any other name no VEX either (the SSE2 baseline every amd64 CPU has).
// arm64 functions named …I8MM… may use anything; …NEONDot… the dot-product
// instructions (SDOT, UDOT) but not I8MM's (USDOT, SUDOT, SMMLA, UMMLA,
// USMMLA); any other name neither.
func TestAssemblyLevels(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			funcs := asmListing(t, arch)
			if len(funcs) == 0 {
				t.Fatalf("no assembly functions found for %s", arch)
			}
			var bad []string
			for _, f := range funcs {
				bad = append(bad, levelViolations(arch, f)...)
			}
			if len(bad) > 0 {
				t.Errorf("%d instructions above their function's level:\n%s", len(bad), strings.Join(bad, "\n"))
			}
			t.Logf("%d %s assembly functions checked", len(funcs), arch)
		})
	}
}

// asmFunc is one TEXT symbol of an assembler listing.
type asmFunc struct {
	name  string // package-qualified, as the listing names it
	insns []asmInsn
}

// asmInsn is one instruction: where it came from, how the listing prints
// it, and its encoding.
type asmInsn struct {
	src, text string
	code      []byte
}

// asmListing builds the module's packages that have assembly for goarch
// with the assembler listing on and returns their functions, by name.
func asmListing(t *testing.T, goarch string) []asmFunc {
	t.Helper()
	env := append(os.Environ(), "GOOS=linux", "GOARCH="+goarch, "CGO_ENABLED=0")
	list := exec.Command("go", "list", "-f", "{{if .SFiles}}{{.ImportPath}}{{end}}", "./...")
	list.Env = env
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := strings.Fields(string(out))
	build := exec.Command("go", append([]string{"build", "-asmflags=-S", "-o", os.DevNull}, pkgs...)...)
	build.Env = env
	listing, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("go build %v for %s: %v\n%s", pkgs, goarch, err, listing)
	}
	funcs, err := parseAsmListing(listing)
	if err != nil {
		t.Fatal(err)
	}
	return funcs
}

var (
	asmTextHeader = regexp.MustCompile(`^(\S+) STEXT .*\bsize=(\d+)`)
	asmInsnLine   = regexp.MustCompile(`^\t0x[0-9a-f]+ (\d+) \(([^)]*)\)\t(.*)$`)
	asmHexLine    = regexp.MustCompile(`^\t0x([0-9a-f]+)((?: [0-9a-f]{2})+)`)
)

// parseAsmListing splits the assembler's -S output into functions, each
// instruction with its bytes (from its offset to the next one's). Data
// symbols, relocation lines and zero-length pseudo-instructions are
// dropped; a function listed twice is kept once.
func parseAsmListing(listing []byte) ([]asmFunc, error) {
	type pending struct {
		name       string
		size       int
		pcs        []int
		srcs, text []string
		code       []byte
	}
	seen := map[string]bool{}
	var funcs []asmFunc
	var cur *pending
	flush := func() error {
		if cur == nil || seen[cur.name] {
			cur = nil
			return nil
		}
		if len(cur.code) < cur.size {
			return fmt.Errorf("%s: listing has %d of its %d bytes", cur.name, len(cur.code), cur.size)
		}
		f := asmFunc{name: cur.name}
		for i, pc := range cur.pcs {
			end := cur.size
			if i+1 < len(cur.pcs) {
				end = cur.pcs[i+1]
			}
			if end > pc {
				f.insns = append(f.insns, asmInsn{src: cur.srcs[i], text: cur.text[i], code: cur.code[pc:end]})
			}
		}
		seen[cur.name] = true
		funcs = append(funcs, f)
		cur = nil
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "\t") {
			if err := flush(); err != nil {
				return nil, err
			}
			if m := asmTextHeader.FindStringSubmatch(line); m != nil {
				size, _ := strconv.Atoi(m[2])
				cur = &pending{name: m[1], size: size}
			}
			continue
		}
		if cur == nil {
			continue
		}
		if m := asmInsnLine.FindStringSubmatch(line); m != nil {
			pc, _ := strconv.Atoi(m[1])
			cur.pcs, cur.srcs, cur.text = append(cur.pcs, pc), append(cur.srcs, m[2]), append(cur.text, m[3])
		} else if m := asmHexLine.FindStringSubmatch(line); m != nil {
			b, err := hex.DecodeString(strings.ReplaceAll(m[2], " ", ""))
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %v", cur.name, line, err)
			}
			cur.code = append(cur.code, b...)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].name < funcs[j].name })
	return funcs, sc.Err()
}

// Instruction-set levels of TestAssemblyLevels, per architecture.
const (
	levelBase    = iota // amd64: SSE2; arm64: Advanced SIMD (NEON)
	levelMiddle         // amd64: AVX2 (VEX); arm64: dot product
	levelTopmost        // amd64: AVX-512 (EVEX, K registers); arm64: I8MM
)

var levelNames = map[string][3]string{
	"amd64": {"SSE2", "AVX2", "AVX-512"},
	"arm64": {"NEON", "NEON dot product", "I8MM"},
}

// asmLevel is the level a function's name claims.
func asmLevel(arch, name string) int {
	fn := name[strings.LastIndex(name, ".")+1:]
	switch arch {
	case "amd64":
		switch {
		case strings.Contains(fn, "AVX512"), strings.Contains(fn, "VNNI"):
			return levelTopmost
		case strings.Contains(fn, "AVX2"):
			return levelMiddle
		}
	case "arm64":
		switch {
		case strings.Contains(fn, "I8MM"):
			return levelTopmost
		case strings.Contains(fn, "NEONDot"):
			return levelMiddle
		}
	}
	return levelBase
}

// levelViolations lists, one line each, the instructions of f that need a
// level above the one its name claims.
func levelViolations(arch string, f asmFunc) []string {
	have := asmLevel(arch, f.name)
	var bad []string
	for _, in := range f.insns {
		need, why := x86Needs(in)
		if arch == "arm64" {
			need, why = arm64Needs(in)
		}
		if need > have {
			bad = append(bad, fmt.Sprintf("%s (%s): %s\t%x\t%s needs %s: %s",
				f.name, levelNames[arch][have], in.src, in.code, in.text, levelNames[arch][need], why))
		}
	}
	return bad
}

var (
	x86MaskReg  = regexp.MustCompile(`\bK[0-7]\b`)
	x86HighVec  = regexp.MustCompile(`\b[XY](1[6-9]|2[0-9]|3[01])\b|\bZ([0-9]|[12][0-9]|3[01])\b`)
	x86Prefixes = []byte{0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf0, 0xf2, 0xf3}
)

// x86Needs returns the level an amd64 instruction needs and why: AVX-512
// for an EVEX encoding (first byte 0x62 after any legacy prefixes; in
// 64-bit mode 0x62 is nothing else), a K mask register or a vector
// register only EVEX can name; AVX2 for a VEX encoding (0xC4, 0xC5).
func x86Needs(in asmInsn) (int, string) {
	code := in.code
	for len(code) > 0 && bytes.IndexByte(x86Prefixes, code[0]) >= 0 {
		code = code[1:]
	}
	switch {
	case len(code) > 0 && code[0] == 0x62:
		return levelTopmost, "EVEX encoding"
	case x86MaskReg.MatchString(in.text):
		return levelTopmost, "mask register"
	case x86HighVec.MatchString(in.text):
		return levelTopmost, "vector register 16-31 or ZMM"
	case len(code) > 0 && (code[0] == 0xc4 || code[0] == 0xc5):
		return levelMiddle, "VEX encoding"
	}
	return levelBase, ""
}

// arm64Ops are the instruction encodings above plain NEON (Arm ARM, "SIMD
// dot product" and "SIMD matrix multiply"): an instruction word w is op
// when w&mask == bits.
var arm64Ops = []struct {
	mask, bits uint32
	name       string
	level      int
}{
	{0xbfe0fc00, 0x0e809400, "SDOT (vector)", levelMiddle},
	{0xbfe0fc00, 0x2e809400, "UDOT (vector)", levelMiddle},
	{0xbfc0f400, 0x0f80e000, "SDOT (by element)", levelMiddle},
	{0xbfc0f400, 0x2f80e000, "UDOT (by element)", levelMiddle},
	{0xbfe0fc00, 0x0e809c00, "USDOT (vector)", levelTopmost},
	{0xbfc0f400, 0x0f00f000, "SUDOT (by element)", levelTopmost},
	{0xbfc0f400, 0x0f80f000, "USDOT (by element)", levelTopmost},
	{0xffe0fc00, 0x4e80a400, "SMMLA", levelTopmost},
	{0xffe0fc00, 0x6e80a400, "UMMLA", levelTopmost},
	{0xffe0fc00, 0x4e80ac00, "USMMLA", levelTopmost},
}

// arm64Needs returns the level an arm64 instruction needs and its name.
func arm64Needs(in asmInsn) (int, string) {
	need, why := levelBase, ""
	for i := 0; i+4 <= len(in.code); i += 4 {
		w := binary.LittleEndian.Uint32(in.code[i:])
		for _, op := range arm64Ops {
			if w&op.mask == op.bits && op.level > need {
				need, why = op.level, op.name
			}
		}
	}
	return need, why
}

// TestAssemblyLevelsCatches feeds the checker a listing with one
// instruction above its function's level per rule and requires each to be
// reported, and nothing else: an EVEX shift from memory and a mask register
// in an AVX2 function, a VEX instruction in an unlevelled one, SDOT in a
// plain NEON function and SMMLA in a dot-product one.
func TestAssemblyLevelsCatches(t *testing.T) {
	amd64 := "" +
		"pkg.shrAVX2 STEXT nosplit asm size=19 args=0x0 locals=0x0\n" +
		"\t0x0000 00000 (a.s:1)\tTEXT\tpkg.shrAVX2(SB), NOSPLIT, $0-0\n" +
		"\t0x0000 00000 (a.s:2)\tVPSRLW\t$4, 16(SI), Y8\n" +
		"\t0x000b 00011 (a.s:3)\tVXORPS\tY4, Y4, Y4\n" +
		"\t0x000f 00015 (a.s:4)\tKMOVW\tAX, K1\n" +
		"\t0x0000 62 f1 3d 28 71 96 10 00 00 00 04 c5 dc 57 e4 c5  b.=(q...........\n" +
		"\t0x0010 f8 92 c8                                         ...\n" +
		"pkg.prefetchRows STEXT nosplit asm size=8 args=0x0 locals=0x0\n" +
		"\t0x0000 00000 (b.s:1)\tPREFETCHT0\t(SI)\n" +
		"\t0x0003 00003 (b.s:2)\tVXORPS\tY4, Y4, Y4\n" +
		"\t0x0007 00007 (b.s:3)\tRET\n" +
		"\t0x0000 0f 18 0e c5 dc 57 e4 c3                          .....W..\n" +
		"pkg.vecDotAVX512 STEXT nosplit asm size=11 args=0x0 locals=0x0\n" +
		"\t0x0000 00000 (c.s:1)\tVPSRLW\t$4, 16(SI), Y8\n" +
		"\t0x0000 62 f1 3d 28 71 96 10 00 00 00 04                 b.=(q......\n"
	arm64 := "" +
		"pkg.dotNEON STEXT nosplit asm size=8 args=0x0 locals=0x0 leaf\n" +
		"\t0x0000 00000 (d.s:1)\tWORD\t$1317180452\n" +
		"\t0x0004 00004 (d.s:2)\tVADDV\tV4.S4, V4\n" +
		"\t0x0000 24 94 82 4e 84 b8 b1 4e                          $..N...N\n" +
		"pkg.dotNEONDot STEXT nosplit asm size=8 args=0x0 locals=0x0 leaf\n" +
		"\t0x0000 00000 (e.s:1)\tWORD\t$1317180452\n" +
		"\t0x0004 00004 (e.s:2)\tWORD\t$0x4e82a424\n" +
		"\t0x0000 24 94 82 4e 24 a4 82 4e                          $..N$..N\n"
	want := map[string][]string{
		"amd64": {"pkg.prefetchRows (SSE2): b.s:2", "pkg.shrAVX2 (AVX2): a.s:2", "pkg.shrAVX2 (AVX2): a.s:4"},
		"arm64": {"pkg.dotNEON (NEON): d.s:1", "pkg.dotNEONDot (NEON dot product): e.s:2"},
	}
	for arch, listing := range map[string]string{"amd64": amd64, "arm64": arm64} {
		funcs, err := parseAsmListing([]byte(listing))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range funcs {
			for _, v := range levelViolations(arch, f) {
				got = append(got, v[:strings.IndexByte(v, '\t')])
			}
		}
		if strings.Join(got, "\n") != strings.Join(want[arch], "\n") {
			t.Errorf("%s: reported\n%s\nwant\n%s", arch, strings.Join(got, "\n"), strings.Join(want[arch], "\n"))
		}
	}
}
