package rdma

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/harness/device/nicdev"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
)

// rdmaScenario is a two-NIC scenario with one workload.
func rdmaScenario(t *testing.T, extra string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("rdma.toml", []byte(`
name = "rdma"
cycles = 50_000_000
[[model]]
name = "a"
top = "nic"
[[model]]
name = "b"
top = "nic"
[[rdma]]
nics = ["a", "b"]
`+extra))
	require.NoError(t, err)
	return sc
}

// lossyWire carries frames between the two fake NICs with a latency and
// seeded loss: enough of the engine to close the workload's loop.
type lossyWire struct {
	latency uint64
	lossPct float64
	rng     *rand.Rand
	lost    int
}

// goldenNIC is the golden model of a 64-bit nic top, as the engine makes it.
func goldenNIC(t *testing.T) *nicdev.Golden {
	t.Helper()
	top, err := engine.LookupTop("nic")
	require.NoError(t, err)
	return top.Golden(engine.GoldenEnv{DataWidth: 64, ClockHz: 156_250_000}).(*nicdev.Golden)
}

// runWorkload drives the workload against two golden NICs standing in for
// the DUTs (this tests the workload and the NIC golden set-up, not RTL):
// windows of the link latency, completions back to the hosts.
func runWorkload(t *testing.T, x *rdma, wire *lossyWire, limit uint64) [2]*nicdev.Golden {
	t.Helper()
	var duts [2]*nicdev.Golden
	for k, s := range x.sides {
		duts[k] = goldenNIC(t)
		require.NoError(t, duts[k].Configure(&s.setup))
		require.NoError(t, s.golden.Configure(&s.setup), "the workload's own golden models configure too")
	}
	x.begin(100)
	type arrival struct {
		last uint64
		data []byte
	}
	var wires [2][]arrival // frames on the way to side k
	for now := uint64(0); ; now += wire.latency {
		end := now + wire.latency
		for k := range duts {
			for _, f := range x.due(k, end, nil) {
				duts[k].Accept(int(f.Port), f.Cycle, f.Cycle, f.Data, false)
			}
			n := 0
			for _, a := range wires[k] {
				if a.last < end {
					duts[k].Accept(0, a.last, a.last, a.data, false)
					n++
				}
			}
			wires[k] = wires[k][n:]
		}
		for k := range duts {
			for _, o := range duts[k].Advance(end) {
				switch o.Port {
				case nic.PortNet:
					if wire.rng.Float64()*100 < wire.lossPct {
						wire.lost++
						continue
					}
					last := o.Cycle + uint64((len(o.Data)*8+63)/64) - 1
					wires[1-k] = append(wires[1-k], arrival{last + wire.latency, append([]byte(nil), o.Data...)})
				case nic.PortCompletion:
					x.completion(k, o.Data, end)
				}
			}
		}
		if x.outstanding() == 0 {
			return duts
		}
		require.Less(t, end, limit, "the workload did not finish: %d outstanding, failures %v", x.outstanding(), x.fails)
	}
}

func TestRDMAWorkloadCompletesOverLossyWire(t *testing.T) {
	const seed = 11
	t.Logf("seed %d", seed)
	sc := rdmaScenario(t, `qps = 4
messages = 600
max_size = 9000
outstanding = 6
timeout = 4
`)
	x, err := newRDMA(0, sc.RDMA[0], sc, seed, 156_250_000)
	require.NoError(t, err)
	for k := range x.sides {
		x.sides[k].golden = goldenNIC(t)
	}
	wire := &lossyWire{latency: 156, lossPct: 1, rng: rand.New(rand.NewPCG(seed, 1))}
	duts := runWorkload(t, x, wire, 200_000_000)
	assert.Empty(t, x.fails)
	assert.Positive(t, wire.lost)

	var retries uint64
	for k, s := range x.sides {
		dut := make([]byte, s.memSize())
		duts[k].Memory().Read(s.base, dut)
		x.finish(k, dut)
		c := duts[k].Timed().Node().Counters()
		retries += c[rc.ReqRetryNAK] + c[rc.ReqRetryTimeout] + c[rc.ReqRetryReadGap]
	}
	assert.Empty(t, x.fails, "every message completes and leaves memory as the workload meant")
	assert.Positive(t, retries, "the lost frames were recovered by retransmission")
	t.Logf("%d frames lost, %d retries, done by cycle %d", wire.lost, retries, duts[0].Timed().Now())

	ops := map[rc.Op]int{}
	for _, s := range x.sides {
		for _, q := range s.qps {
			for _, m := range q.msgs {
				ops[m.op]++
			}
		}
	}
	for op := rc.OpSend; op <= rc.OpRead; op++ {
		assert.Positive(t, ops[op], "op %v in the mix", op)
	}
}

// A NIC that corrupts what it writes is caught by the workload's own check,
// without the golden model.
func TestRDMAWorkloadCatchesWrongMemory(t *testing.T) {
	sc := rdmaScenario(t, "qps = 2\nmessages = 40\nwrite_pct = 100\nsend_pct = 0\nread_pct = 0\nmin_size = 64\n")
	x, err := newRDMA(0, sc.RDMA[0], sc, 3, 156_250_000)
	require.NoError(t, err)
	for k := range x.sides {
		x.sides[k].golden = goldenNIC(t)
	}
	duts := runWorkload(t, x, &lossyWire{latency: 100, rng: rand.New(rand.NewPCG(3, 1))}, 50_000_000)
	require.Empty(t, x.fails)
	s := x.sides[1]
	dut := make([]byte, s.memSize())
	duts[1].Memory().Read(s.base, dut)
	at := s.addr(areaWDst, 1, 0) - s.base + 5
	dut[at] ^= 0x40
	x.finish(1, dut)
	require.Len(t, x.fails, 1)
	assert.Contains(t, x.fails[0], fmt.Sprintf("memory at 0x%x (WRITE target buffer of QP slot 1, buffer 0)", s.base+at))
}

func TestRDMAWorkloadCatchesWrongCompletion(t *testing.T) {
	sc := rdmaScenario(t, "qps = 1\nmessages = 4\n")
	x, err := newRDMA(0, sc.RDMA[0], sc, 5, 156_250_000)
	require.NoError(t, err)
	x.begin(0)
	s := x.sides[0]
	if len(s.qps[0].byID) == 0 {
		s = x.sides[1]
	}
	var m *rdmaMsg
	for _, mm := range s.qps[0].byID {
		m = mm
	}
	require.NotNil(t, m)
	bad := rc.Completion{QPN: s.qps[0].qpn, ID: m.id, Op: m.op, Bytes: m.size + 1}
	x.completion(s.k, nic.AppendCompletion(nil, bad), 10)
	require.Len(t, x.fails, 1)
	assert.Contains(t, x.fails[0], "send completion")
	x.completion(s.k, nic.AppendCompletion(nil, bad), 11)
	assert.Contains(t, x.fails[1], "no posted work request")
}

// An empty [rdma.dcqcn] table is the DCQCN paper's reaction point at the
// NIC's line rate and its 50 us CNP interval, and the NIC takes it; a value
// given replaces only its own field.
func TestDCQCNConfigDefaults(t *testing.T) {
	const clockHz = 156_250_000
	interval, c := dcqcnConfig(scenario.DCQCN{}, 64, clockHz)
	assert.Equal(t, dcqcn.DefaultConfig(64*clockHz, clockHz), c)
	assert.Equal(t, dcqcn.DefaultCNPInterval(clockHz), interval)
	assert.Equal(t, dcqcn.Rate(8*dcqcn.RateOne), c.LineRate, "64 bits a cycle: 8 bytes")
	_, err := nic.NodeConfigWrites(rc.NodeConfig{IP: netip.AddrFrom4([4]byte{10, 0, 0, 1}), ClockHz: clockHz, CNPInterval: interval, DCQCN: c})
	require.NoError(t, err)

	interval, c2 := dcqcnConfig(scenario.DCQCN{CNPInterval: 2000, GShift: 4, MinMbps: 312.5}, 64, clockHz)
	assert.Equal(t, uint64(2000), interval)
	assert.Equal(t, uint8(4), c2.GShift)
	assert.Equal(t, c.LineRate/32, c2.MinRate, "312.5 Mbit/s is a 32nd of 10 Gbit/s")
	c2.GShift, c2.MinRate = c.GShift, c.MinRate
	assert.Equal(t, c, c2, "the other fields keep the paper's values")
}
