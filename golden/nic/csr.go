package nic

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/rocesim/cosim/golden/rc"
)

// CSR map of the NIC (rtl/nic/README.md "CSR map", rtl/nic/nic_csr.sv):
// 32-bit registers at byte addresses. Addresses not listed, MRs and QPs
// past the shape, node counters past NumNodeCounters and QP counters below
// FirstQPCounter read 0 and ignore writes; so do the read-only ID and SHAPE
// for writes. Every writable register resets to 0.
const (
	AddrID          = 0x0000 // RO, IDValue
	AddrShape       = 0x0004 // RO, QPS[7:0], MRS[15:8], DATA_WIDTH/8 [23:16], MAX_READS[31:24]
	AddrCtrl        = 0x0010 // CtrlEnable | CtrlDCQCN
	AddrMACLo       = 0x0014 // MAC bytes 2..5, byte 5 in bits 7:0
	AddrMACHi       = 0x0018 // MAC bytes 0..1 in bits 15:0 (byte 0 in bits 15:8)
	AddrIP          = 0x001C // IPv4 address, first byte in bits 31:24
	AddrDSCP        = 0x0020 // bits 5:0 data/ACK DSCP, bits 13:8 CNP DSCP
	AddrCNPInterval = 0x0024 // cycles (rc.NodeConfig.CNPInterval)
	AddrCNPPrio     = 0x0028 // bits 2:0, the priority of CNPs (rc.NodeConfig.CNPPriority)

	// dcqcn.Config, one register per field; periods and ByteCounter are
	// limited to 32 bits.
	AddrLineRate          = 0x0040 // Q16.16 bytes/cycle
	AddrMinRate           = 0x0044 // Q16.16 bytes/cycle
	AddrGShift            = 0x0048 // bits 4:0
	AddrAlphaPeriod       = 0x004C // cycles
	AddrIncreasePeriod    = 0x0050 // cycles
	AddrByteCounter       = 0x0054 // bytes, 0 = off
	AddrFastRecoverySteps = 0x0058 // F
	AddrAdditiveStep      = 0x005C // R_AI, Q16.16
	AddrHyperStep         = 0x0060 // R_HAI, Q16.16

	AddrRNRCycles    = 0x0080 // + 4k, k = 0..31: rc.RNRCycles(k) in cycles
	AddrMR           = 0x0200 // + MRStride*m + MR* offset
	AddrQP           = 0x1000 // + QPStride*q + QP* offset
	AddrNodeCounters = 0x4000 // + 4n, see NodeCounter
	AddrQPCounters   = 0x5000 // + QPCounterStride*q + 4n, n an rc.Counter

	MRStride        = 0x20
	QPStride        = 0x80
	QPCounterStride = 0x100
)

// Registers of a memory region, offsets from AddrMR + MRStride*m.
const (
	MRBaseLo = 0x00
	MRBaseHi = 0x04
	MRLenLo  = 0x08
	MRLenHi  = 0x0C
	MRRKey   = 0x10
	MRAccess = 0x14 // bits 1:0, rc.Access
	MRValid  = 0x18 // bit 0
)

// Registers of a QP context, offsets from AddrQP + QPStride*q.
const (
	QPQPN           = 0x00 // bits 23:0
	QPRemoteQPN     = 0x04 // bits 23:0
	QPRemoteMACLo   = 0x08 // as AddrMACLo
	QPRemoteMACHi   = 0x0C // as AddrMACHi
	QPRemoteIP      = 0x10
	QPSendPSN       = 0x14 // bits 23:0
	QPRecvPSN       = 0x18 // bits 23:0
	QPPMTULog2      = 0x1C // bits 3:0, 8..12
	QPTimeoutCycles = 0x20 // rc.TimeoutCycles, 0 = off
	QPRetry         = 0x24 // bits 2:0 retry_cnt, 6:4 rnr_retry, 12:8 min RNR timer code
	QPUDPSrc        = 0x28 // bits 15:0
	QPAccess        = 0x2C // bits 1:0, rc.Access
	QPWindow        = 0x30 // bits 22:0
	QPMaxReads      = 0x34 // bits 7:0
	QPPrio          = 0x38 // bits 2:0, rc.QPConfig.Priority
	QPDSCP          = 0x3C // bits 5:0, rc.QPConfig.DSCP (0: the node's)
	QPVLAN          = 0x40 // bit 12 tag (rc.QPConfig.VLAN), bits 11:0 VID
	QPStateReg      = 0x7C // write StateLoad to load the QP; reads QPState
)

// IDValue is the value of the ID register: "NC", version 1.
const IDValue = 0x4E430001

// CTRL bits.
const (
	CtrlEnable = 1 << 0
	CtrlDCQCN  = 1 << 1 // rate control (DCQCN reaction point)
)

// StateLoad is the value whose write to a QP's STATE register loads the
// QP: nic_csr pulses qp_load in the next cycle, when the engine adds it.
// Other values are reserved and ignored.
const StateLoad = 1

// QPState is what a QP's STATE register reads: the engine's state of the QP.
type QPState uint8

// QP states.
const (
	QPStateReset QPState = iota
	QPStateRTS
	QPStateError
)

func (s QPState) String() string {
	switch s {
	case QPStateReset:
		return "reset"
	case QPStateRTS:
		return "RTS"
	case QPStateError:
		return "error"
	}
	return fmt.Sprintf("state%d", uint8(s))
}

// NodeCounter numbers the node counters at AddrNodeCounters + 4n: rc's
// node-level counters first, with their rc.Counter numbers (rx_not_roce ..
// rx_unknown_qp), then the NIC's own drops, then the MAC Control counters
// (rc.PauseCounters).
type NodeCounter uint8

// The NIC's own node counters, after rc's.
const (
	CntCmdBad         NodeCounter         = NodeCounter(FirstQPCounter) + iota // command record dropped (README "Host records")
	CntCmdRejected                                                             // post refused by the transport
	CntCQOverflow                                                              // completion lost: completion FIFO full
	CntHostRxOverflow                                                          // host frame lost: host FIFO full
	CntRxBadFrame                                                              // frame with tuser[0] on its last beat
	CntRxBufferFull                                                            // frame lost: receive buffer full
	CntRxPFC                                                                   // PFC frames received
	CntRxPause                                                                 // PAUSE frames received
	CntRxMACControl                                                            // other MAC Control frames, dropped
	CntPauseNamed                                                              // + p: pause frames that named priority p
	CntPausedCycles   = CntPauseNamed + 8                                      // + p: cycles priority p was paused
	numNodeCounters   = CntPausedCycles + 8
)

// NumNodeCounters is the number of node counters.
const NumNodeCounters = int(numNodeCounters)

// FirstQPCounter is the first rc.Counter a QP counts; the ones below it are
// node-level (rc counts them before a QP is known), so a QP's counters
// 0 .. FirstQPCounter-1 read 0.
const FirstQPCounter = rc.RxPackets

var nodeCounterNames = [...]string{"cmd_bad", "cmd_rejected", "cq_overflow", "host_rx_overflow", "rx_bad_frame",
	"rx_buffer_full", "rx_pfc", "rx_pause", "rx_mac_control"}

func (n NodeCounter) String() string {
	switch {
	case n < NodeCounter(FirstQPCounter):
		return rc.Counter(n).String()
	case n < CntPauseNamed:
		return nodeCounterNames[n-NodeCounter(FirstQPCounter)]
	case n < CntPausedCycles:
		return fmt.Sprintf("rx_pause_prio%d", n-CntPauseNamed)
	case n < numNodeCounters:
		return fmt.Sprintf("paused_cycles_prio%d", n-CntPausedCycles)
	}
	return "counter?"
}

// PauseCounter returns the value of node counter n when it is one of the
// MAC Control counters (CntRxPFC on), from the node's rc.PauseCounters.
func PauseCounter(n NodeCounter, c rc.PauseCounters) (uint64, bool) {
	switch {
	case n == CntRxPFC:
		return c.RxPFC, true
	case n == CntRxPause:
		return c.RxPause, true
	case n == CntRxMACControl:
		return c.RxMACControl, true
	case n >= CntPauseNamed && n < CntPausedCycles:
		return c.Named[n-CntPauseNamed], true
	case n >= CntPausedCycles && n < numNodeCounters:
		return c.Cycles[n-CntPausedCycles], true
	}
	return 0, false
}

// MRAddr returns the address of register off of memory region m.
func MRAddr(m int, off uint32) uint32 { return AddrMR + MRStride*uint32(m) + off }

// QPAddr returns the address of register off of QP context q.
func QPAddr(q int, off uint32) uint32 { return AddrQP + QPStride*uint32(q) + off }

// NodeCounterAddr returns the address of node counter n.
func NodeCounterAddr(n NodeCounter) uint32 { return AddrNodeCounters + 4*uint32(n) }

// QPCounterAddr returns the address of counter c of QP q.
func QPCounterAddr(q int, c rc.Counter) uint32 {
	return AddrQPCounters + QPCounterStride*uint32(q) + 4*uint32(c)
}

// CSRShape holds the NIC parameters the map depends on.
type CSRShape struct {
	QPS       int // 1..96
	MRS       int // 1..112
	DataWidth int // bits per beat (SHAPE only)
	MaxReads  int // READs outstanding per QP (SHAPE only)
}

// DefaultCSRShape is the shape of the NIC's default parameters.
var DefaultCSRShape = CSRShape{QPS: 16, MRS: 16, DataWidth: 64, MaxReads: 4}

// Validate reports a shape nic_csr refuses.
func (s CSRShape) Validate() error {
	switch {
	case s.QPS < 1 || s.QPS > 96:
		return fmt.Errorf("nic csr: QPS %d outside 1..96", s.QPS)
	case s.MRS < 1 || s.MRS > 112:
		return fmt.Errorf("nic csr: MRS %d outside 1..112", s.MRS)
	case s.DataWidth <= 0 || s.DataWidth%8 != 0 || s.DataWidth/8 > 255:
		return fmt.Errorf("nic csr: data width %d", s.DataWidth)
	case s.MaxReads < 0 || s.MaxReads > 255:
		return fmt.Errorf("nic csr: MAX_READS %d outside 0..255", s.MaxReads)
	}
	return nil
}

// Value returns the SHAPE register.
func (s CSRShape) Value() uint32 {
	return uint32(s.QPS) | uint32(s.MRS)<<8 | uint32(s.DataWidth/8)<<16 | uint32(s.MaxReads)<<24
}

// Bits each register keeps: the rest of a write is dropped and reads 0.
const (
	maskCtrl   = 0x3
	maskHalf   = 0xFFFF
	maskDSCP   = 0x3F3F
	maskGShift = 0x1F
	mask24     = 0xFFFFFF
	maskPMTU   = 0xF
	maskRetry  = 0x1F77
	maskAccess = 0x3
	maskValid  = 0x1
	maskWindow = 0x7FFFFF
	maskByte   = 0xFF
	maskPrio   = 0x7
	maskDSCP1  = 0x3F
	maskVLAN   = 0x1FFF
	mask32     = math.MaxUint32
)

// mrMasks and qpMasks are by word offset; 0 is no register.
var (
	mrMasks = [MRStride / 4]uint32{mask32, mask32, mask32, mask32, mask32, maskAccess, maskValid}
	qpMasks = [QPStride / 4]uint32{mask24, mask24, mask32, maskHalf, mask32, mask24, mask24, maskPMTU, mask32,
		maskRetry, maskHalf, maskAccess, maskWindow, maskByte, maskPrio, maskDSCP1, maskVLAN}
)

// CSR mirrors nic_csr's registers: what a read returns after a given
// sequence of writes, counter increments and QP states. It knows no time:
// the caller applies each cycle's events in nic_csr's order (header of
// nic_csr.sv): reads of cycle t see everything before t; the increments of
// t, then the write of t (which wins over them), take effect at t+1.
type CSR struct {
	shape CSRShape
	cfg   [AddrNodeCounters / 4]uint32 // configuration words by address/4
	node  [NumNodeCounters]uint32
	qp    [][rc.NumCounters]uint32
	state []QPState
}

// NewCSR returns the registers of a NIC of shape s after reset.
func NewCSR(s CSRShape) (*CSR, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &CSR{shape: s, qp: make([][rc.NumCounters]uint32, s.QPS), state: make([]QPState, s.QPS)}, nil
}

// Shape returns the shape the registers were made for.
func (c *CSR) Shape() CSRShape { return c.shape }

// mask returns the bits the configuration register at addr keeps, 0 when
// addr is not a writable configuration register.
func (c *CSR) mask(addr uint32) uint32 {
	if addr%4 != 0 {
		return 0
	}
	switch {
	case addr == AddrCtrl:
		return maskCtrl
	case addr == AddrMACLo, addr == AddrIP, addr == AddrCNPInterval:
		return mask32
	case addr == AddrMACHi:
		return maskHalf
	case addr == AddrDSCP:
		return maskDSCP
	case addr == AddrCNPPrio:
		return maskPrio
	case addr == AddrGShift:
		return maskGShift
	case addr >= AddrLineRate && addr <= AddrHyperStep:
		return mask32
	case addr >= AddrRNRCycles && addr < AddrRNRCycles+4*32:
		return mask32
	case addr >= AddrMR && addr < AddrMR+MRStride*uint32(c.shape.MRS):
		return mrMasks[(addr-AddrMR)%MRStride/4]
	case addr >= AddrQP && addr < AddrQP+QPStride*uint32(c.shape.QPS):
		return qpMasks[(addr-AddrQP)%QPStride/4]
	}
	return 0
}

// counter returns the counter at addr, or nil.
func (c *CSR) counter(addr uint32) *uint32 {
	if addr%4 != 0 {
		return nil
	}
	if addr >= AddrNodeCounters && addr < AddrNodeCounters+4*uint32(NumNodeCounters) {
		return &c.node[(addr-AddrNodeCounters)/4]
	}
	if addr >= AddrQPCounters && addr < AddrQPCounters+QPCounterStride*uint32(c.shape.QPS) {
		q, n := (addr-AddrQPCounters)/QPCounterStride, (addr-AddrQPCounters)%QPCounterStride/4
		if n >= uint32(FirstQPCounter) && n < uint32(rc.NumCounters) {
			return &c.qp[q][n]
		}
	}
	return nil
}

// stateQP returns the QP whose STATE register is at addr, or -1.
func (c *CSR) stateQP(addr uint32) int {
	if addr >= AddrQP && addr < AddrQP+QPStride*uint32(c.shape.QPS) && (addr-AddrQP)%QPStride == QPStateReg {
		return int((addr - AddrQP) / QPStride)
	}
	return -1
}

// Read returns what a read of addr returns.
func (c *CSR) Read(addr uint32) uint32 {
	switch {
	case addr == AddrID:
		return IDValue
	case addr == AddrShape:
		return c.shape.Value()
	case c.mask(addr) != 0:
		return c.cfg[addr/4]
	}
	if p := c.counter(addr); p != nil {
		return *p
	}
	if q := c.stateQP(addr); q >= 0 {
		return uint32(c.state[q] & 3)
	}
	return 0
}

// Write applies a write of data to addr. It returns the QP it loads (a
// write of StateLoad to its STATE register), or -1.
func (c *CSR) Write(addr, data uint32) (load int) {
	if m := c.mask(addr); m != 0 {
		c.cfg[addr/4] = data & m
		return -1
	}
	if p := c.counter(addr); p != nil {
		*p = data
		return -1
	}
	if q := c.stateQP(addr); q >= 0 && data == StateLoad {
		return q
	}
	return -1
}

// AddNode adds v events to node counter n (32 bits, wrapping).
func (c *CSR) AddNode(n NodeCounter, v uint32) {
	if int(n) < NumNodeCounters {
		c.node[n] += v
	}
}

// AddQP adds v events to counter n of QP q; as nic_csr, it ignores the
// node-level counters.
func (c *CSR) AddQP(q int, n rc.Counter, v uint32) {
	if q >= 0 && q < c.shape.QPS && n >= FirstQPCounter && int(n) < rc.NumCounters {
		c.qp[q][n] += v
	}
}

// SetState sets the engine's state of QP q, which its STATE register reads
// (the low 2 bits: nic_csr's qp_state input).
func (c *CSR) SetState(q int, s QPState) {
	if q >= 0 && q < c.shape.QPS {
		c.state[q] = s
	}
}

// CSRWrite is one register write.
type CSRWrite struct {
	Addr, Data uint32
}

// ErrCSRRange is wrapped by the *Writes functions when a value does not
// fit its register (a period or timer over 32 bits, a DCQCN byte counter
// below MinByteCounter).
var ErrCSRRange = errors.New("value does not fit its register")

func fit32(name string, v uint64) (uint32, error) {
	if v > math.MaxUint32 {
		return 0, fmt.Errorf("%w: %s %d is over 32 bits", ErrCSRRange, name, v)
	}
	return uint32(v), nil
}

// RPByteCounterEvents is how many byte-counter events one sent packet may
// make in the NIC's reaction point (nic_dcqcn_rp.sv BC_EVENTS).
const RPByteCounterEvents = 4

// MinByteCounter is the smallest non-zero DCQCN ByteCounter the NIC takes:
// its reaction point handles at most RPByteCounterEvents byte-counter
// events per packet, and a packet is at most rc.MaxFrameLen bytes.
const MinByteCounter = (rc.MaxFrameLen + RPByteCounterEvents - 1) / RPByteCounterEvents

// NodeConfigWrites returns the writes that give the NIC cfg: the address
// registers, CNP_INTERVAL, DCQCN, RNR_CYCLES (rc.RNRCycles at cfg.ClockHz)
// and, last, CTRL (enable; DCQCN when cfg.DCQCN.LineRate is not 0). It
// refuses what the NIC cannot hold: 32-bit fields golden keeps in 64 bits
// past 2^32-1, and a DCQCN ByteCounter from 1 to MinByteCounter-1.
func NodeConfigWrites(cfg rc.NodeConfig) ([]CSRWrite, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if bc := cfg.DCQCN.ByteCounter; cfg.DCQCN.LineRate != 0 && bc != 0 && bc < MinByteCounter {
		return nil, fmt.Errorf("%w: DCQCN byte counter %d bytes: the NIC takes 0 (off) or at least %d "+
			"(%d byte-counter events per packet of up to %d bytes, nic_dcqcn_rp BC_EVENTS)",
			ErrCSRRange, bc, MinByteCounter, RPByteCounterEvents, rc.MaxFrameLen)
	}
	ip := cfg.IP.As4()
	d := cfg.DCQCN
	w := []CSRWrite{
		{AddrMACLo, macLo(cfg.MAC)},
		{AddrMACHi, macHi(cfg.MAC)},
		{AddrIP, uint32(ip[0])<<24 | uint32(ip[1])<<16 | uint32(ip[2])<<8 | uint32(ip[3])},
		{AddrDSCP, uint32(cfg.DSCP) | uint32(cfg.CNPDSCP)<<8},
		{AddrCNPPrio, uint32(cfg.CNPPriority)},
		{AddrLineRate, uint32(d.LineRate)},
		{AddrMinRate, uint32(d.MinRate)},
		{AddrGShift, uint32(d.GShift)},
		{AddrFastRecoverySteps, d.FastRecoverySteps},
		{AddrAdditiveStep, uint32(d.AdditiveStep)},
		{AddrHyperStep, uint32(d.HyperStep)},
	}
	for _, f := range []struct {
		addr uint32
		name string
		v    uint64
	}{
		{AddrCNPInterval, "CNP interval", cfg.CNPInterval},
		{AddrAlphaPeriod, "DCQCN alpha period", d.AlphaPeriod},
		{AddrIncreasePeriod, "DCQCN increase period", d.IncreasePeriod},
		{AddrByteCounter, "DCQCN byte counter", d.ByteCounter},
	} {
		v, err := fit32(f.name, f.v)
		if err != nil {
			return nil, err
		}
		w = append(w, CSRWrite{f.addr, v})
	}
	for k := range 32 {
		v, err := fit32(fmt.Sprintf("RNR timer code %d in cycles", k), rc.RNRCycles(uint8(k), cfg.ClockHz))
		if err != nil {
			return nil, err
		}
		w = append(w, CSRWrite{AddrRNRCycles + 4*uint32(k), v})
	}
	ctrl := uint32(CtrlEnable)
	if d.LineRate != 0 {
		ctrl |= CtrlDCQCN
	}
	return append(w, CSRWrite{AddrCtrl, ctrl}), nil
}

// MRWrites returns the writes that put mr in slot m, VALID last.
func MRWrites(m int, mr rc.MemoryRegion) []CSRWrite {
	return []CSRWrite{
		{MRAddr(m, MRBaseLo), uint32(mr.Base)},
		{MRAddr(m, MRBaseHi), uint32(mr.Base >> 32)},
		{MRAddr(m, MRLenLo), uint32(mr.Length)},
		{MRAddr(m, MRLenHi), uint32(mr.Length >> 32)},
		{MRAddr(m, MRRKey), mr.RKey},
		{MRAddr(m, MRAccess), uint32(mr.Access)},
		{MRAddr(m, MRValid), 1},
	}
}

// QPConfigWrites returns the writes that set QP slot q to c and, last,
// load it (STATE): the engine adds the QP in the cycle after that write.
// Window and MaxReads 0 are written as rc's defaults, as rc.Node.AddQP
// reads them; the local ACK timeout is converted at clockHz.
func QPConfigWrites(q int, c rc.QPConfig, clockHz uint64) ([]CSRWrite, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	timeout, err := fit32(fmt.Sprintf("qp %v: ACK timeout code %d in cycles", c.QPN, c.Timeout),
		rc.TimeoutCycles(c.Timeout, clockHz))
	if err != nil {
		return nil, err
	}
	window, maxReads := c.Window, c.MaxReads
	if window == 0 {
		window = rc.DefaultWindow
	}
	if maxReads == 0 {
		maxReads = rc.DefaultMaxReads
	}
	ip := c.RemoteIP.As4()
	return []CSRWrite{
		{QPAddr(q, QPQPN), uint32(c.QPN)},
		{QPAddr(q, QPRemoteQPN), uint32(c.RemoteQPN)},
		{QPAddr(q, QPRemoteMACLo), macLo(c.RemoteMAC)},
		{QPAddr(q, QPRemoteMACHi), macHi(c.RemoteMAC)},
		{QPAddr(q, QPRemoteIP), uint32(ip[0])<<24 | uint32(ip[1])<<16 | uint32(ip[2])<<8 | uint32(ip[3])},
		{QPAddr(q, QPSendPSN), uint32(c.SendPSN)},
		{QPAddr(q, QPRecvPSN), uint32(c.RecvPSN)},
		{QPAddr(q, QPPMTULog2), uint32(bits.TrailingZeros(uint(c.PMTU)))},
		{QPAddr(q, QPTimeoutCycles), timeout},
		{QPAddr(q, QPRetry), uint32(c.RetryCnt) | uint32(c.RNRRetry)<<4 | uint32(c.MinRNRTimer)<<8},
		{QPAddr(q, QPUDPSrc), uint32(c.UDPSrcPort)},
		{QPAddr(q, QPAccess), uint32(c.Access)},
		{QPAddr(q, QPWindow), uint32(window)},
		{QPAddr(q, QPMaxReads), uint32(maxReads)},
		{QPAddr(q, QPPrio), uint32(c.Priority)},
		{QPAddr(q, QPDSCP), uint32(c.DSCP)},
		{QPAddr(q, QPVLAN), vlanWord(c)},
		{QPAddr(q, QPStateReg), StateLoad},
	}, nil
}

func macLo(m [6]byte) uint32 {
	return uint32(m[2])<<24 | uint32(m[3])<<16 | uint32(m[4])<<8 | uint32(m[5])
}

func macHi(m [6]byte) uint32 { return uint32(m[0])<<8 | uint32(m[1]) }

// vlanWord is a QP's VLAN register: bit 12 tags, bits 11:0 the VID.
func vlanWord(c rc.QPConfig) uint32 {
	if !c.VLAN {
		return uint32(c.VID)
	}
	return 1<<12 | uint32(c.VID)
}
