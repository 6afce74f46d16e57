package treecheck

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines is the length past which a Go file (tests aside) must say why
// it is long.
const maxLines = 600

// longMarker starts the comment line that gives the reason, among the
// first headLines lines of the file.
const (
	longMarker = "// Long file:"
	headLines  = 20
)

// TestFileLength lists every non-test Go file over maxLines lines whose
// first lines do not state a reason with longMarker.
func TestFileLength(t *testing.T) {
	root := repoRoot(t)
	var bad []string
	for _, f := range treeFiles(t, root) {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		n := bytes.Count(data, []byte("\n"))
		if n <= maxLines || hasReason(data) {
			continue
		}
		bad = append(bad, fmt.Sprintf("%s: %d lines", f, n))
	}
	if len(bad) > 0 {
		t.Errorf("Go files over %d lines without a %q line at the top (split them, or say why):\n%s",
			maxLines, longMarker, strings.Join(bad, "\n"))
	}
}

func hasReason(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for i := 0; i < headLines && sc.Scan(); i++ {
		if strings.HasPrefix(strings.TrimSpace(sc.Text()), longMarker) {
			return true
		}
	}
	return false
}
