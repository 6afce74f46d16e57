package scenario_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/scenario"
)

// tapBase is a switch with one tap; the cases below add to it.
const tapBase = `name = "taps"
cycles = 1000

[[model]]
name = "sw"
top = "switch4"
data_width = 512
`

func TestTapDefaults(t *testing.T) {
	s, err := scenario.Parse("taps.toml", []byte(tapBase+`
[bridge]
window = 4
max_window = 64

[[tap]]
name = "h1"
in = "sw.in0"
out = "sw.out0"

[[tap]]
name = "h2"
device = "cs7"
out = "sw.out1"
create = true
persist = true
owner = 1000
group = 100
mtu = 9000
offload = true
queue = 16
`))
	require.NoError(t, err)
	require.Len(t, s.Taps, 2)
	assert.Equal(t, scenario.Tap{Name: "h1", Device: "h1", In: "sw.in0", Out: "sw.out0", Queue: scenario.DefaultTapQueue}, s.Taps[0],
		"the device defaults to the name")
	owner, group := 1000, 100
	assert.Equal(t, scenario.Tap{Name: "h2", Device: "cs7", Out: "sw.out1", Create: true, Persist: true, Owner: &owner, Group: &group,
		MTU: 9000, Offload: true, Queue: 16}, s.Taps[1])
	assert.Equal(t, scenario.Bridge{Window: 4, MaxWindow: 64}, s.Bridge)
}

func TestTapErrors(t *testing.T) {
	for _, tc := range []struct {
		name, toml, want string
	}{
		{"bad name", "[[tap]]\nname = \"1h\"\nin = \"sw.in0\"\n", `taps.toml:10: tap[0].name: "1h" is not a valid tap name`},
		{"named like a model", "[[tap]]\nname = \"sw\"\nin = \"sw.in0\"\n", `tap[0].name: "sw" is already the name of a model or another tap`},
		{"twice", "[[tap]]\nname = \"h\"\nin = \"sw.in0\"\n[[tap]]\nname = \"h\"\nin = \"sw.in1\"\n", `tap[1].name: "h" is already the name`},
		{"long device", "[[tap]]\nname = \"h\"\ndevice = \"a-very-long-name0\"\nin = \"sw.in0\"\n", `tap[0].device: "a-very-long-name0" is not a valid interface name`},
		{"no port", "[[tap]]\nname = \"h\"\n", "tap[0].in: a tap needs in, out or both"},
		{"in is an output", "[[tap]]\nname = \"h\"\nin = \"sw.out0\"\n", `tap[0].in: "sw.out0" is not a port reference of the form model.in<N>`},
		{"unknown model", "[[tap]]\nname = \"h\"\nout = \"nic.out0\"\n", `tap[0].out: "nic.out0" names no model`},
		{"shared input", "[[tap]]\nname = \"a\"\nin = \"sw.in0\"\n[[tap]]\nname = \"b\"\nin = \"sw.in0\"\n", "tap[1].in: sw.in0 is fed by another tap"},
		{"output on a link", "[[link]]\nfrom = \"sw.out0\"\nto = \"sw.in1\"\nlatency = 5\n[[tap]]\nname = \"h\"\nout = \"sw.out0\"\n", "tap[0].out: sw.out0 already feeds another tap or a link"},
		{"persist without create", "[[tap]]\nname = \"h\"\nin = \"sw.in0\"\npersist = true\n", "set create = true"},
		{"negative owner", "[[tap]]\nname = \"h\"\nin = \"sw.in0\"\ncreate = true\nowner = -1\n", "tap[0].owner: owner and group are numeric ids"},
		{"small MTU", "[[tap]]\nname = \"h\"\nin = \"sw.in0\"\nmtu = 20\n", "tap[0].mtu: must be 68 to 65535, is 20"},
		{"negative queue", "[[tap]]\nname = \"h\"\nin = \"sw.in0\"\nqueue = -1\n", "tap[0].queue: must be 1 to"},
		{"unknown key", "[[tap]]\nname = \"h\"\nin = \"sw.in0\"\ncolour = \"red\"\n", "taps.toml:12: tap[0].colour: unknown key"},
		{"huge window", "[bridge]\nwindow = 2_000_000\n", "bridge.window: must be at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenario.Parse("taps.toml", []byte(tapBase+"\n"+tc.toml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
