package bridge_test

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/modeltest"
	"github.com/rocesim/cosim/harness/scenario"
)

// models is where make build puts them, seen from this package.
var models = filepath.Join("..", "..", "build", "models")

// switchScenario is the 4-port switch at width with taps h1..hN on its
// first N ports, plus extra TOML.
func switchScenario(tb testing.TB, width, taps int, extra string) (*scenario.Scenario, []byte) {
	tb.Helper()
	modeltest.Need(tb, models, fmt.Sprintf("switch4_%d", width))
	var b strings.Builder
	fmt.Fprintf(&b, "name = \"bridge-test\"\ncycles = 1_000_000_000_000\n%s\n[[model]]\nname = \"sw\"\ntop = \"switch4\"\ndata_width = %d\n", extra, width)
	for i := range taps {
		fmt.Fprintf(&b, "\n[[tap]]\nname = \"h%d\"\nin = \"sw.in%d\"\nout = \"sw.out%d\"\n", i+1, i, i)
	}
	sc, err := scenario.Parse("bridge-test.toml", []byte(b.String()))
	require.NoError(tb, err)
	return sc, []byte(b.String())
}

// mac is host i's address (as hostnet gives them).
func mac(i int) []byte { return []byte{0x02, 0, 0, 0, 0, byte(i)} }

// frame builds an Ethernet frame of n bytes from host src to dst with
// EtherType et; the payload counts, so every frame differs.
// A frame shorter than a header is cut from a whole one.
func frame(dst, src []byte, et uint16, n int, seq int) []byte {
	f := make([]byte, max(n, 14))
	copy(f, dst)
	copy(f[6:], src)
	binary.BigEndian.PutUint16(f[12:], et)
	for i := 14; i < n; i++ {
		f[i] = byte(seq + i)
	}
	return f[:n]
}

func config(tb testing.TB, sc *scenario.Scenario, text []byte, devs map[string]bridge.Device) bridge.Config {
	return bridge.Config{Scenario: sc, Text: text, Seed: 1, OutDir: tb.TempDir(), ModelDir: models, Devices: devs}
}
