//go:build !linux

package pcapio

import "os"

// createOutput creates (or truncates) path for a capture: a plain file
// (direct_linux.go writes around the page cache on Linux).
func createOutput(path string) (output, error) { return os.Create(path) }
