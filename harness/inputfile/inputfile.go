// Package inputfile opens the files a user names as inputs (scenarios,
// captures, recordings) so that opening never blocks: a FIFO, a device,
// a socket or a directory is refused with an error that says what it is,
// where a plain open of a FIFO would wait forever for a writer and no
// signal would end it.
package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Open opens path for reading if it is a regular file (or a link to one).
// Any other kind of file yields an *fs.PathError whose Err is a
// *NotRegularError.
func Open(path string) (*os.File, error) {
	f, err := openNonblocking(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: &NotRegularError{Mode: st.Mode()}}
	}
	return f, nil
}

// ReadFile reads a whole regular file, as os.ReadFile does.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// NotRegularError is an input that is not a regular file.
type NotRegularError struct {
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("is %s, not a regular file", kind(e.Mode))
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (reading it would wait for a writer)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return fmt.Sprintf("a file of mode %v", m)
}
