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

// A LinkWriter that builds its blocks in the direct file's buffer (Lend)
// writes the same bytes as one writing to memory: blocks cross the
// buffer's edges, a frame too large to lend goes through Write, links are
// added and the file flushed in between, and after each Flush the file
// holds everything written so far.
func TestLinkWriterLendsTheDirectBuffer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lent.pcapng")
	file, err := CreateLinkFile(path, "a", LinkWriterOptions{})
	require.NoError(t, err)
	d, direct := file.file.(*directFile)
	if !direct {
		t.Skipf("%s: the file system refuses O_DIRECT: nothing is lent", filepath.Dir(path))
	}
	require.Same(t, d, file.lender)
	var mem bytes.Buffer
	ref, err := NewLinkWriter(&mem, "a", LinkWriterOptions{})
	require.NoError(t, err)
	both := func(f func(w *LinkWriter) error) {
		t.Helper()
		require.NoError(t, f(file))
		require.NoError(t, f(ref))
	}
	rng := rand.New(rand.NewPCG(3, 9))
	links := 1
	for i := range 8000 {
		size := 60 + rng.IntN(1500)
		switch {
		case i%3000 == 2999:
			size = directChunk // more than Lend gives
		case i%97 == 0:
			size = 9000 + rng.IntN(60000)
		}
		f := testFrame(byte(i), size)
		link, cycle := rng.IntN(links), uint64(i)*7
		if i%5 == 0 {
			both(func(w *LinkWriter) error { return w.WriteFrameOn(link, cycle, f, "note "+itoa(uint64(i))) })
		} else {
			both(func(w *LinkWriter) error { return w.WriteFrameOn(link, cycle, f) })
		}
		if i%1000 == 500 {
			both(func(w *LinkWriter) error { _, err := w.AddLink("l" + itoa(uint64(i))); return err })
			links++
		}
		if i%2500 == 1250 {
			both(func(w *LinkWriter) error { return w.Flush() })
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			require.True(t, bytes.Equal(mem.Bytes(), got), "after frame %d and Flush: %d bytes on disk, %d in memory", i, len(got), mem.Len())
		}
	}
	both(func(w *LinkWriter) error { return w.Close() })
	require.False(t, d.fellBack, "every direct write was aligned")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(mem.Bytes(), got), "after Close: %d bytes on disk, %d in memory", len(got), mem.Len())
}
