package turbo

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// tablesDir is the folder of data files kv-turboquant.md's tables were
// extracted into, beside the checkout in ../shared.
func tablesDir(t *testing.T) string {
	t.Helper()
	return testenv.Require(t, filepath.Join(testenv.RepoRoot(t), "..", "shared", "docs", "reference", "turbo-tables"))
}

var shaInHeader = regexp.MustCompile(`SHA-256 of the values as little-endian float32 \((\d+) bytes\): ([0-9a-f]{64})`)

// leSHA256 is the SHA-256 of v as little-endian float32, the digest the data
// files and the reference doc quote.
func leSHA256(v []float32) string {
	b := make([]byte, 0, 4*len(v))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestTablesMatchReferenceFiles parses every data file (values to the
// nearest float32) and requires the generated Go tables to be bit-identical,
// and the file header's SHA-256 to match both.
func TestTablesMatchReferenceFiles(t *testing.T) {
	dir := tablesDir(t)
	for file, table := range map[string][]float32{
		"centroids-2bit.txt":  centroids2[:],
		"thresholds-2bit.txt": thresholds2[:],
		"centroids-3bit.txt":  centroids3[:],
		"thresholds-3bit.txt": thresholds3[:],
		"centroids-4bit.txt":  centroids4[:],
		"thresholds-4bit.txt": thresholds4[:],
		"signs-s1.txt":        signs1[:],
		"signs-s2.txt":        signs2[:],
		"tcq3-codebook.txt":   tcq3Codebook[:],
		"tcq2-codebook.txt":   tcq2Codebook[:],
	} {
		header, vals := readTableFile(t, filepath.Join(dir, file))
		if len(vals) != len(table) {
			t.Errorf("%s: %d values, Go table has %d", file, len(vals), len(table))
			continue
		}
		for i, v := range vals {
			if math.Float32bits(v) != math.Float32bits(table[i]) {
				t.Errorf("%s[%d]: file %g, Go %g", file, i, v, table[i])
			}
		}
		m := shaInHeader.FindStringSubmatch(header)
		if m == nil {
			t.Errorf("%s: no SHA-256 in header %q", file, header)
			continue
		}
		if m[1] != strconv.Itoa(4*len(vals)) || m[2] != leSHA256(vals) || m[2] != leSHA256(table) {
			t.Errorf("%s: header SHA-256 %s (%s bytes), file values %s, Go table %s", file, m[2], m[1], leSHA256(vals), leSHA256(table))
		}
	}
}

func readTableFile(t *testing.T, path string) (string, []float32) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		testenv.Missing(t, "%v", err)
	}
	defer f.Close()
	var header string
	var vals []float32
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "#"):
			header = line
		default:
			v, err := strconv.ParseFloat(line, 32)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			vals = append(vals, float32(v))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return header, vals
}

// TestTablesMatchDoc checks the Go tables against the facts kv-turboquant.md
// states in prose, so they are guarded even without the data files.
func TestTablesMatchDoc(t *testing.T) {
	signs := []struct {
		name     string
		v        *[BlockSize]float32
		pm, hex  string
		negative int
	}{
		{"s1", &signs1, "-++--+-+--+++++++-+-+--+++-++----++-++-+-++--+-++++-----+-++++-+--+---+---+---+++--+++--++-++-+--++-+-+-++++-+-++-++-----++-++-+",
			"49f250a9a4c63bbb42f85949e46a0359", 60},
		{"s2", &signs2, "++++-++-+---+---++--+-+-+--+-+++++---+------+++-+-+++--+------+++-+----+-+-+--++-+-++-+----+--+-+-+++--+-+-++--+-+-++-+-+-----+-",
			"bea56562b7a5357a3f628fdc16acee90", 70},
	}
	for _, s := range signs {
		mask, _ := new(big.Int).SetString(s.hex, 16)
		neg := 0
		for i, v := range s.v {
			want := float32(1)
			if s.pm[i] == '-' {
				want = -1
				neg++
			}
			if v != want || (mask.Bit(i) == 1) != (v < 0) {
				t.Errorf("%s[%d] = %g, doc says %c (bit %d)", s.name, i, v, s.pm[i], mask.Bit(i))
			}
		}
		if neg != s.negative {
			t.Errorf("%s has %d negatives, doc says %d", s.name, neg, s.negative)
		}
	}
	if got := leSHA256(tcq3Codebook[:]); got != "ea543d986b0aacb4415c3c857713ad7d6dd962220c0118e1f721f7e595117189" {
		t.Errorf("tcq3 codebook SHA-256 %s", got)
	}
	if got := leSHA256(tcq2Codebook[:]); got != "0d100bb40d66d5b895bf35043963f6e087dd6a8fce3837b4032e450c916eb6ef" {
		t.Errorf("tcq2 codebook SHA-256 %s", got)
	}
	if tcq3Codebook[421] != tcq3Codebook[422] || tcq3Codebook[0] != -0.14559399 || tcq3Codebook[511] != 0.23508036 {
		t.Error("tcq3 codebook spot values differ from the doc")
	}
	if tcq2Codebook[177] != tcq2Codebook[178] || tcq2Codebook[0] != -0.18030643 || tcq2Codebook[255] != 0.18042557 {
		t.Error("tcq2 codebook spot values differ from the doc")
	}
	// Scalar tables: increasing, symmetric, thresholds at the midpoints
	// (to the 6 decimals the source prints).
	for _, typ := range []Type{Turbo2, Turbo3, Turbo4} {
		levels, th := scalarTables(typ)
		for i := range th {
			mid := (float64(levels[i]) + float64(levels[i+1])) / 2
			if !(levels[i] < levels[i+1]) || math.Abs(float64(th[i])-mid) > 1e-6 {
				t.Errorf("%s: threshold %d = %g, midpoint %g", typ, i, th[i], mid)
			}
		}
		for i := range levels {
			if levels[i] != -levels[len(levels)-1-i] {
				t.Errorf("%s: levels not symmetric at %d", typ, i)
			}
		}
	}
}
