package testbench_test

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/device/nicdev"
	tb "github.com/rocesim/cosim/harness/testbench"
)

// Two RTL NICs joined by two 200-cycle links, one RC QP between them.
const twoNICs = `
name = "two-nics"
cycles = 50_000_000
[[model]]
name = "nic0"
top = "nic"
data_width = 64
[[model]]
name = "nic1"
top = "nic"
data_width = 64
[[link]]
from = "nic0.out0"
to = "nic1.in0"
latency = 200
[[link]]
from = "nic1.out0"
to = "nic0.in0"
latency = 200
`

// The NICs' registered regions: base, length and R_Keys.
const (
	region    = 0x1000_0000
	regionLen = 64 << 10
)

var (
	qpn  = [2]roce.QPN{0x000101, 0x000201}
	rkey = [2]uint32{0x5000_0001, 0x5000_0002}
)

// nicSetup is NIC k's setup: its address, one region of random bytes and
// one QP to the other NIC.
func nicSetup(k int, rng *rand.Rand) (nicdev.Setup, []byte) {
	mac := func(k int) [6]byte { return [6]byte{0x02, 0x4E, 0x43, 0, 0, byte(k + 1)} }
	ip := func(k int) netip.Addr { return netip.AddrFrom4([4]byte{10, 0, 0, byte(k + 1)}) }
	mem := make([]byte, regionLen)
	for i := range mem {
		mem[i] = byte(rng.Uint32())
	}
	return nicdev.Setup{
		Node: rc.NodeConfig{MAC: mac(k), IP: ip(k), DSCP: 26, CNPDSCP: 48},
		MRs:  []rc.MemoryRegion{{Base: region, Length: regionLen, RKey: rkey[k], Access: rc.AccessRemoteRead | rc.AccessRemoteWrite}},
		QPs: []rc.QPConfig{{QPN: qpn[k], RemoteQPN: qpn[1-k], RemoteMAC: mac(1 - k), RemoteIP: ip(1 - k),
			SendPSN: roce.PSN(0x100 * (k + 1)), RecvPSN: roce.PSN(0x100 * (2 - k)), PMTU: 1024,
			Timeout: 14, RetryCnt: 7, RNRRetry: 7, MinRNRTimer: 1, UDPSrcPort: 0xC001 + uint16(k),
			Access: rc.AccessRemoteRead | rc.AccessRemoteWrite}},
		Init: []nicdev.MemBlock{{Addr: region, Data: mem}},
	}, mem
}

// The host side of two NICs: a WRITE, a READ of memory the test wrote, a
// SEND into a posted receive buffer; the completions field by field, the
// memory read back; the golden model checks every frame on the wire
// (cycle for cycle), every completion and every counter underneath.
func TestNICHost(t *testing.T) {
	b := tb.FromTOML(t, twoNICs)
	rng := rand.New(rand.NewPCG(1, 2))
	s0, mem0 := nicSetup(0, rng)
	s1, _ := nicSetup(1, rng)
	nic0, nic1 := b.SetUpNIC("nic0", s0), b.SetUpNIC("nic1", s1)

	// WRITE 300 bytes of nic0's region into nic1's.
	nic0.PostSend(qpn[0], rc.WorkRequest{ID: 1, Op: rc.OpWrite, LocalAddr: region, Length: 300, RemoteAddr: region + 0x1000, RKey: rkey[1]})
	c := nic0.ExpectCompletion(rc.Completion{QPN: qpn[0], ID: 1, Op: rc.OpWrite, Bytes: 300}, tb.Within(20_000))
	t.Logf("WRITE completed at cycle %d", c.Cycle)
	assert.Equal(t, mem0[:300], nic1.ReadMemory(region+0x1000, 300), "nic1's memory holds what nic0 wrote")

	// READ what the test wrote into nic1's memory: the golden model's
	// memory took the write too, or the READ response on the wire differs.
	data := bytes.Repeat([]byte("testbench"), 30)
	nic1.WriteMemory(region+0x2000, data)
	nic0.PostSend(qpn[0], rc.WorkRequest{ID: 2, Op: rc.OpRead, LocalAddr: region + 0x3000, Length: uint32(len(data)), RemoteAddr: region + 0x2000, RKey: rkey[1]})
	nic0.ExpectCompletion(rc.Completion{QPN: qpn[0], ID: 2, Op: rc.OpRead, Bytes: uint32(len(data))}, tb.Within(20_000))
	assert.Equal(t, data, nic0.ReadMemory(region+0x3000, len(data)))

	// SEND into a receive buffer nic1's host posted.
	nic1.PostRecv(qpn[1], rc.RecvRequest{ID: 7, Addr: region + 0x4000, Length: 512})
	nic0.PostSend(qpn[0], rc.WorkRequest{ID: 3, Op: rc.OpSend, LocalAddr: region + 0x100, Length: 100})
	nic1.ExpectCompletion(rc.Completion{QPN: qpn[1], Recv: true, ID: 7, Op: rc.OpSend, Bytes: 100}, tb.Within(20_000))
	nic0.ExpectCompletion(rc.Completion{QPN: qpn[0], ID: 3, Op: rc.OpSend, Bytes: 100}, tb.Within(20_000))
	assert.Equal(t, mem0[0x100:0x100+100], nic1.ReadMemory(region+0x4000, 100))

	// Both hosts' memory is the golden models', every byte of the regions.
	b.RunUntilIdle(20_000)
	nic0.CheckMemory(region, regionLen)
	nic1.CheckMemory(region, regionLen)
	nic0.CheckQPStates() // ready to send, as golden's
	nic1.CheckQPStates()

	s := b.Finish()
	assert.True(t, s.Pass)
	assert.Positive(t, s.Matched)
	assert.Equal(t, uint64(3), b.Counter("nic0.qp0.tx_packets"), "WRITE, READ and SEND, a packet each")
	t.Logf("%d frames matched by golden, %d cycles", s.Matched, s.Cycles)
}

// A completion unlike the one wanted is reported field by field; a NIC
// set up late, or a model that is no NIC, is bad use.
func TestNICBadUse(t *testing.T) {
	r := &recorder{T: t}
	var b *tb.Bench
	require.Empty(t, r.fatal(func() { b = tb.FromTOML(r, twoNICs) }))
	rng := rand.New(rand.NewPCG(1, 2))
	s0, _ := nicSetup(0, rng)
	s1, _ := nicSetup(1, rng)
	var nic0 *tb.NIC
	require.Empty(t, r.fatal(func() { nic0 = b.SetUpNIC("nic0", s0) }))
	assert.Contains(t, r.fatal(func() { b.SetUpNIC("nic9", s1) }), `testbench: SetUpNIC("nic9"): no model "nic9"`)
	require.Empty(t, r.fatal(func() { b.SetUpNIC("nic1", s1) }))
	msg := r.fatal(func() {
		nic0.PostSend(qpn[0], rc.WorkRequest{ID: 1, Op: rc.OpWrite, LocalAddr: region, Length: 64, RemoteAddr: region, RKey: rkey[1]})
		nic0.ExpectCompletion(rc.Completion{QPN: qpn[0], ID: 9, Op: rc.OpWrite, Bytes: 64})
	})
	assert.Contains(t, msg, `testbench: Expect("nic0.out1", completion `)
	assert.Contains(t, msg, "\n  completion.ID want 0x9 got 0x1\n")
	assert.Contains(t, r.fatal(func() { b.SetUpNIC("nic1", s1) }), `testbench: SetUpNIC("nic1"): model nic1: configure it before anything runs`)

	// Host memory unlike golden's is reported at its first byte.
	b.RunUntilIdle(20_000)
	nic0.GoldenMemory().Write(region+0x10, []byte{0xEE, 0xEE})
	msg = r.fatal(func() { nic0.CheckMemory(region, 64) })
	assert.Contains(t, msg, "testbench: CheckMemory(0x10000000, 64): nic0's host memory differs from the golden model's at 0x10000010 (2 of 64 bytes differ)")
	assert.Contains(t, msg, "\n  golden 0x10000008: ")
	assert.Contains(t, r.fatal(func() { nic0.CheckMemory(region, 0) }), "testbench: CheckMemory(0x10000000, 0): no bytes to compare")
	require.Empty(t, r.fatal(func() { b.Finish() }))
	assert.Contains(t, r.fatal(func() { nic0.CheckQPStates() }), "testbench: CheckQPStates: the bench has finished (Finish)")
	assert.Contains(t, r.fatal(func() { nic0.CheckMemory(region, 64) }), "testbench: CheckMemory(0x10000000, 64): the bench has finished (Finish)")

	sw := tb.Model(r, "switch4_64")
	assert.Contains(t, r.fatal(func() { sw.SetUpNIC("dut", s0) }), `testbench: SetUpNIC("dut"): model dut is a switch4, not a NIC`)
}
