package ethswitch

// CSR map of eth_switch (README "CSR map"): 32-bit registers at byte
// addresses. Addresses not listed read 0 and ignore writes; so do the
// read-only ID and SHAPE for writes.
const (
	AddrID          = 0x0000 // RO, IDValue
	AddrShape       = 0x0004 // RO, PORTS[7:0], QUEUES[15:8], BYTES[23:16]
	AddrCtrl        = 0x0010 // CtrlSched | CtrlECN | CtrlPFCTx | CtrlPFCRx | CtrlRED
	AddrMTU         = 0x0014 // largest frame accepted; above MTU_MAX acts as MTU_MAX
	AddrAgeCycles   = 0x0018 // MAC entry lifetime in cycles, 0 = never age
	AddrDefaultPrio = 0x001C // bits 2:0
	AddrPFCXoff     = 0x0020 // bytes
	AddrPFCXon      = 0x0024 // bytes
	AddrPFCQuanta   = 0x0028 // bits 15:0
	AddrPFCRefresh  = 0x002C // cycles; 0 acts as 1
	AddrSwitchMACLo = 0x0030 // MAC bytes 2..5, byte 5 in bits 7:0
	AddrSwitchMACHi = 0x0034 // MAC bytes 0..1 in bits 15:0 (byte 0 in bits 15:8)
	AddrREDLFSR     = 0x0038 // bits 15:0: the RED LFSR state; a write of 0 loads 1
	AddrDSCPMap     = 0x0040 // + 4k, k = 0..7: DSCP 8k+j maps to bits 4j+2..4j
	AddrECNK        = 0x0080 // + 4p: ECN threshold of priority p, bytes
	AddrQuantum     = 0x00C0 // + 4p: DRR quantum of queue p, bytes
	AddrECNKMax     = 0x0100 // + 4p: RED upper threshold of priority p, bytes
	AddrECNPMax     = 0x0140 // + 4p: bits 7:0, RED mark probability at ECN_KMAX, /256
	AddrCounters    = 0x1000 // + 0x100*port + 4*counter, see Counter
)

// IDValue is the value of the ID register: "SW", version 1.
const IDValue = 0x53570001

// CTRL bits.
const (
	CtrlSched = 1 << 0 // 0 strict priority, 1 deficit round robin
	CtrlECN   = 1 << 1 // ECN marking
	CtrlPFCTx = 1 << 2 // PFC generation
	CtrlPFCRx = 1 << 3 // act on received PFC frames
	CtrlRED   = 1 << 4 // with CtrlECN: mark between ECN_K and ECN_KMAX at random
)

// Reset values of the writable registers that are not 0 (MTU and QUANTUM
// reset to MTU_MAX).
const (
	ResetPFCXoff    = 8192
	ResetPFCXon     = 4096
	ResetPFCQuanta  = 0xFFFF
	ResetPFCRefresh = 32768
	ResetECNK       = 4096
	ResetECNKMax    = 16384
	ResetECNPMax    = 26
	ResetREDLFSR    = 1
)

// Write masks: registers with a narrower field keep only its bits and read
// them back; the others keep all 32 bits.
const (
	maskCtrl     = 0x1F
	maskPrio     = 0x7
	maskQuanta   = 0xFFFF
	maskMACHi    = 0xFFFF
	maskPMax     = 0xFF
	maskDSCPWord = 0x77777777 // eight 3-bit fields at bits 4j+2..4j
)

// CounterAddr returns the CSR address of counter c of port.
func CounterAddr(port int, c Counter) uint32 {
	return AddrCounters + 0x100*uint32(port) + 4*uint32(c)
}

// regs holds the configuration registers as written (after the masks).
type regs struct {
	ctrl        uint32
	mtu         uint32
	age         uint32
	defaultPrio uint32
	xoff, xon   uint32
	quanta      uint32
	refresh     uint32
	macLo       uint32
	macHi       uint32
	dscp        [8]uint32
	ecnK        [NumQueues]uint32
	quantum     [NumQueues]uint32
	ecnKMax     [NumQueues]uint32
	ecnPMax     [NumQueues]uint32
}

func resetRegs(mtuMax int) regs {
	r := regs{
		mtu:     uint32(mtuMax),
		xoff:    ResetPFCXoff,
		xon:     ResetPFCXon,
		quanta:  ResetPFCQuanta,
		refresh: ResetPFCRefresh,
	}
	for p := range NumQueues {
		r.ecnK[p] = ResetECNK
		r.quantum[p] = uint32(mtuMax)
		r.ecnKMax[p] = ResetECNKMax
		r.ecnPMax[p] = ResetECNPMax
	}
	return r
}

// dscpPrio is DSCP_MAP[dscp/8] bits 4j+2..4j, j = dscp%8.
func (r *regs) dscpPrio(dscp uint8) int {
	return int(r.dscp[dscp>>3]>>(4*(dscp&7))) & 7
}

// switchMAC is SWITCH_MAC_HI:SWITCH_MAC_LO as bytes 0..5.
func (r *regs) switchMAC() MAC {
	hi, lo := r.macHi, r.macLo
	return MAC{byte(hi >> 8), byte(hi), byte(lo >> 24), byte(lo >> 16), byte(lo >> 8), byte(lo)}
}

// effMTU is the MTU in force: the MTU register, at most MTU_MAX.
func (m *Model) effMTU() int {
	return int(min(uint64(m.r.mtu), uint64(m.cfg.MTUMax)))
}

// effRefresh is PFC_REFRESH, at least 1.
func (m *Model) effRefresh() uint64 { return max(uint64(m.r.refresh), 1) }

// readCSR returns the register at addr as it is now.
func (m *Model) readCSR(addr uint32) uint32 {
	r := &m.r
	switch {
	case addr == AddrID:
		return IDValue
	case addr == AddrShape:
		return uint32(m.cfg.Ports)&0xFF | uint32(NumQueues)<<8 | uint32(m.beatBytes)<<16
	case addr == AddrCtrl:
		return r.ctrl
	case addr == AddrMTU:
		return r.mtu
	case addr == AddrAgeCycles:
		return r.age
	case addr == AddrDefaultPrio:
		return r.defaultPrio
	case addr == AddrPFCXoff:
		return r.xoff
	case addr == AddrPFCXon:
		return r.xon
	case addr == AddrPFCQuanta:
		return r.quanta
	case addr == AddrPFCRefresh:
		return r.refresh
	case addr == AddrSwitchMACLo:
		return r.macLo
	case addr == AddrSwitchMACHi:
		return r.macHi
	case addr == AddrREDLFSR:
		return uint32(m.lfsr)
	case addr >= AddrDSCPMap && addr < AddrDSCPMap+4*8 && addr%4 == 0:
		return r.dscp[(addr-AddrDSCPMap)/4]
	case addr >= AddrECNK && addr < AddrECNK+4*NumQueues && addr%4 == 0:
		return r.ecnK[(addr-AddrECNK)/4]
	case addr >= AddrQuantum && addr < AddrQuantum+4*NumQueues && addr%4 == 0:
		return r.quantum[(addr-AddrQuantum)/4]
	case addr >= AddrECNKMax && addr < AddrECNKMax+4*NumQueues && addr%4 == 0:
		return r.ecnKMax[(addr-AddrECNKMax)/4]
	case addr >= AddrECNPMax && addr < AddrECNPMax+4*NumQueues && addr%4 == 0:
		return r.ecnPMax[(addr-AddrECNPMax)/4]
	}
	if port, c, ok := m.counterAt(addr); ok {
		return uint32(m.cnt[port][c])
	}
	return 0
}

// writeCSR applies a write; the caller has placed it in time.
func (m *Model) writeCSR(addr, data uint32) {
	r := &m.r
	switch {
	case addr == AddrCtrl:
		r.ctrl = data & maskCtrl
	case addr == AddrMTU:
		r.mtu = data
	case addr == AddrAgeCycles:
		r.age = data
	case addr == AddrDefaultPrio:
		r.defaultPrio = data & maskPrio
	case addr == AddrPFCXoff:
		r.xoff = data
	case addr == AddrPFCXon:
		r.xon = data
	case addr == AddrPFCQuanta:
		r.quanta = data & maskQuanta
	case addr == AddrPFCRefresh:
		r.refresh = data
	case addr == AddrSwitchMACLo:
		r.macLo = data
	case addr == AddrSwitchMACHi:
		r.macHi = data & maskMACHi
	case addr == AddrREDLFSR:
		m.lfsr = max(uint16(data), 1)
	case addr >= AddrDSCPMap && addr < AddrDSCPMap+4*8 && addr%4 == 0:
		r.dscp[(addr-AddrDSCPMap)/4] = data & maskDSCPWord
	case addr >= AddrECNK && addr < AddrECNK+4*NumQueues && addr%4 == 0:
		r.ecnK[(addr-AddrECNK)/4] = data
	case addr >= AddrQuantum && addr < AddrQuantum+4*NumQueues && addr%4 == 0:
		r.quantum[(addr-AddrQuantum)/4] = data
	case addr >= AddrECNKMax && addr < AddrECNKMax+4*NumQueues && addr%4 == 0:
		r.ecnKMax[(addr-AddrECNKMax)/4] = data
	case addr >= AddrECNPMax && addr < AddrECNPMax+4*NumQueues && addr%4 == 0:
		r.ecnPMax[(addr-AddrECNPMax)/4] = data & maskPMax
	default:
		if port, c, ok := m.counterAt(addr); ok {
			m.cnt[port][c] = uint64(data)
		}
	}
}

// counterAt decodes a counter address.
func (m *Model) counterAt(addr uint32) (port int, c Counter, ok bool) {
	if addr < AddrCounters || addr%4 != 0 {
		return 0, 0, false
	}
	off := addr - AddrCounters
	port, c = int(off/0x100), Counter(off%0x100/4)
	if port >= m.cfg.Ports || !c.Valid() {
		return 0, 0, false
	}
	return port, c, true
}
