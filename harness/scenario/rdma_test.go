package scenario_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/scenario"
)

const rdmaBase = `cycles = 1000
[[model]]
name = "a"
top = "nic"
[[model]]
name = "b"
top = "nic"
[[link]]
from = "a.out0"
to = "b.in0"
latency = 156
[[rdma]]
messages = 10
nics = ["a", "b"]
`

func TestRDMADefaults(t *testing.T) {
	s, err := scenario.Parse("r.toml", []byte(rdmaBase))
	require.NoError(t, err)
	require.Len(t, s.RDMA, 1)
	w := s.RDMA[0]
	assert.Equal(t, 4, w.QPs)
	assert.Equal(t, []float64{40, 40, 20, 25}, []float64{w.SendPct, w.WritePct, w.ReadPct, *w.ImmPct})
	assert.Equal(t, []int{0, 4096, 1024, 8, 6, 7, 7, 1},
		[]int{w.MinSize, w.MaxSize, w.PMTU, w.Outstanding, *w.Timeout, *w.Retry, *w.RNRRetry, w.MinRNRTimer})
	assert.Equal(t, uint64(256), w.HostLatency)

	s, err = scenario.Parse("r.toml", []byte(rdmaBase+"imm_pct = 0\ntimeout = 0\nretry = 0\n"))
	require.NoError(t, err)
	assert.Zero(t, *s.RDMA[0].ImmPct, "0 is kept, not taken for unset")
	assert.Zero(t, *s.RDMA[0].Timeout)
	assert.Zero(t, *s.RDMA[0].Retry)
}

func TestRDMAErrors(t *testing.T) {
	for _, tc := range []struct {
		name, add, key, msg string
	}{
		{"one nic", `nics = ["a"]`, "rdma[0].nics", `must name at least two NIC models`},
		{"same nic twice", `nics = ["a", "a"]`, "rdma[0].nics", `names "a" twice`},
		{"unknown nic", `nics = ["a", "z"]`, "rdma[0].nics", `"z" names no model`},
		{"qps 17", `qps = 17`, "rdma[0].qps", "must be 1 to 16"},
		{"mix", `read_pct = 50`, "rdma[0].send_pct", "add up to 100"},
		{"imm", `imm_pct = 101`, "rdma[0].imm_pct", "must be 0 to 100, is 101"},
		{"zero", `zero_pct = -5`, "rdma[0].zero_pct", "must be 0 to 100, is -5"},
		{"sizes", `min_size = 10` + "\n" + `max_size = 5`, "rdma[0].max_size", "are 10 and 5"},
		{"too long", `max_size = 2_000_000`, "rdma[0].max_size", "within 0..1048576"},
		{"pmtu", `pmtu = 1500`, "rdma[0].pmtu", "must be 256, 512, 1024, 2048 or 4096, is 1500"},
		{"outstanding", `outstanding = 33`, "rdma[0].outstanding", "must be 1 to 32"},
		{"timeout", `timeout = 32`, "rdma[0].timeout", "must be 0 to 31"},
		{"retry", `retry = 8`, "rdma[0].retry", "must be 0 to 7"},
		{"rnr_retry", `rnr_retry = -1`, "rdma[0].rnr_retry", "must be 0 to 7"},
		{"unknown key", `colour = 1`, "rdma[0].colour", "unknown key"},
		{"g_shift", "[rdma.dcqcn]\ng_shift = 17", "rdma[0].dcqcn.g_shift", "must be 1 to 16"},
		{"fast_recovery", "[rdma.dcqcn]\nfast_recovery = 256", "rdma[0].dcqcn.fast_recovery", "must be 1 to 255"},
		{"cnp_interval", "[rdma.dcqcn]\ncnp_interval = 4294967296", "rdma[0].dcqcn.cnp_interval", "to 2^32-1"},
		{"min_mbps", "[rdma.dcqcn]\nmin_mbps = -1.0", "rdma[0].dcqcn.min_mbps", "must be 0 (the default) to 1,000,000 Mbit/s"},
		{"dcqcn unknown key", "[rdma.dcqcn]\nkmin = 1", "rdma[0].dcqcn.kmin", "unknown key"},
		{"dup_pct", "[[link]]\nfrom = \"b.out0\"\nto = \"a.in0\"\nlatency = 5\ndup_pct = 101.0", "link[1].dup_pct", "must be 0 to 100, is 101"},
		{"reorder_pct", "[[link]]\nfrom = \"b.out0\"\nto = \"a.in0\"\nlatency = 5\nreorder_pct = -1.0", "link[1].reorder_pct", "must be 0 to 100, is -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := rdmaBase + tc.add + "\n"
			if tc.name == "one nic" || tc.name == "same nic twice" || tc.name == "unknown nic" {
				text = rdmaBase[:len(rdmaBase)-len("nics = [\"a\", \"b\"]\n")] + tc.add + "\n"
			}
			_, err := scenario.Parse("r.toml", []byte(text))
			var se *scenario.Error
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.key, se.Key)
			assert.Contains(t, se.Msg, tc.msg)
		})
	}
}

// An explicit 0 is never taken for a key left out: a 0 that is not a
// valid value is an error at its line, where a default would have changed
// what the scenario says. An empty workload is refused too: the engine
// would check host memory that no message wrote.
func TestRDMAExplicitZero(t *testing.T) {
	noMessages := strings.Replace(rdmaBase, "messages = 10\n", "", 1)
	for _, tc := range []struct {
		name, text, key, msg string
		line                 int
	}{
		{"qps", rdmaBase + "qps = 0\n", "rdma[0].qps", "must be 1 to 16 (the NIC's QPS), is 0", 15},
		{"messages", strings.Replace(rdmaBase, "messages = 10", "messages = 0", 1), "rdma[0].messages",
			"must be at least 1", 13},
		{"messages left out", noMessages, "rdma[0].messages", "must be set", 12},
		{"pmtu", rdmaBase + "pmtu = 0\n", "rdma[0].pmtu", "is 0", 15},
		{"outstanding", rdmaBase + "outstanding = 0\n", "rdma[0].outstanding", "must be 1 to 32", 15},
		{"host_latency", rdmaBase + "host_latency = 0\n", "rdma[0].host_latency", "must be 1 to 2^32", 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenario.Parse("r.toml", []byte(tc.text))
			var se *scenario.Error
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.key, se.Key)
			assert.Equal(t, tc.line, se.Line)
			assert.Contains(t, se.Msg, tc.msg)
		})
	}
	// Left out, they take their defaults.
	s, err := scenario.Parse("r.toml", []byte(rdmaBase))
	require.NoError(t, err)
	assert.Equal(t, []int{4, 10, 1024, 8}, []int{s.RDMA[0].QPs, s.RDMA[0].Messages, s.RDMA[0].PMTU, s.RDMA[0].Outstanding})
}

func TestRDMADCQCN(t *testing.T) {
	s, err := scenario.Parse("r.toml", []byte(rdmaBase))
	require.NoError(t, err)
	assert.Nil(t, s.RDMA[0].DCQCN, "off without the table")
	s, err = scenario.Parse("r.toml", []byte(rdmaBase+"[rdma.dcqcn]\ncnp_interval = 2000\nmin_mbps = 312.5\n"))
	require.NoError(t, err)
	assert.Equal(t, &scenario.DCQCN{CNPInterval: 2000, MinMbps: 312.5}, s.RDMA[0].DCQCN, "0 stands for the paper's value")
}

func TestTrafficToMAC(t *testing.T) {
	l2 := "[[traffic]]\nkind = \"l2\"\nto = \"a.in0\"\nmin_size = 60\nmax_size = 60\n"
	s, err := scenario.Parse("r.toml", []byte(rdmaBase+l2+"to_mac = \"02:4e:43:00:00:02\"\nstart = 5000\n"))
	require.NoError(t, err)
	assert.Equal(t, "02:4e:43:00:00:02", s.Traffic[0].ToMAC)
	assert.Equal(t, uint64(5000), s.Traffic[0].Start)
	for _, tc := range []struct{ add, msg string }{
		{`to_mac = "01:00:5e:00:00:01"`, "must be a unicast MAC address"},
		{`to_mac = "nic1"`, "must be a unicast MAC address"},
		{"to_mac = \"02:00:00:00:00:01\"\nto_port = 1", "exclude each other"},
	} {
		requireError(t, rdmaBase+l2+tc.add+"\n", "traffic[0].to_mac", tc.msg)
	}
}

// requireError parses text and checks the error's key and message.
func requireError(t *testing.T, text, key, msg string) {
	t.Helper()
	_, err := scenario.Parse("r.toml", []byte(text))
	var se *scenario.Error
	require.ErrorAs(t, err, &se, text)
	assert.Equal(t, key, se.Key)
	assert.Contains(t, se.Msg, msg)
}

// A NIC may be in several workloads, up to its 16 QPs; they must agree on
// its congestion control.
func TestRDMANICInTwoWorkloads(t *testing.T) {
	two := rdmaBase + "[[model]]\nname = \"c\"\ntop = \"nic\"\n[[rdma]]\nmessages = 5\nnics = [\"c\", \"a\"]\n"
	s, err := scenario.Parse("r.toml", []byte(two))
	require.NoError(t, err)
	assert.Equal(t, 8, s.RDMA[0].QPsOn("a")+s.RDMA[1].QPsOn("a"))
	requireError(t, two+"qps = 13\n", "rdma[1].qps", "NIC a would hold 17 QPs")
	requireError(t, two+"[rdma.dcqcn]\n", "rdma[1].dcqcn", "NIC a is in rdma.0 too")
	requireError(t, two+"cnp_priority = 6\n", "rdma[1].cnp_priority", "NIC a is in rdma.0 too, whose cnp_priority is 0")
}

func TestRDMAPatterns(t *testing.T) {
	four := strings.Replace(rdmaBase, `nics = ["a", "b"]`, `nics = ["a", "b", "c", "d"]`, 1) +
		"[[model]]\nname = \"c\"\ntop = \"nic\"\n[[model]]\nname = \"d\"\ntop = \"nic\"\n"
	// The [[model]] tables come after the [[rdma]] table: put the pattern
	// before them.
	with := func(kv string) string {
		return strings.Replace(four, `nics = ["a", "b", "c", "d"]`, `nics = ["a", "b", "c", "d"]`+"\n"+kv, 1)
	}
	for _, c := range []struct {
		pattern string
		on      []int // QPs on a, b, c, d
		conns   []scenario.Connection
	}{
		{"pairs", []int{4, 4, 4, 4}, []scenario.Connection{{A: 0, B: 1, Both: true}, {A: 2, B: 3, Both: true}}},
		{"incast", []int{12, 4, 4, 4}, []scenario.Connection{{A: 1, B: 0}, {A: 2, B: 0}, {A: 3, B: 0}}},
		{"all-to-all", []int{12, 12, 12, 12}, []scenario.Connection{{0, 1, true}, {0, 2, true}, {0, 3, true}, {1, 2, true}, {1, 3, true}, {2, 3, true}}},
		{"permutation", []int{8, 8, 8, 8}, []scenario.Connection{{A: 0, B: 2}, {A: 1, B: 3}, {A: 2, B: 1}, {A: 3, B: 0}}},
	} {
		s, err := scenario.Parse("r.toml", []byte(with(`pattern = "`+c.pattern+`"`)))
		require.NoError(t, err, c.pattern)
		w := s.RDMA[0]
		var on []int
		for _, n := range w.NICs {
			on = append(on, w.QPsOn(n))
		}
		assert.Equal(t, c.on, on, c.pattern)
		assert.Equal(t, c.conns, w.Connections([]int{2, 3, 1, 0}), c.pattern)
	}
	s, err := scenario.Parse("r.toml", []byte(four))
	require.NoError(t, err)
	assert.Equal(t, scenario.PatternPairs, s.RDMA[0].Pattern, "the default")
	requireError(t, with(`pattern = "ring"`), "rdma[0].pattern", `must be "pairs", "incast", "all-to-all" or "permutation", is "ring"`)
	requireError(t, strings.Replace(with(""), `"d"]`, `]`, 1), "rdma[0].nics", "an even number, not 3")
	requireError(t, with("pattern = \"all-to-all\"\nqps = 6"), "rdma[0].qps", "NIC a would hold 18 QPs")
}

func TestReorderCyclesDefault(t *testing.T) {
	s, err := scenario.Parse("r.toml", []byte(rdmaBase+"[[link]]\nfrom = \"b.out0\"\nto = \"a.in0\"\nlatency = 50\nreorder_pct = 1.0\n"))
	require.NoError(t, err)
	assert.Equal(t, uint64(200), s.Links[1].ReorderCycles)
	assert.Zero(t, s.Links[0].ReorderCycles, "no reordering, no delay")
}

func TestTrafficPFCPct(t *testing.T) {
	l2 := "[[traffic]]\nkind = \"l2\"\nto = \"a.in0\"\nmin_size = 60\nmax_size = 60\n"
	s, err := scenario.Parse("r.toml", []byte(rdmaBase+l2+"pfc_pct = 2.5\n"))
	require.NoError(t, err)
	assert.Equal(t, 2.5, s.Traffic[0].PFCPct)
	for _, tc := range []struct{ add, msg string }{
		{"pfc_pct = 101.0", "must be 0 to 100, is 101"},
		{"pfc_pct = 1.0\npause_from = \"a.out0\"\npause_latency = 10", "pfc_pct and pause_from exclude each other"},
	} {
		requireError(t, rdmaBase+l2+tc.add+"\n", "traffic[0].pfc_pct", tc.msg)
	}
}

// With no drain set, a workload whose QPs may stay silent longer than the
// usual stall bound (a long local ACK timeout, a long RNR timer) raises it
// to twice that silence; a drain the scenario sets is kept.
func TestDrainCoversRDMATimers(t *testing.T) {
	for _, c := range []struct {
		extra string
		want  uint64
	}{
		{"", 100_000},                         // timeout 6: 40,960 cycles
		{"timeout = 8\n", 2 * 163_840},        // 4.096 us * 2^8 at 156.25 MHz
		{"min_rnr_timer = 16\n", 2 * 400_000}, // 2.56 ms
		{"timeout = 0\n", 100_000},            // no ACK timer: silence is a stall
	} {
		c.want += 156 // and the time a frame spends on rdmaBase's link
		s, err := scenario.Parse("r.toml", []byte(rdmaBase+c.extra))
		require.NoError(t, err)
		assert.Equal(t, c.want, s.DrainCap, "%q", c.extra)
	}
	s, err := scenario.Parse("r.toml", []byte("drain = 5000\n"+rdmaBase+"timeout = 8\n"))
	require.NoError(t, err)
	assert.Equal(t, uint64(5000), s.DrainCap, "set by the scenario")
}
