package cosim

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLineRing(t *testing.T) {
	var tee bytes.Buffer
	r := newLineRing(3, &tee)
	assert.Empty(t, r.Lines())
	fmt.Fprint(r, "one\ntw")
	fmt.Fprint(r, "o\r\nthree\n")
	assert.Equal(t, []string{"one", "two", "three"}, r.Lines())
	fmt.Fprint(r, "four\nfive")
	assert.Equal(t, []string{"two", "three", "four", "five"}, r.Lines(), "kept lines plus the unfinished one")
	assert.Equal(t, "one\ntwo\r\nthree\nfour\nfive", tee.String(), "the tee sees every byte")

	r = newLineRing(2, nil)
	fmt.Fprint(r, strings.Repeat("x", 3*maxLineLen)+"\nshort\n")
	lines := r.Lines()
	assert.Len(t, lines, 2)
	assert.Equal(t, strings.Repeat("x", maxLineLen)+" [...]", lines[0], "long lines are cut")
	assert.Equal(t, "short", lines[1])
}
