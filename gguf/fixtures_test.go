package gguf

import (
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// fixtureFiles lists every shared GGUF model and vocab-only file.
func fixtureFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{testenv.ModelsDir(t), filepath.Join(testenv.TestdataDir(t), "tokenizer")} {
		testenv.Require(t, dir)
		m, err := filepath.Glob(filepath.Join(dir, "*.gguf"))
		if err != nil {
			t.Fatal(err)
		}
		if len(m) == 0 {
			testenv.Missing(t, "no .gguf files in %s", dir)
		}
		files = append(files, m...)
	}
	return files
}

func sha256File(t *testing.T, path string) [32]byte {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		t.Fatal(err)
	}
	return [32]byte(h.Sum(nil))
}

// TestFixturesRoundTrip opens every shared file and checks that WriteFile
// reproduces it byte for byte (hashes, so memory stays small).
func TestFixturesRoundTrip(t *testing.T) {
	for _, path := range fixtureFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Version != 3 {
				t.Errorf("version %d, want 3", f.Version)
			}
			h := sha256.New()
			cw := &countWriter{w: h}
			if err := WriteFile(cw, f); err != nil {
				t.Fatal(err)
			}
			if cw.n != f.Size() {
				t.Errorf("WriteFile wrote %d bytes, file has %d", cw.n, f.Size())
			}
			if got, want := [32]byte(h.Sum(nil)), sha256File(t, path); got != want {
				t.Errorf("WriteFile output differs from the file (sha256 %x, want %x)", got, want)
			}
		})
	}
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
