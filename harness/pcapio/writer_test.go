package pcapio

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

func TestLinkWriterDeterministic(t *testing.T) {
	a := linkBytes(t, "port0", testFrames(), testCycles)
	b := linkBytes(t, "port0", testFrames(), testCycles)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, linkBytes(t, "port1", testFrames(), testCycles))

	// Nothing host specific: no OS or architecture name, no host name.
	assert.False(t, bytes.Contains(a, []byte(runtime.GOOS)), "output contains %q", runtime.GOOS)
	assert.False(t, bytes.Contains(a, []byte(runtime.GOARCH)), "output contains %q", runtime.GOARCH)
	if h, err := os.Hostname(); err == nil && len(h) >= 3 {
		assert.False(t, bytes.Contains(a, []byte(h)))
	}
	assert.True(t, bytes.Contains(a, []byte(DefaultApplication)))
	assert.False(t, bytes.Contains(a, []byte("gopacket")))

	// Through a file, too.
	dir := t.TempDir()
	for _, name := range []string{"1.pcapng", "2.pcapng"} {
		w, err := CreateLinkFile(filepath.Join(dir, name), "port0", LinkWriterOptions{})
		require.NoError(t, err)
		for i, f := range testFrames() {
			require.NoError(t, w.WriteFrame(testCycles[i], f))
		}
		require.NoError(t, w.Close())
		require.NoError(t, w.Close())
	}
	f1, err := os.ReadFile(filepath.Join(dir, "1.pcapng"))
	require.NoError(t, err)
	f2, err := os.ReadFile(filepath.Join(dir, "2.pcapng"))
	require.NoError(t, err)
	assert.Equal(t, f1, f2)
	assert.Equal(t, a, f1)
}

func TestWritePcapDeterministic(t *testing.T) {
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "1.pcap"), filepath.Join(dir, "2.pcap")
	require.NoError(t, WritePcap(p1, testFrames()))
	require.NoError(t, WritePcap(p2, testFrames()))
	b1, err := os.ReadFile(p1)
	require.NoError(t, err)
	b2, err := os.ReadFile(p2)
	require.NoError(t, err)
	assert.Equal(t, b1, b2)
	assert.Equal(t, pcapBytes(t, testFrames()), b1)
	assert.Error(t, WritePcap(p1, [][]byte{make([]byte, PcapSnapLength+1)}))
}

func TestLinkWriterFlush(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewLinkWriter(&buf, "l", LinkWriterOptions{})
	require.NoError(t, err)
	require.NoError(t, w.WriteFrame(5, testFrame(1, 60)))
	require.NoError(t, w.Flush())
	flushed := buf.Len()
	assert.Equal(t, linkBytes(t, "l", [][]byte{testFrame(1, 60)}, []uint64{5}), buf.Bytes())
	require.NoError(t, w.Close())
	assert.Equal(t, flushed, buf.Len())
	assert.ErrorIs(t, w.Flush(), errWriterClosed)
	_, err = w.AddLink("x")
	assert.ErrorIs(t, err, errWriterClosed)
}

func TestCycleTime(t *testing.T) {
	ts, err := CycleTime(12345, DefaultClockPeriodPS)
	require.NoError(t, err)
	assert.Equal(t, time.Unix(0, 79008).UTC(), ts) // 12345 × 6.4 ns
	ts, err = CycleTime(1, DefaultClockPeriodPS)
	require.NoError(t, err)
	assert.Equal(t, time.Unix(0, 6).UTC(), ts) // rounded down
	ts, err = CycleTime(1<<40, DefaultClockPeriodPS)
	require.NoError(t, err)
	assert.Equal(t, time.Unix(0, (1<<40)*64/10).UTC(), ts)
	_, err = CycleTime(math.MaxUint64, DefaultClockPeriodPS)
	assert.Error(t, err)
	_, err = CycleTime(math.MaxInt64+1, 1000) // 2^63 ns
	assert.Error(t, err)
}
