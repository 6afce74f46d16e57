package tb

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tb "github.com/rocesim/cosim/harness/testbench"
)

// The tagger in front of cosim's own 4-port switch, in one scenario file
// whose [[model]] tables name both tops: an access host's broadcast is
// tagged and flooded by the switch to its other ports; a reply to that
// host goes out of the switch's port 0, which learned it. Both golden
// models check every frame.

func TestWithTheSwitch(t *testing.T) {
	need(t)
	b := tb.FromFile(t, filepath.Join("..", "scenarios", "tagger_switch.toml"), modelDirs(models))
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

// A scenario file that names the tagger runs from a command of this
// project's own (cmd/tagrun: cosim's engine with the tagger registered),
// random traffic through the tagger and the switch, every frame checked.
func TestScenarioFileRunsFromACommand(t *testing.T) {
	need(t)
	dirs := []string{abs(t, models), abs(t, cosimModels)}
	cmd := exec.Command("go", "run", "./cmd/tagrun", "--out", t.TempDir(),
		"--models", strings.Join(dirs, string(filepath.ListSeparator)), filepath.Join("scenarios", "l2_through_switch.toml"))
	cmd.Dir = ".." // the project's root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "mismatched 0, missing 0, unexpected 0; counter mismatches 0\nPASS\n")
}

func abs(t *testing.T, path string) string {
	a, err := filepath.Abs(path)
	require.NoError(t, err)
	return a
}
