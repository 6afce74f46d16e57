//go:build unix

package inputfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/inputfile"
)

func TestRegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.toml")
	require.NoError(t, os.WriteFile(path, []byte("name = \"x\"\n"), 0o644))
	b, err := inputfile.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "name = \"x\"\n", string(b))
	link := filepath.Join(t.TempDir(), "link.toml")
	require.NoError(t, os.Symlink(path, link))
	_, err = inputfile.ReadFile(link)
	assert.NoError(t, err, "a link to a regular file is one")
}

// Opening a FIFO nobody writes to returns at once with a clear error.
func TestFIFOIsRefusedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo.pcap")
	require.NoError(t, syscall.Mkfifo(path, 0o644))
	done := make(chan error, 1)
	go func() {
		_, err := inputfile.ReadFile(path)
		done <- err
	}()
	select {
	case err := <-done:
		var nr *inputfile.NotRegularError
		require.ErrorAs(t, err, &nr)
		var pe *fs.PathError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, path, pe.Path)
		assert.Contains(t, err.Error(), "is a FIFO")
	case <-time.After(5 * time.Second):
		t.Fatal("opening a FIFO blocks")
	}
}

func TestDirectoryAndDevice(t *testing.T) {
	_, err := inputfile.Open(t.TempDir())
	assert.ErrorContains(t, err, "is a directory, not a regular file")
	_, err = inputfile.Open("/dev/null")
	assert.ErrorContains(t, err, "is a character device, not a regular file")
	_, err = inputfile.Open(filepath.Join(t.TempDir(), "missing"))
	assert.True(t, errors.Is(err, fs.ErrNotExist))
}
