//go:build unix

package inputfile

import (
	"os"
	"syscall"
)

// openNonblocking opens path with O_NONBLOCK, which makes the open of a
// FIFO return at once; on a regular file the flag changes nothing.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
