package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
)

// TestDefaultModels: `make cosim` builds only the models that
// harness/scenario/default.mk lists, so the list must name exactly the
// models the default scenario runs, or `cosim run` would miss a binary.
func TestDefaultModels(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "..", "harness", "scenario", "default.mk"))
	require.NoError(t, err)
	var listed []string
	for line := range strings.Lines(string(mk)) {
		if name, value, ok := strings.Cut(line, ":="); ok && strings.TrimSpace(name) == "DEFAULT_MODELS" {
			listed = strings.Fields(value)
		}
	}
	require.NotEmpty(t, listed, "default.mk sets no DEFAULT_MODELS")

	sc, err := scenario.Default()
	require.NoError(t, err)
	var used []string
	for _, m := range sc.Models {
		if m.Remote != "" {
			continue // built and run elsewhere
		}
		top, err := engine.LookupTop(m.Top)
		require.NoError(t, err)
		used = append(used, engine.ModelName(top, m.DataWidth))
	}
	slices.Sort(used)
	used = slices.Compact(used)
	slices.Sort(listed)
	require.Equal(t, used, listed, "DEFAULT_MODELS in harness/scenario/default.mk must list the models default.toml uses")
}
