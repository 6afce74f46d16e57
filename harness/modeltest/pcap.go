package modeltest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/pcapio"
)

// LinkFiles returns a run's per-link pcapng files, in name order.
func LinkFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	all, err := filepath.Glob(filepath.Join(dir, "*.pcapng"))
	require.NoError(tb, err)
	var out []string
	for _, f := range all {
		if !strings.HasPrefix(filepath.Base(f), "mismatch-") {
			out = append(out, f)
		}
	}
	require.NotEmpty(tb, out, "no link pcapng in %s", dir)
	return out
}

// Packets reads every link's pcapng of the run in dir back with pcapio
// and checks that every frame carries its cycle.
func Packets(tb testing.TB, dir string) []pcapio.Packet {
	tb.Helper()
	var all []pcapio.Packet
	for _, f := range LinkFiles(tb, dir) {
		ps, err := pcapio.ReadAll(f)
		require.NoError(tb, err)
		for _, p := range ps {
			if !p.HasCycle || !strings.HasPrefix(p.Comment, "cycle=") {
				require.Failf(tb, "frame without its cycle", "packet %d on %s: comment %q", p.Index, p.InterfaceName, p.Comment)
			}
		}
		all = append(all, ps...)
	}
	return all
}

// ByInterface groups packets by interface name.
func ByInterface(ps []pcapio.Packet) map[string][]pcapio.Packet {
	m := map[string][]pcapio.Packet{}
	for _, p := range ps {
		m[p.InterfaceName] = append(m[p.InterfaceName], p)
	}
	return m
}
