package scenario

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse feeds arbitrary text to Parse: it must not panic, must fail
// only with an *Error naming the file and a line of the input, and must
// give the same result twice. There is no round trip: the project has no
// encoder, and defaults depend on which keys the text wrote.
func FuzzParse(f *testing.F) {
	var seeds [][]byte
	for _, pattern := range []string{"default.toml", "testdata/*.toml", "../bridge/default.toml", "../../cmd/cosim/testdata/*.toml"} {
		names, err := filepath.Glob(pattern)
		require.NoError(f, err)
		require.NotEmpty(f, names, pattern)
		for _, name := range names {
			data, err := os.ReadFile(name)
			require.NoError(f, err)
			seeds = append(seeds, data)
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	// Broken variants of the default: cut mid-table and mid-string, a
	// duplicated table header, a wrong type, an unknown key.
	def := seeds[0]
	f.Add(def[:len(def)/2])
	f.Add(def[:bytes.IndexByte(def, '"')+1])
	f.Add(append(bytes.Clone(def), "\n[bridge]\n[bridge]\n"...))
	f.Add(append(bytes.Clone(def), "\ncycles = \"many\"\n"...))
	f.Add(append(bytes.Clone(def), "\n[[model]]\nname = \"x\"\nnot_a_key = 1\n"...))
	f.Add([]byte("[[link]]\nfrom = \"a.out0\"\nto = \"a.in0\"\nlatency = 9223372036854775807\nreorder_pct = 50\n"))
	f.Add([]byte("cycles = -1\n"))
	f.Add([]byte(""))

	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz.toml"
		s, err := Parse(file, data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T is not a *scenario.Error: %v", err, err)
			}
			if e.File != file {
				t.Fatalf("error names %q, not %q: %v", e.File, file, err)
			}
			if lines := 1 + bytes.Count(data, []byte("\n")); e.Line < 0 || e.Line > lines {
				t.Fatalf("error names line %d of a %d-line input: %v", e.Line, lines, err)
			}
		}
		s2, err2 := Parse(file, data)
		require.Equal(t, err, err2, "parsed twice, errors differ")
		require.Equal(t, s, s2, "parsed twice, scenarios differ")
	})
}
