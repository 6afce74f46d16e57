package nic

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/rc"
)

// nic_csr.sv hard-codes these counts (NODE_CNT, QP_CNT, QP_FIRST): a new
// rc.Counter must be added to the RTL too.
func TestCSRCounterNumbering(t *testing.T) {
	assert.Equal(t, 39, rc.NumCounters, "QP_CNT in nic_csr.sv")
	assert.Equal(t, rc.Counter(6), FirstQPCounter, "QP_FIRST in nic_csr.sv")
	assert.Equal(t, 31, NumNodeCounters, "NODE_CNT in nic_csr.sv")
	// the node-level counters of rc are exactly those below FirstQPCounter
	for c := range rc.Counter(rc.NumCounters) {
		assert.Equal(t, c < FirstQPCounter, c <= rc.RxUnknownQP, "%v", c)
	}
	want := []string{"rx_not_roce", "rx_malformed", "rx_bad_icrc", "rx_wrong_address", "rx_bad_header",
		"rx_unknown_qp", "cmd_bad", "cmd_rejected", "cq_overflow", "host_rx_overflow", "rx_bad_frame",
		"rx_buffer_full", "rx_pfc", "rx_pause", "rx_mac_control", "rx_pause_prio0"}
	for n, name := range want {
		assert.Equal(t, name, NodeCounter(n).String())
	}
	assert.Equal(t, "rx_pause_prio7", (CntPauseNamed + 7).String())
	assert.Equal(t, "paused_cycles_prio0", CntPausedCycles.String())
	assert.Equal(t, "paused_cycles_prio7", NodeCounter(NumNodeCounters-1).String())
	assert.Equal(t, "counter?", NodeCounter(NumNodeCounters).String())
}

// The addresses, written out by hand from rtl/nic/README.md "CSR map".
func TestCSRAddresses(t *testing.T) {
	for _, tc := range []struct {
		got, want uint32
	}{
		{MRAddr(0, MRBaseLo), 0x0200},
		{MRAddr(3, MRValid), 0x0200 + 0x60 + 0x18},
		{MRAddr(15, MRAccess), 0x0200 + 0x1E0 + 0x14},
		{QPAddr(0, QPQPN), 0x1000},
		{QPAddr(2, QPStateReg), 0x1000 + 0x100 + 0x7C},
		{QPAddr(15, QPMaxReads), 0x1000 + 0x780 + 0x34},
		{NodeCounterAddr(NodeCounter(rc.RxUnknownQP)), 0x4014},
		{NodeCounterAddr(CntCmdBad), 0x4018},
		{NodeCounterAddr(CntRxBufferFull), 0x402C},
		{QPCounterAddr(0, rc.RxPackets), 0x5018},
		{QPCounterAddr(5, rc.CompletionsError), 0x5000 + 0x500 + 4*38},
		{AddrHyperStep, 0x0060},
		{AddrRNRCycles + 4*31, 0x00FC},
	} {
		assert.Equal(t, fmt.Sprintf("%#x", tc.want), fmt.Sprintf("%#x", tc.got))
	}
	assert.Equal(t, uint32(0x04_08_10_10), DefaultCSRShape.Value())
	assert.Equal(t, uint32(0x4E430001), uint32(IDValue))
}

func TestCSRShapeValidate(t *testing.T) {
	require.NoError(t, DefaultCSRShape.Validate())
	for _, s := range []CSRShape{{0, 1, 64, 4}, {97, 1, 64, 4}, {1, 0, 64, 4}, {1, 113, 64, 4}, {1, 1, 60, 4},
		{1, 1, 4096, 4}, {1, 1, 64, 256}} {
		_, err := NewCSR(s)
		assert.Error(t, err, "%+v", s)
	}
}

// Every register keeps its bits (README and nic_csr.sv header), written out
// by hand.
func TestCSRMasks(t *testing.T) {
	c, err := NewCSR(DefaultCSRShape)
	require.NoError(t, err)
	masks := map[uint32]uint32{
		AddrCtrl: 0x3, AddrMACLo: 0xFFFFFFFF, AddrMACHi: 0xFFFF, AddrIP: 0xFFFFFFFF, AddrDSCP: 0x3F3F,
		AddrCNPInterval: 0xFFFFFFFF, AddrLineRate: 0xFFFFFFFF, AddrMinRate: 0xFFFFFFFF, AddrGShift: 0x1F,
		AddrAlphaPeriod: 0xFFFFFFFF, AddrIncreasePeriod: 0xFFFFFFFF, AddrByteCounter: 0xFFFFFFFF,
		AddrFastRecoverySteps: 0xFFFFFFFF, AddrAdditiveStep: 0xFFFFFFFF, AddrHyperStep: 0xFFFFFFFF,
		AddrRNRCycles: 0xFFFFFFFF, AddrRNRCycles + 4*31: 0xFFFFFFFF,
		MRAddr(1, MRBaseLo): 0xFFFFFFFF, MRAddr(1, MRBaseHi): 0xFFFFFFFF, MRAddr(1, MRLenLo): 0xFFFFFFFF,
		MRAddr(1, MRLenHi): 0xFFFFFFFF, MRAddr(1, MRRKey): 0xFFFFFFFF, MRAddr(1, MRAccess): 0x3,
		MRAddr(1, MRValid): 0x1, MRAddr(1, 0x1C): 0,
		QPAddr(7, QPQPN): 0xFFFFFF, QPAddr(7, QPRemoteQPN): 0xFFFFFF, QPAddr(7, QPRemoteMACLo): 0xFFFFFFFF,
		QPAddr(7, QPRemoteMACHi): 0xFFFF, QPAddr(7, QPRemoteIP): 0xFFFFFFFF, QPAddr(7, QPSendPSN): 0xFFFFFF,
		QPAddr(7, QPRecvPSN): 0xFFFFFF, QPAddr(7, QPPMTULog2): 0xF, QPAddr(7, QPTimeoutCycles): 0xFFFFFFFF,
		QPAddr(7, QPRetry): 0x1F77, QPAddr(7, QPUDPSrc): 0xFFFF, QPAddr(7, QPAccess): 0x3,
		QPAddr(7, QPWindow): 0x7FFFFF, QPAddr(7, QPMaxReads): 0xFF, QPAddr(7, QPPrio): 7, QPAddr(7, QPDSCP): 0x3F, QPAddr(7, QPVLAN): 0x1FFF, QPAddr(7, 0x44): 0, QPAddr(7, 0x78): 0,
		QPAddr(7, QPStateReg): 0, QPAddr(16, QPQPN): 0, MRAddr(16, MRRKey): 0,
		AddrID: IDValue, AddrShape: DefaultCSRShape.Value(), 0x0008: 0, AddrCNPPrio: 7, 0x002C: 0, 0x0064: 0, 0x0100: 0,
		0x0015: 0, 0x3FFC: 0, 0xFFFC: 0,
		NodeCounterAddr(CntRxBufferFull): 0xFFFFFFFF, NodeCounterAddr(CntPausedCycles + 7): 0xFFFFFFFF,
		NodeCounterAddr(CntPausedCycles+7) + 4: 0,
		QPCounterAddr(15, rc.RxPackets):        0xFFFFFFFF, QPCounterAddr(15, rc.RxUnknownQP): 0,
		QPCounterAddr(15, rc.CompletionsError): 0xFFFFFFFF, QPCounterAddr(15, rc.CompletionsError) + 4: 0,
		QPCounterAddr(16, rc.RxPackets): 0,
	}
	for a := range masks {
		assert.Equal(t, -1, c.Write(a, 0xFFFFFFFF), "%#x", a)
	}
	for a, m := range masks {
		assert.Equal(t, fmt.Sprintf("%#x", m), fmt.Sprintf("%#x", c.Read(a)), "%#x", a)
	}
}

func TestCSRCountersAndState(t *testing.T) {
	c, err := NewCSR(DefaultCSRShape)
	require.NoError(t, err)
	c.AddNode(CntCQOverflow, 3)
	c.AddNode(NodeCounter(NumNodeCounters), 3) // no such counter
	c.AddQP(2, rc.TxPackets, 200)
	c.AddQP(2, rc.RxNotRoCE, 5) // node-level: ignored
	c.AddQP(16, rc.TxPackets, 5)
	assert.EqualValues(t, 3, c.Read(NodeCounterAddr(CntCQOverflow)))
	assert.EqualValues(t, 200, c.Read(QPCounterAddr(2, rc.TxPackets)))
	assert.EqualValues(t, 0, c.Read(QPCounterAddr(2, rc.RxNotRoCE)))
	c.Write(QPCounterAddr(2, rc.TxPackets), 0xFFFFFFF0)
	c.AddQP(2, rc.TxPackets, 0x20)
	assert.EqualValues(t, 0x10, c.Read(QPCounterAddr(2, rc.TxPackets)), "wraps at 2^32")

	c.SetState(4, QPStateError)
	assert.EqualValues(t, 2, c.Read(QPAddr(4, QPStateReg)))
	for _, v := range []uint32{0, 2, 3, 0x101, 0xFFFFFFFF} {
		assert.Equal(t, -1, c.Write(QPAddr(4, QPStateReg), v), "%#x loads nothing", v)
	}
	assert.Equal(t, 4, c.Write(QPAddr(4, QPStateReg), StateLoad))
	assert.Equal(t, -1, c.Write(QPAddr(16, QPStateReg), StateLoad), "no QP 16")
	assert.EqualValues(t, 2, c.Read(QPAddr(4, QPStateReg)), "the write does not change the state")
	assert.Equal(t, "RTS", QPStateRTS.String())
}

func TestNodeConfigWrites(t *testing.T) {
	cfg := rc.NodeConfig{MAC: [6]byte{0x02, 0x11, 0x22, 0x33, 0x44, 0x55}, IP: netip.MustParseAddr("10.1.2.3"),
		ClockHz: 250_000_000, DSCP: 26, CNPDSCP: 48, CNPInterval: dcqcn.DefaultCNPInterval(250_000_000),
		DCQCN: dcqcn.DefaultConfig(100_000_000_000, 250_000_000)}
	w, err := NodeConfigWrites(cfg)
	require.NoError(t, err)
	require.Equal(t, CSRWrite{AddrCtrl, CtrlEnable | CtrlDCQCN}, w[len(w)-1], "CTRL last")
	c, _ := NewCSR(DefaultCSRShape)
	for _, x := range w {
		c.Write(x.Addr, x.Data)
	}
	for a, want := range map[uint32]uint32{
		AddrMACLo: 0x22334455, AddrMACHi: 0x0211, AddrIP: 0x0A010203, AddrDSCP: 48<<8 | 26,
		AddrCNPInterval: 12500, AddrLineRate: 3276800, AddrMinRate: 3276, AddrGShift: 8, AddrAlphaPeriod: 13750,
		AddrIncreasePeriod: 13750, AddrByteCounter: 10_000_000, AddrFastRecoverySteps: 5, AddrAdditiveStep: 1310,
		AddrHyperStep:        6553,
		AddrRNRCycles:        163_840_000, // code 0: 655.36 ms
		AddrRNRCycles + 4:    2500,        // 0.01 ms
		AddrRNRCycles + 4*31: 122_880_000, // 491.52 ms
	} {
		assert.Equal(t, want, c.Read(a), "%#x", a)
	}

	cfg.DCQCN = dcqcn.Config{}
	w, err = NodeConfigWrites(cfg)
	require.NoError(t, err)
	assert.Equal(t, CSRWrite{AddrCtrl, CtrlEnable}, w[len(w)-1], "no rate control")

	cfg.CNPInterval = 1 << 32
	_, err = NodeConfigWrites(cfg)
	assert.True(t, errors.Is(err, ErrCSRRange), "%v", err)
	cfg.CNPInterval = 0
	cfg.DCQCN = dcqcn.DefaultConfig(100_000_000_000, 250_000_000)
	cfg.DCQCN.ByteCounter = 1 << 40
	_, err = NodeConfigWrites(cfg)
	assert.True(t, errors.Is(err, ErrCSRRange), "%v", err)
	// the reaction point makes at most 4 byte-counter events per packet
	assert.Equal(t, uint64(1045), uint64(MinByteCounter))
	for _, bc := range []uint64{1, 1044} {
		cfg.DCQCN.ByteCounter = bc
		_, err = NodeConfigWrites(cfg)
		assert.True(t, errors.Is(err, ErrCSRRange), "byte counter %d: %v", bc, err)
	}
	for _, bc := range []uint64{0, 1045} {
		cfg.DCQCN.ByteCounter = bc
		w, err = NodeConfigWrites(cfg)
		require.NoError(t, err, "byte counter %d", bc)
		assert.Contains(t, w, CSRWrite{AddrByteCounter, uint32(bc)})
	}
	cfg.DCQCN.LineRate = 0 // rate control off: the byte counter is not used
	cfg.DCQCN.ByteCounter = 1
	_, err = NodeConfigWrites(cfg)
	require.NoError(t, err)
	cfg.DCQCN = dcqcn.DefaultConfig(100_000_000_000, 250_000_000)
	// RNR code 0 is 655.36 ms: over 32 bits from about 6.6 GHz
	cfg.DCQCN.ByteCounter = 0
	cfg.ClockHz = 7_000_000_000
	_, err = NodeConfigWrites(cfg)
	assert.True(t, errors.Is(err, ErrCSRRange), "%v", err)
}

func TestQPConfigWrites(t *testing.T) {
	qc := rc.QPConfig{QPN: 0x123456, RemoteQPN: 0xABCDEF, RemoteMAC: [6]byte{0x02, 0, 0, 0, 0, 0x09},
		RemoteIP: netip.MustParseAddr("192.168.0.9"), SendPSN: 0xFFFFF0, RecvPSN: 7, PMTU: 1024, Timeout: 14,
		RetryCnt: 7, RNRRetry: 6, MinRNRTimer: 31, UDPSrcPort: 0xC123, Access: rc.AccessRemoteRead}
	w, err := QPConfigWrites(3, qc, 250_000_000)
	require.NoError(t, err)
	require.Equal(t, CSRWrite{QPAddr(3, QPStateReg), StateLoad}, w[len(w)-1], "STATE last")
	c, _ := NewCSR(DefaultCSRShape)
	load := -1
	for _, x := range w {
		load = c.Write(x.Addr, x.Data)
	}
	assert.Equal(t, 3, load)
	for off, want := range map[uint32]uint32{
		QPQPN: 0x123456, QPRemoteQPN: 0xABCDEF, QPRemoteMACLo: 0x00000009, QPRemoteMACHi: 0x0200,
		QPRemoteIP: 0xC0A80009, QPSendPSN: 0xFFFFF0, QPRecvPSN: 7, QPPMTULog2: 10,
		QPTimeoutCycles: 1024 << 14, // 4.096 us is 1024 cycles at 250 MHz
		QPRetry:         0x1F67, QPUDPSrc: 0xC123, QPAccess: 2, QPWindow: rc.DefaultWindow,
		QPMaxReads: rc.DefaultMaxReads,
	} {
		assert.Equal(t, want, c.Read(QPAddr(3, off)), "offset %#x", off)
	}

	qc.Timeout = 22 // 1024 << 22 cycles: over 32 bits
	_, err = QPConfigWrites(3, qc, 250_000_000)
	assert.True(t, errors.Is(err, ErrCSRRange), "%v", err)
	qc.Timeout, qc.PMTU = 0, 1000
	_, err = QPConfigWrites(3, qc, 250_000_000)
	assert.Error(t, err, "rc's own checks")
}

// A QP set up through the register map: the writes a driver makes, and the
// registers as the NIC reads them back.
func ExampleQPConfigWrites() {
	qc := rc.QPConfig{QPN: 0x11, RemoteQPN: 0x22, RemoteMAC: [6]byte{0x02, 0, 0, 0, 0, 0x02},
		RemoteIP: netip.MustParseAddr("10.0.0.2"), PMTU: 4096, RetryCnt: 7, RNRRetry: 7, MinRNRTimer: 1,
		UDPSrcPort: 0xC000, Access: rc.AccessRemoteWrite | rc.AccessRemoteRead, Window: 256, MaxReads: 4}
	w, err := QPConfigWrites(0, qc, 250_000_000)
	if err != nil {
		panic(err)
	}
	regs, _ := NewCSR(DefaultCSRShape)
	for _, x := range w {
		if q := regs.Write(x.Addr, x.Data); q >= 0 {
			fmt.Printf("%#04x <- %d: QP %d loads\n", x.Addr, x.Data, q)
		}
	}
	fmt.Printf("PMTU_LOG2 %d, RETRY %#x, WINDOW %d\n", regs.Read(QPAddr(0, QPPMTULog2)),
		regs.Read(QPAddr(0, QPRetry)), regs.Read(QPAddr(0, QPWindow)))
	// Output:
	// 0x107c <- 1: QP 0 loads
	// PMTU_LOG2 12, RETRY 0x177, WINDOW 256
}
