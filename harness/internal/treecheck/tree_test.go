package treecheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// topFolders are the repository's top-level folders; a token that starts
// with one of them followed by a slash is taken for a repository path.
var topFolders = []string{"rtl", "sim", "cosim", "golden", "harness", "cmd", ".ci"}

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// repoRoot walks up from the working directory to the folder holding
// go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = err
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				rootDir = dir
				return
			}
			up := filepath.Dir(dir)
			if up == dir {
				rootErr = os.ErrNotExist
				return
			}
			dir = up
		}
	})
	if rootErr != nil {
		t.Fatalf("no go.mod above the working directory: %v", rootErr)
	}
	return rootDir
}

// skipDir reports folders that hold no sources of the repository: build
// and run outputs, version control, and anything hidden but .ci.
func skipDir(rel string) bool {
	base := filepath.Base(rel)
	if rel == "build" || rel == "out" {
		return true
	}
	return strings.HasPrefix(base, ".") && base != ".ci" && rel != "."
}

// treeFiles lists the repository's files, relative to root, with slashes.
func treeFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDir(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatalf("walking the tree: %v", err)
	}
	return files
}
