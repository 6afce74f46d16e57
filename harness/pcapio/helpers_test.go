package pcapio

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// testFrame returns a deterministic Ethernet frame (IPv4 ethertype) of n
// bytes (n >= 14) whose payload depends on seed.
func testFrame(seed byte, n int) []byte {
	f := make([]byte, n)
	copy(f[0:6], []byte{0x02, 0x00, 0x00, 0x00, 0x00, 0x01})
	copy(f[6:12], []byte{0x02, 0x00, 0x00, 0x00, 0x00, 0x02})
	binary.BigEndian.PutUint16(f[12:14], 0x0800)
	for i := 14; i < n; i++ {
		f[i] = seed + byte(i)
	}
	return f
}

func testFrames() [][]byte {
	return [][]byte{testFrame(1, 60), testFrame(2, 1514), testFrame(3, 77), testFrame(4, 4200)}
}

var testCycles = []uint64{0, 1, 12345, 1 << 40}

// writeFile writes data to name in a fresh temporary directory.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// linkFile returns the pcapng bytes LinkWriter produces for frames/cycles.
func linkBytes(t testing.TB, link string, frames [][]byte, cycles []uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewLinkWriter(&buf, link, LinkWriterOptions{})
	require.NoError(t, err)
	for i, f := range frames {
		require.NoError(t, w.WriteFrame(cycles[i], f))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func pcapBytes(t testing.TB, frames [][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WritePcapTo(&buf, frames))
	return buf.Bytes()
}

// readErr opens path and reads to the end, returning the packets read and
// the first error other than io.EOF (from Open or Next).
func readErr(t *testing.T, path string) ([]Packet, error) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		require.Nil(t, r)
		return nil, err
	}
	defer r.Close()
	var pkts []Packet
	for {
		p, err := r.Next()
		if err == io.EOF {
			return pkts, nil
		}
		if err != nil {
			return pkts, err
		}
		pkts = append(pkts, p)
	}
}
