package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// datLine is one point of a Verilator coverage file.
func datLine(fields map[string]string, order []string, count string) string {
	var b strings.Builder
	b.WriteString("C '")
	for _, k := range order {
		b.WriteString("\x01" + k + "\x02" + fields[k])
	}
	return b.String() + "' " + count + "\n"
}

// ReadCoverageData counts points by kind and sums each cover property
// over its instances, in source order, without Verilator's suffix on a
// parameterised module's name. (The real files are read by
// cmd/cosim's TestRTLCoverage* tests.)
func TestReadCoverageData(t *testing.T) {
	order := []string{"f", "l", "n", "page", "o", "h"}
	text := "# SystemC::Coverage-3\n" +
		datLine(map[string]string{"f": "/r/a.sv", "l": "9", "page": "v_line/a", "o": "block", "h": "TOP.a"}, order, "5") +
		datLine(map[string]string{"f": "/r/a.sv", "l": "9", "page": "v_toggle/a", "o": "x[0]", "h": "TOP.a"}, order, "0") +
		datLine(map[string]string{"f": "/r/a.sv", "l": "30", "page": "v_user/sw__pi5", "o": "cov_b", "h": "TOP.a.u0"}, order, "0") +
		datLine(map[string]string{"f": "/r/a.sv", "l": "20", "page": "v_user/sw__pi5", "o": "cov_a", "h": "TOP.a.u0"}, order, "2") +
		datLine(map[string]string{"f": "/r/a.sv", "l": "20", "page": "v_user/sw__pi5", "o": "cov_a", "h": "TOP.a.u1"}, order, "3")
	path := filepath.Join(t.TempDir(), "c.dat")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	kinds, points, err := ReadCoverageData(path)
	require.NoError(t, err)
	assert.Equal(t, map[string]Ratio{"line": {1, 1}, "toggle": {0, 1}, "user": {2, 3}}, kinds)
	assert.Equal(t, []CoverPoint{
		{Module: "sw", Name: "cov_a", File: "/r/a.sv", Line: 20, Hits: 5},
		{Module: "sw", Name: "cov_b", File: "/r/a.sv", Line: 30, Hits: 0},
	}, points)
}

func TestCommonDir(t *testing.T) {
	assert.Equal(t, "/r/repo", commonDir([]string{"/r/repo/rtl/a.sv", "/r/repo/sim/tops/b.sv"}))
	assert.Equal(t, "/r/repo/rtl", commonDir([]string{"/r/repo/rtl/a.sv"}))
	assert.Equal(t, "", commonDir([]string{"/a/x.sv", "/b/y.sv"}))
	assert.Equal(t, "", commonDir([]string{"rtl/a.sv"}))
}

// A campaign without coverage files merges none; one with them but
// without verilator_coverage says which Debian package to install.
func TestMergeRTLCoverageTools(t *testing.T) {
	dir := t.TempDir()
	c, err := MergeRTLCoverage(dir)
	require.NoError(t, err)
	assert.Nil(t, c)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "runs", "0000", "coverage"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "runs", "0000", "coverage", "sw.dat"), []byte("# SystemC::Coverage-3\n"), 0o644))
	t.Setenv("PATH", t.TempDir())
	_, err = MergeRTLCoverage(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "verilator_coverage")
	assert.Contains(t, err.Error(), "Debian's verilator package")
}
