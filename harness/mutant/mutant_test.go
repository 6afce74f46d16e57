package mutant

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The project's own catalogues load, and each mutant's find text occurs
// once in its file (what Build needs to plant it).
func TestProjectCatalogues(t *testing.T) {
	for _, dev := range []string{"nic", "switch"} {
		c, err := Load(filepath.Join("..", "..", "rtl", dev, "tb", "mutants.toml"))
		require.NoError(t, err)
		root, err := filepath.Abs(filepath.Join("..", ".."))
		require.NoError(t, err)
		assert.Equal(t, root, c.Root)
		for _, m := range c.Mutants {
			assert.Equal(t, "rtl/"+dev, m.Device(), m.Name)
			require.NoError(t, plant(c.Root, m, filepath.Join(t.TempDir(), "rtl", dev)), m.Name)
		}
	}
}

func TestCatalogueErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sim"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sim", "build.mk"), nil, 0o644))
	ok := "name = \"a\"\nfile = \"rtl/nic/x.sv\"\nfind = \"x\"\nreplace = \"y\"\nbug = \"b\"\n"
	for _, tc := range []struct{ text, want string }{
		{"", "no [[mutant]]"},
		{"[[mutant]]\n" + ok + "extra = 1\n", "unknown key mutant.extra"},
		{"[[mutant]]\n" + ok + "[[mutant]]\n" + ok, `mutant 2 ("a"): its name again`},
		{"[[mutant]]\nname = \"a\"\nfile = \"rtl/common/x.sv\"\nfind = \"x\"\nreplace = \"y\"\nbug = \"b\"\n", "not in a device directory"},
		{"[[mutant]]\nname = \"a\"\nfile = \"rtl/nic/x.sv\"\nfind = \"x\"\nreplace = \"x\"\nbug = \"b\"\n", "find must be text that replace changes"},
		{"[[mutant]]\nname = \"a\"\nfile = \"rtl/nic/x.sv\"\nfind = \"x\"\nreplace = \"y\"\n", "no bug"},
		{"[[mutant]\n", "mutants.toml"},
	} {
		p := filepath.Join(dir, "rtl", "nic", "tb", "mutants.toml")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(tc.text), 0o644))
		_, err := Load(p)
		require.Error(t, err, tc.text)
		assert.Contains(t, err.Error(), tc.want)
	}
	// Outside any repository.
	p := filepath.Join(t.TempDir(), "mutants.toml")
	require.NoError(t, os.WriteFile(p, []byte("[[mutant]]\n"+ok), 0o644))
	_, err := Load(p)
	assert.ErrorContains(t, err, "no directory above it holds sim/build.mk")

	c := &Catalogue{Path: "m.toml", Mutants: []Mutant{{Name: "a"}, {Name: "b"}}}
	_, err = c.Mutant("c")
	assert.EqualError(t, err, `m.toml: no mutant "c" (there are a, b)`)
}

// A find text that is not there once is an error naming the mutant and
// its file, as when the RTL moved under a catalogue.
func TestPlantNeedsOneOccurrence(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "rtl", "nic"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "rtl", "nic", "a.sv"), []byte("x x\n"), 0o644))
	err := plant(root, Mutant{Name: "m", File: "rtl/nic/a.sv", Find: "x", Replace: "y"}, t.TempDir())
	assert.ErrorContains(t, err, "mutant m: its find text occurs 2 times in rtl/nic/a.sv")
	err = plant(root, Mutant{Name: "m", File: "rtl/nic/b.sv", Find: "x", Replace: "y"}, t.TempDir())
	assert.ErrorContains(t, err, "mutant m: no file rtl/nic/b.sv")
}

// sim/build.mk says which models read a device's RTL: the NIC's do not
// include the switch, and neither reads the other's.
func TestUsesDevice(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("needs make")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	b := Build{Root: root}
	rtl := filepath.Join(t.TempDir(), "rtl", "switch")
	for model, want := range map[string]bool{"switch4_64": true, "switch8_64": true, "nic_64": false, "axis_fifo_64": false} {
		top, got, err := b.usesDevice(context.Background(), model, "SIM_SWITCH_DIR="+rtl, rtl)
		require.NoError(t, err)
		assert.Equal(t, want, got, model)
		assert.NotEmpty(t, top)
	}
	_, _, err = b.usesDevice(context.Background(), "nosuch_64", "SIM_SWITCH_DIR="+rtl, rtl)
	assert.ErrorContains(t, err, "no model nosuch_64 in sim/build.mk")
}
