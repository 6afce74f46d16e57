package treecheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A repository path in prose: a top-level folder, a slash, and what
// follows up to the first character a path does not hold. Placeholders
// (<dev>, {a,b}, [...]) are taken in, so that the token can be recognised
// as a pattern and left alone.
var repoPathRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:` + strings.Join(quoteAll(topFolders), "|") + `)/[A-Za-z0-9_./<>*{}\[\],-]*)`)

// A file name in backticks with an extension of a source or document of
// this repository, with or without folders: `doc.go`, `tops/nic_top.sv`.
var backtickFileRE = regexp.MustCompile("`([A-Za-z0-9_./-]+\\.(?:go|sv|svh|cpp|h|md|toml|mk|py|sh|hex|trace))`")

// A Markdown link target that is not a URL or an anchor.
var mdLinkRE = regexp.MustCompile(`\]\(([^)#\s]+)(?:#[^)]*)?\)`)

// A document named in capitals, such as DESIGN.md: it must be in the tree.
var capsDocRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])([A-Z][A-Z0-9_-]*\.md)\b`)

func quoteAll(s []string) []string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = regexp.QuoteMeta(x)
	}
	return q
}

// outputPrefixes are folders that builds and runs create: paths into them
// name outputs, not sources.
var outputPrefixes = []string{"build/", "out/"}

// textLine is a line of prose (a document line or a comment) and where it is.
type textLine struct {
	line int
	text string
}

// proseOf returns the lines of a file that the rule looks at: every line
// of a Markdown document, the comments of a source file, nothing of other
// files.
func proseOf(name string, data []byte) []textLine {
	base := path.Base(name)
	switch ext := path.Ext(name); {
	case ext == ".md":
		return allLines(data)
	case ext == ".go":
		return goComments(name, data)
	case ext == ".cpp" || ext == ".h" || ext == ".sv" || ext == ".svh":
		return slashComments(data)
	case ext == ".mk" || base == "Makefile":
		return hashComments(data)
	}
	return nil
}

// checked reports whether the rule reads a file: Markdown documents, and
// Go, C++, SystemVerilog and make sources.
func checked(name string) bool {
	return contains([]string{".md", ".go", ".cpp", ".h", ".sv", ".svh", ".mk"}, path.Ext(name)) || path.Base(name) == "Makefile"
}

func allLines(data []byte) []textLine {
	var out []textLine
	for i, l := range strings.Split(string(data), "\n") {
		out = append(out, textLine{i + 1, l})
	}
	return out
}

// goComments uses the Go parser, so that strings and code are never
// mistaken for prose.
func goComments(name string, data []byte) []textLine {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, data, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil && f == nil {
		return nil
	}
	var out []textLine
	for _, g := range f.Comments {
		for _, c := range g.List {
			line := fset.Position(c.Pos()).Line
			for i, l := range strings.Split(c.Text, "\n") {
				out = append(out, textLine{line + i, l})
			}
		}
	}
	return out
}

// slashComments finds // and /* */ comments in C++ and SystemVerilog,
// skipping string literals.
func slashComments(data []byte) []textLine {
	var out []textLine
	inBlock := false
	for i, l := range strings.Split(string(data), "\n") {
		var b strings.Builder
		inStr := false
		for j := 0; j < len(l); j++ {
			switch {
			case inBlock:
				if strings.HasPrefix(l[j:], "*/") {
					inBlock = false
					j++
					b.WriteByte(' ')
				} else {
					b.WriteByte(l[j])
				}
			case inStr:
				if l[j] == '\\' {
					j++
				} else if l[j] == '"' {
					inStr = false
				}
			case l[j] == '"':
				inStr = true
			case strings.HasPrefix(l[j:], "//"):
				b.WriteString(l[j+2:])
				j = len(l)
			case strings.HasPrefix(l[j:], "/*"):
				inBlock = true
				j++
			}
		}
		if b.Len() > 0 {
			out = append(out, textLine{i + 1, b.String()})
		}
	}
	return out
}

// hashComments finds the comment lines of a makefile and the help text
// after a target's "## ".
func hashComments(data []byte) []textLine {
	var out []textLine
	for i, l := range strings.Split(string(data), "\n") {
		if t := strings.TrimLeft(l, " \t"); strings.HasPrefix(t, "#") {
			out = append(out, textLine{i + 1, t})
		} else if k := strings.Index(l, " ## "); k >= 0 && !strings.HasPrefix(l, "\t") {
			out = append(out, textLine{i + 1, l[k+4:]})
		}
	}
	return out
}

// tree answers whether a path exists, from the list of files.
type tree struct {
	root  string
	files []string
	base  map[string]bool // base names of every file
}

func newTree(root string, files []string) *tree {
	t := &tree{root: root, files: files, base: map[string]bool{}}
	for _, f := range files {
		t.base[path.Base(f)] = true
	}
	return t
}

func (t *tree) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(t.root, filepath.FromSlash(rel)))
	return err == nil
}

func (t *tree) globs(pattern string) bool {
	m, err := filepath.Glob(filepath.Join(t.root, filepath.FromSlash(pattern)))
	return err == nil && len(m) > 0
}

// suffix reports whether some file's path ends with /rel.
func (t *tree) suffix(rel string) bool {
	for _, f := range t.files {
		if strings.HasSuffix(f, "/"+rel) {
			return true
		}
	}
	return false
}

func isPattern(s string) bool {
	return strings.ContainsAny(s, "<>{}[]") || strings.Contains(s, "...")
}

func isOutput(s string) bool {
	for _, p := range outputPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// repoPathOK checks a token that starts with a top-level folder.
func (t *tree) repoPathOK(tok string) bool {
	tok = strings.TrimRight(tok, ".,;:/")
	switch {
	case isPattern(tok):
		return true
	case strings.Contains(tok, "*"):
		return t.globs(tok)
	case t.exists(tok):
		return true
	}
	// A Go identifier after a package path: golden/rc.Node, engine.Config.
	dir, last := path.Split(tok)
	if k := strings.IndexByte(last, '.'); k > 0 && t.exists(dir+last[:k]) {
		info, err := os.Stat(filepath.Join(t.root, filepath.FromSlash(dir+last[:k])))
		return err == nil && info.IsDir()
	}
	return false
}

// moduleOf is the folder of the nested Go module (a go.mod of its own
// below the root) that holds file name, or "" for the repository's.
func (t *tree) moduleOf(name string) string {
	for dir := path.Dir(name); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if t.exists(path.Join(dir, "go.mod")) {
			return dir
		}
	}
	return ""
}

// relOK checks a file name or relative path named in a file of folder dir.
func (t *tree) relOK(dir, tok string) bool {
	switch {
	case isOutput(tok), isPattern(tok):
		return true
	case strings.Contains(tok, "*"):
		return t.globs(path.Join(dir, tok))
	case t.exists(path.Join(dir, tok)):
		return true
	case !strings.Contains(tok, "/"):
		return t.base[tok]
	}
	return t.suffix(strings.TrimPrefix(path.Clean(tok), "./"))
}

// badPaths returns the paths a file names that do not exist, as
// "file:line: path".
func (t *tree) badPaths(name string, data []byte) []string {
	var bad []string
	dir := path.Dir(name)
	report := func(line int, tok string) {
		bad = append(bad, fmt.Sprintf("%s:%d: %s", name, line, tok))
	}
	mod := t.moduleOf(name)
	for _, l := range proseOf(name, data) {
		for _, m := range repoPathRE.FindAllStringSubmatch(l.text, -1) {
			// In a module of its own (harness/example), a path may also
			// start at that module's root.
			if tok := strings.TrimRight(m[1], ".,;:/"); !t.repoPathOK(tok) && (mod == "" || !t.repoPathOK(path.Join(mod, tok))) {
				report(l.line, tok)
			}
		}
		for _, m := range backtickFileRE.FindAllStringSubmatch(l.text, -1) {
			tok := m[1]
			if first, _, _ := strings.Cut(tok, "/"); strings.Contains(tok, "/") && contains(topFolders, first) {
				continue // a repository path, checked above
			}
			for _, f := range expandExt(tok) {
				if !t.relOK(dir, f) {
					report(l.line, f)
				}
			}
		}
		for _, m := range capsDocRE.FindAllStringSubmatch(l.text, -1) {
			if !t.base[m[1]] {
				report(l.line, m[1])
			}
		}
		if path.Ext(name) == ".md" {
			for _, m := range mdLinkRE.FindAllStringSubmatch(l.text, -1) {
				tok := m[1]
				if strings.Contains(tok, "://") || strings.HasPrefix(tok, "mailto:") {
					continue
				}
				if !isPattern(tok) && !t.exists(path.Join(dir, tok)) {
					report(l.line, tok)
				}
			}
		}
	}
	return bad
}

// expandExt reads the shorthand `axis.h/.cpp` as the two files axis.h
// and axis.cpp; any other name stands for itself.
func expandExt(tok string) []string {
	stem, alt, ok := strings.Cut(tok, "/.")
	if !ok || strings.Contains(alt, "/") {
		return []string{tok}
	}
	return []string{stem, strings.TrimSuffix(stem, path.Ext(stem)) + "." + alt}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestNamedPathsExist: every repository path that a Markdown document or
// a comment names exists. A path starting with a top-level folder is taken
// from the repository root; a backticked file name from its document's
// folder, else anywhere in the tree; a Markdown link from the document's
// folder. Outputs (build/, out/) and patterns (<dev>, {a,b}) are left
// alone; a glob must match something.
func TestNamedPathsExist(t *testing.T) {
	root := repoRoot(t)
	files := treeFiles(t, root)
	tr := newTree(root, files)
	var bad []string
	for _, f := range files {
		if !checked(f) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		bad = append(bad, tr.badPaths(f, data)...)
	}
	if len(bad) > 0 {
		t.Errorf("%d named paths do not exist (fix the text or the tree):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// TestPathScanner plants bad paths in a document and a comment of each
// kind and checks that the scanner reports them, and only them.
func TestPathScanner(t *testing.T) {
	root := repoRoot(t)
	tr := newTree(root, treeFiles(t, root))
	cases := []struct {
		name, text string
		want       []string
	}{
		{"harness/X.md", "See `rtl/nic/README.md`, rtl/nic/nosuch.sv and [the design](DESIGN.md).\n" +
			"`scenario.go` `nosuch_file.go` build/models/x out/cosim/summary.json rtl/<dev>/tb sim/tops/*_top.sv\n" +
			"NOSUCH.md harness/engine.Config golden/nosuch.Thing `fifo.toml:11: bad`\n",
			[]string{"harness/X.md:1: rtl/nic/nosuch.sv", "harness/X.md:2: nosuch_file.go", "harness/X.md:3: golden/nosuch.Thing", "harness/X.md:3: NOSUCH.md"}},
		{"sim/X.md", "`axis.h/.cpp` and `socket.h/.go`\n", []string{"sim/X.md:1: socket.go"}},
		{"harness/x/x.go", "package x\n\n// Reads rtl/switch/README.md and sim/nosuch.cpp.\nvar s = \"rtl/nosuch\"\n",
			[]string{"harness/x/x.go:3: sim/nosuch.cpp"}},
		{"sim/x.cpp", "/* rtl/common/axis_fifo.sv and\n   rtl/common/nosuch.sv */ int x; // golden/nosuch\nconst char *s = \"rtl/nosuch // no\";\n",
			[]string{"sim/x.cpp:2: rtl/common/nosuch.sv", "sim/x.cpp:2: golden/nosuch"}},
		{"sim/x.mk", "# builds rtl/nosuch.sv\nx: ## runs harness/engine/testdata/*_nosuch.toml\n\trtl/nosuch2\n",
			[]string{"sim/x.mk:1: rtl/nosuch.sv", "sim/x.mk:2: harness/engine/testdata/*_nosuch.toml"}},
	}
	for _, c := range cases {
		got := tr.badPaths(c.name, []byte(c.text))
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
