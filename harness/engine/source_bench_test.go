package engine

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scenario"
)

// BenchmarkSource draws every frame of a source of 10,000 frames a loop:
// generated, the stimulus every random switch and NIC campaign draws as it
// runs (a million-frame soak draws a hundred times this per port), and
// read from a capture, as BenchmarkHarnessVsRaw's stimulus is. ns/frame
// is the figure to compare: the wall time per frame of drawing on the
// source's prefetch goroutine and taking the frames on this one.
//
//	go test -run '^$' -bench Source ./harness/engine
func BenchmarkSource(b *testing.B) {
	for _, c := range []struct {
		name, kind string
		min, max   int
	}{
		{"l2_64B", "l2", 64, 64},
		{"l2_60-1500B", "l2", 60, 1500},
		{"roce_64-1500B", "roce", 64, 1500},
		{"pcap_64B", "pcap", 64, 64},
		{"pcap_1500B", "pcap", 1500, 1500},
	} {
		b.Run(c.name, func(b *testing.B) {
			const frames, window = 10_000, 4096 // window in cycles
			toml := fmt.Sprintf("name = \"bench\"\ncycles = 1_000_000_000\n[[model]]\nname = \"dut\"\ntop = \"switch4\"\ndata_width = 512\n"+
				"[[traffic]]\nkind = %q\nto = \"dut.in0\"\n", c.kind)
			if c.kind == "pcap" {
				path := filepath.Join(b.TempDir(), "in.pcap")
				data := make([][]byte, frames)
				for i := range data {
					data[i] = make([]byte, c.max)
					data[i][0] = byte(i)
				}
				require.NoError(b, pcapio.WritePcap(path, data))
				toml += fmt.Sprintf("file = %q\n", path)
			} else {
				toml += fmt.Sprintf("frames = %d\nmin_size = %d\nmax_size = %d\nvlan_pct = 30\nipv4_pct = 50\n", frames, c.min, c.max)
			}
			sc, err := scenario.Parse("bench.toml", []byte(toml))
			require.NoError(b, err)
			bytes := 0
			for i := 0; b.Loop(); i++ {
				s, err := newSource(0, sc.Traffic[0], sc, 512, 4, uint64(i))
				require.NoError(b, err)
				// Taken in windows, as the engine takes them.
				for end := uint64(window); ; end += window {
					for _, f := range s.due(end) {
						bytes += len(f.data)
					}
					if _, ok := s.nextCycle(); !ok {
						break
					}
				}
				require.NoError(b, s.err)
			}
			b.SetBytes(int64(bytes / max(b.N, 1)))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*frames), "ns/frame")
		})
	}
}
