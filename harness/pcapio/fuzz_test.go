package pcapio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/stretchr/testify/require"
)

// smallFrames keep the seeds short: the fuzzer minimizes every new
// input, and each try costs a file, so long seeds stall it for seconds.
func smallFrames() [][]byte {
	return [][]byte{testFrame(1, 60), testFrame(2, 100), testFrame(3, 77)}
}

// nanoPcap is a little-endian classic pcap with the nanosecond magic and
// one snapped packet.
func nanoPcap(t testing.TB) []byte {
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	require.NoError(t, w.WriteFileHeader(65535, layers.LinkTypeEthernet))
	for i, f := range smallFrames() {
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(int64(i), 5), CaptureLength: len(f), Length: len(f)}
		if i == 1 {
			f = f[:70]
			ci.CaptureLength = 70
		}
		require.NoError(t, w.WritePacket(ci, f))
	}
	return buf.Bytes()
}

// FuzzReader feeds arbitrary files to Open and Next: they must not panic
// or hang, must fail only with the documented error types, and must read
// the same twice.
func FuzzReader(f *testing.F) {
	frames := smallFrames()
	valid := [][]byte{
		pcapBytes(f, frames),
		nanoPcap(f),
		bigEndianPcap(0xA1B2C3D4, frames, 1),
		bigEndianPcap(0xA1B23C4D, frames, 1),
		linkBytes(f, "tx0", frames, testCycles[:len(frames)]),
		user0Pcapng(f),
	}
	for _, v := range valid {
		f.Add(v)
		// Truncated inside the file header, the first record header and
		// the first packet, and one byte short of the end.
		for _, n := range []int{0, 3, 4, 23, 24, 30, 40, 100, len(v) - 1} {
			if n < len(v) {
				f.Add(v[:n])
			}
		}
	}
	// Corrupted fields: an unknown magic, a zero and a huge snap length,
	// an unsupported link type, a record longer than the file, and a
	// pcapng block length that is not a multiple of four.
	corrupt := func(v []byte, off int, val uint32, order binary.ByteOrder) []byte {
		c := bytes.Clone(v)
		order.PutUint32(c[off:], val)
		return c
	}
	le, be := binary.LittleEndian, binary.BigEndian
	f.Add(corrupt(valid[0], 0, 0x47415242, le))
	f.Add(corrupt(valid[0], 16, 0, le))
	f.Add(corrupt(valid[0], 16, 0xffffffff, le))
	f.Add(corrupt(valid[0], 20, 147, le))
	f.Add(corrupt(valid[0], 24+8, 0x7fffffff, le))
	f.Add(corrupt(valid[2], 24+8, 0xffffffff, be))
	f.Add(corrupt(valid[4], 4, 13, le))
	f.Add(corrupt(valid[4], 8, 0, le))

	// A hang is a failure too: a watchdog crashes the worker with every
	// goroutine's stack rather than leaving the fuzzer waiting.
	debug.SetTraceback("all")
	f.Fuzz(func(t *testing.T, data []byte) {
		defer time.AfterFunc(10*time.Second, func() { panic("FuzzReader: no result after 10s") }).Stop()
		path := filepath.Join(t.TempDir(), "fuzz.pcap")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		first, err := ReadAll(path)
		if err != nil {
			var fe *FormatError
			var pe *fs.PathError
			switch {
			case errors.As(err, &fe):
				if fe.Path != path {
					t.Fatalf("FormatError names %q, not %q: %v", fe.Path, path, err)
				}
			case errors.As(err, &pe):
				if pe.Path != path {
					t.Fatalf("PathError names %q, not %q: %v", pe.Path, path, err)
				}
			default:
				t.Fatalf("error of type %T is neither a FormatError nor a PathError: %v", err, err)
			}
		}
		for _, p := range first {
			if p.CaptureLength != len(p.Data) {
				t.Fatalf("packet %d: CaptureLength %d, len(Data) %d", p.Index, p.CaptureLength, len(p.Data))
			}
		}
		second, err2 := ReadAll(path)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("read twice, errors differ: %v, then %v", err, err2)
		}
		require.Equal(t, first, second, "read twice, packets differ")
	})
}
