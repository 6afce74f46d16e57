package tb

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tb "github.com/rocesim/cosim/harness/testbench"
)

// The tagger in front of cosim's own 4-port switch, in one scenario: an
// access host's broadcast is tagged and flooded by the switch to its other
// ports; a reply to that host goes out of the switch's port 0, which
// learned it. Both golden models check every frame. (One link only: two
// between the same models would make a loop through a switch, which
// scenarios refuse.)
const withSwitch = `
name = "tagger in front of switch4"
cycles = 1_000_000

[[model]]
name = "tag"
top = "vlan_tagger"
[model.csr]
TAG = 0x600a  # PCP 3, VID 10

[[model]]
name = "sw"
top = "switch4"

[[link]]
from = "tag.out0"
to = "sw.in0"
latency = 20
`

func TestWithTheSwitch(t *testing.T) {
	need(t)
	b := tb.FromTOML(t, withSwitch, modelDirs(models))
	// The scenario's TAG write is on the bus in cycle 0 and in force from
	// cycle 1 (the tagger's timing): a frame taken in cycle 0 would get
	// the reset tag, and the golden model would say so too.
	b.Send("tag.in0", udp(b, nil, true, "to everyone"), tb.At(1))
	tagged := udp(b, &tag{pcp: 3, vid: 10}, true, "to everyone")
	b.ExpectEach([]string{"sw.out1", "sw.out2", "sw.out3"}, tb.Exact(tagged), tb.Within(500))

	// Host 3, behind sw.in2, answers host 1, whom the switch learned on
	// its port 0 from the broadcast.
	reply := raw(64, 0x0800)
	copy(reply, []byte{2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 3})
	b.Send("sw.in2", reply)
	b.Expect("sw.out0", tb.Exact(reply), tb.Within(500))
	b.ExpectNone("sw.out1", tb.Any(), 200)
	assert.Equal(t, uint32(1), b.ReadCSR("tag.tagged"))
	assert.Equal(t, uint32(1), b.ReadCSR("sw.port2.rx_frames"))
}

// The planted bug (MUTANT_TCI_ORDER: DEI before PCP in the tag) is caught
// by the TAG register's test, with a message that names the field.
func TestPlantedBugIsCaught(t *testing.T) {
	need(t)
	dir, err := mutant()
	require.NoError(t, err)
	var out bytes.Buffer
	passed := tb.Standalone(t.Name(), &out, func(st tb.T) {
		tagFromRegister(tb.Model(st, "vlan_tagger_64", tb.Name("tag"), tb.ModelDir(dir)))
	})
	assert.False(t, passed, "the mutant passed:\n%s", out.String())
	assert.Contains(t, out.String(), "Dot1Q.Priority want 0x5 got 0x2")
	t.Logf("the mutant's report:\n%s", out.String())
}

// The RTL is lint clean with and without the planted bug.
func TestLint(t *testing.T) {
	need(t)
	for _, define := range []string{"", "-DMUTANT_TCI_ORDER"} {
		args := []string{"--lint-only", "-Wall", "--top-module", "vlan_tagger", filepath.Join("..", "rtl", "vlan_tagger.sv")}
		if define != "" {
			args = append(args, define)
		}
		out, err := exec.Command("verilator", args...).CombinedOutput()
		assert.NoError(t, err, "verilator %v:\n%s", args, out)
	}
}
