package rc

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/pair.pcap from the model")

// capturePath holds every frame of a short lossy run between two nodes,
// stamped with its cycle (6.4 ns each, 156.25 MHz). cmd/cosim's tests run
// `cosim check` and tshark over it; this test keeps it equal to what the
// model sends today, so a change of behaviour shows as a diff to review.
const capturePath = "testdata/pair.pcap"

func captureRun(t *testing.T) []byte {
	s := newPair(t, 4, 99, nil, nil)
	s.faults = faults{lossPPM: 20_000, corruptPPM: 0, dupPPM: 10_000, reorderPPM: 10_000, reorderMax: 500}
	var out bytes.Buffer
	w := pcapgo.NewWriterNanos(&out)
	require.NoError(t, w.WriteFileHeader(MaxFrameLen, layers.LinkTypeEthernet))
	s.onSend = func(from int, f []byte, now uint64) {
		ts := time.Unix(0, int64(now)*64/10).UTC()
		require.NoError(t, w.WritePacket(gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(f), Length: len(f)}, f))
	}
	wl := newWorkload(t, s, 4, 150, mix{ops: allOps, maxSize: 2500, zero: 0.05}, rand.New(rand.NewPCG(99, 1)))
	wl.run(1 << 40)
	wl.checkMemory()
	return out.Bytes()
}

func TestCapture(t *testing.T) {
	got := captureRun(t)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(capturePath), 0o755))
		require.NoError(t, os.WriteFile(capturePath, got, 0o644))
	}
	want, err := os.ReadFile(capturePath)
	require.NoError(t, err, "run go test ./golden/rc -run TestCapture -update to create it")
	require.True(t, bytes.Equal(want, got),
		"the model's frames changed: review, then go test ./golden/rc -run TestCapture -update")
}
