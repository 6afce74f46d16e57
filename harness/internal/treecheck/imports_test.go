package treecheck

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// forbidden lists, per top-level Go folder, the folders it must not import
// from, directly or through others, tests included: imports flow
// cmd -> harness -> {cosim, golden}.
var forbidden = map[string][]string{
	"cosim":  {"harness", "golden"},
	"golden": {"harness", "cosim"},
}

// listPkg is what `go list -json` says of a package.
type listPkg struct {
	ImportPath string
	Imports    []string
}

// TestImportRules runs `go list -test -deps` on cosim/... and golden/...:
// every package of theirs, and every test package of theirs, is listed
// with its imports. It names each import of a folder the package must not
// depend on. A forbidden dependency through another package is reported
// where that package imports it directly, since the chain must pass
// through cosim or golden (reported too) or start in a forbidden folder.
func TestImportRules(t *testing.T) {
	root := repoRoot(t)
	mod := goOutput(t, root, "list", "-m", "-f", "{{.Path}}")
	mod = strings.TrimSpace(mod)
	var bad []string
	for _, from := range []string{"cosim", "golden"} {
		out := goOutput(t, root, "list", "-test", "-json=ImportPath,Imports", "./"+from+"/...")
		dec := json.NewDecoder(strings.NewReader(out))
		for {
			var p listPkg
			if err := dec.Decode(&p); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("go list output: %v", err)
			}
			name, variant, _ := strings.Cut(p.ImportPath, " ") // "pkg [pkg.test]": built for a test
			shown := strings.TrimPrefix(name, mod+"/")
			if variant != "" {
				shown += " (tests)"
			}
			if !strings.HasPrefix(name, mod+"/"+from) || strings.HasSuffix(name, ".test") {
				continue // another folder's package, judged under it; or a generated test main
			}
			for _, d := range p.Imports {
				d, _, _ = strings.Cut(d, " ") // "pkg [pkg.test]"
				for _, no := range forbidden[from] {
					if d == mod+"/"+no || strings.HasPrefix(d, mod+"/"+no+"/") {
						bad = append(bad, shown+" -> "+strings.TrimPrefix(d, mod+"/"))
					}
				}
			}
		}
	}
	sort.Strings(bad)
	bad = compactStrings(bad)
	if len(bad) > 0 {
		t.Errorf("imports must flow cmd -> harness -> {cosim, golden}; %d dependencies break it:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

func goOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

func compactStrings(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
