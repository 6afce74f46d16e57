package modeltest

import (
	"regexp"
	"strconv"
	"testing"
)

// dmaCountersLine is the counters line a model with a DMA port prints at
// exit (sim/model.cpp).
var dmaCountersLine = regexp.MustCompile(`dma: (\d+) reads, (\d+) bytes read; (\d+) writes, (\d+) bytes written`)

// DMACounters parses the DMA counters out of a closed model's last output
// (cosim.Model.LastOutput): reads, bytes read, writes, bytes written.
func DMACounters(t testing.TB, output []string) [4]uint64 {
	t.Helper()
	var c [4]uint64
	for _, l := range output {
		if s := dmaCountersLine.FindStringSubmatch(l); s != nil {
			for i := range c {
				c[i], _ = strconv.ParseUint(s[i+1], 10, 64)
			}
			return c
		}
	}
	t.Fatalf("no DMA counters in the model's output %q", output)
	return c
}
