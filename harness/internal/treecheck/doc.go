// Package treecheck holds the house rules of the repository as tests; it
// has no code of its own. `go test ./harness/internal/treecheck` checks
// that
//
//   - every repository path a Markdown document or a comment in Go, C++,
//     SystemVerilog or make names exists (TestNamedPathsExist);
//   - imports flow one way, cmd -> harness -> {cosim, golden}: cosim
//     imports nothing from harness or golden, golden nothing from harness
//     or cosim, tests included (TestImportRules);
//   - no Go file but a test is longer than 600 lines unless its first
//     lines say why, with a comment line starting "// Long file:"
//     (TestFileLength).
//
// The tests find the repository root by walking up from their working
// directory to go.mod. harness/DESIGN.md describes the layout these rules
// keep.
package treecheck
