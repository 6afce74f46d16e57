package pcapio

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A capture written around the page cache holds exactly the bytes given,
// in whatever pieces they came: after each Flush up to there (the partial
// last block included), and all of them after Close. Pieces cross the
// buffer's size and the blocks' edges.
func TestDirectFileWritesWhatItIsGiven(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.pcapng")
	out, err := createOutput(path)
	require.NoError(t, err)
	d, direct := out.(*directFile)
	if !direct {
		t.Logf("%s: the file system refuses O_DIRECT: plain writes checked", filepath.Dir(path))
	}
	rng := rand.New(rand.NewPCG(7, 7))
	var want []byte
	for i := range 60 {
		size := rng.IntN(200_000)
		if i%20 == 19 {
			size = directChunk + rng.IntN(3*directBlock) // more than the buffer
		}
		p := make([]byte, size)
		for k := range p {
			p[k] = byte(rng.Uint32())
		}
		n, err := out.Write(p)
		require.NoError(t, err)
		require.Equal(t, size, n)
		want = append(want, p...)
		if i%7 == 3 {
			require.NoError(t, out.(interface{ Flush() error }).Flush())
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, got), "after write %d and Flush: %d bytes on disk, %d written", i, len(got), len(want))
		}
	}
	require.NoError(t, out.Close())
	if direct {
		// A misaligned write would have fallen back to plain ones. (Read
		// after Close: until then the writer goroutine may set it.)
		require.False(t, d.fellBack, "still writing directly")
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "after Close: %d bytes on disk, %d written", len(got), len(want))
}

// A chunk the writer goroutine fails to write is reported, by the Write
// that hands over the next chunk, and by Flush and Close, never dropped.
func TestDirectFileReportsAFailedWrite(t *testing.T) {
	out, err := createOutput(filepath.Join(t.TempDir(), "out.pcapng"))
	require.NoError(t, err)
	d, direct := out.(*directFile)
	if !direct {
		t.Skip("the file system refuses O_DIRECT: no writer goroutine")
	}
	require.NoError(t, d.f.Close()) // every write from now on fails
	chunk := make([]byte, directChunk)
	_, err = out.Write(chunk) // handed to the writer, which fails
	require.NoError(t, err)
	_, err = out.Write(chunk)
	require.ErrorIs(t, err, os.ErrClosed, "the next chunk's hand-off reports the failed one")
	require.ErrorIs(t, out.(interface{ Flush() error }).Flush(), os.ErrClosed)
	require.ErrorIs(t, out.Close(), os.ErrClosed)
}
