package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
)

// Several model directories are searched in order, as PATH is: the first
// that has the binary wins, and with none the path names the first.
func TestModelPathSearchesDirectoriesInOrder(t *testing.T) {
	top := engine.Top{Name: "mine", Module: "mine_top"}
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	put := func(dir string) string {
		p := filepath.Join(dir, "mine_64", "Vmine_top")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o755))
		return p
	}
	list := strings.Join([]string{a, b, c}, string(filepath.ListSeparator))
	assert.Equal(t, filepath.Join(a, "mine_64", "Vmine_top"), engine.ModelPath(list, top, 64), "none has it")
	inC := put(c)
	assert.Equal(t, inC, engine.ModelPath(list, top, 64))
	inB := put(b)
	assert.Equal(t, inB, engine.ModelPath(list, top, 64), "b comes before c")
	assert.Equal(t, inC, engine.ModelPath(c, top, 64), "one directory")
	assert.Equal(t, filepath.Join("mine_64", "Vmine_top"), engine.ModelPath("", top, 64))
}
