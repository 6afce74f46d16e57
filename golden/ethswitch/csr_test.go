package ethswitch

import (
	"errors"
	"testing"
)

// TestCSRReset: every register of the README's map at reset.
func TestCSRReset(t *testing.T) {
	m, _ := New(DefaultConfig())
	want := map[uint32]uint32{
		AddrID: 0x53570001, AddrShape: 4 | 8<<8 | 8<<16, AddrCtrl: 0, AddrMTU: 4224, AddrAgeCycles: 0,
		AddrDefaultPrio: 0, AddrPFCXoff: 8192, AddrPFCXon: 4096, AddrPFCQuanta: 0xFFFF, AddrPFCRefresh: 32768,
		AddrSwitchMACLo: 0, AddrSwitchMACHi: 0, AddrREDLFSR: 1,
		0x0008: 0, 0x003C: 0, 0x0180: 0, 0x0FFC: 0, // unmapped
	}
	for k := uint32(0); k < 8; k++ {
		want[AddrDSCPMap+4*k] = 0
		want[AddrECNK+4*k] = 4096
		want[AddrQuantum+4*k] = 4224
		want[AddrECNKMax+4*k] = 16384
		want[AddrECNPMax+4*k] = 26
	}
	for addr, v := range want {
		if got := m.CSRRead(addr); got != v {
			t.Errorf("CSR %#04x = %#x, want %#x", addr, got, v)
		}
	}
	cfg := DefaultConfig()
	cfg.Ports, cfg.DataWidth, cfg.MTUMax = 8, 512, 9000
	m, _ = New(cfg)
	if got := m.CSRRead(AddrShape); got != 8|8<<8|64<<16 {
		t.Errorf("SHAPE at 8 ports, 512 bits = %#x", got)
	}
	if m.CSRRead(AddrMTU) != 9000 || m.CSRRead(AddrQuantum+4*7) != 9000 {
		t.Error("MTU and QUANTUM reset to MTU_MAX")
	}
}

// TestCSRWrite: fields narrower than 32 bits keep only their bits, ID and
// SHAPE ignore writes, unmapped addresses stay 0, counters take any value.
func TestCSRWrite(t *testing.T) {
	m, _ := New(DefaultConfig())
	ones := uint32(0xFFFFFFFF)
	want := map[uint32]uint32{
		AddrID: IDValue, AddrShape: 4 | 8<<8 | 8<<16,
		AddrCtrl: 0x1F, AddrMTU: ones, AddrAgeCycles: ones, AddrDefaultPrio: 7,
		AddrPFCXoff: ones, AddrPFCXon: ones, AddrPFCQuanta: 0xFFFF, AddrPFCRefresh: ones,
		AddrSwitchMACLo: ones, AddrSwitchMACHi: 0xFFFF, AddrREDLFSR: 0xFFFF,
		AddrDSCPMap + 4*3: 0x77777777, AddrECNK + 4*6: ones, AddrQuantum + 4*2: ones,
		AddrECNKMax + 4*5: ones, AddrECNPMax + 4*1: 0xFF,
		0x0008: 0, 0x0042: 0, 0x00E0: 0, 0x0160: 0, // unmapped, misaligned, past QUANTUM[7] and ECN_PMAX[7]
		CounterAddr(3, RxBytes): ones, CounterAddr(0, ECNMarked(7)): ones,
		CounterAddr(0, 12): 0, CounterAddr(4, RxFrames): 0, // unused counter, no port 4
	}
	for addr := range want {
		if err := m.CSRWrite(addr, ones, 0); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.CSRRead(AddrCtrl); got != 0 {
		t.Errorf("a write at cycle 0 is visible at cycle 0: CTRL = %#x", got)
	}
	m.Run(1)
	for addr, v := range want {
		if got := m.CSRRead(addr); got != v {
			t.Errorf("CSR %#04x = %#x after writing all ones, want %#x", addr, got, v)
		}
	}
	if m.Counter(3, RxBytes) != 0xFFFFFFFF || m.Counters(0).ECNMarked[7] != 0xFFFFFFFF {
		t.Error("counter writes not seen by Counter and Counters")
	}
	if mac := m.r.switchMAC(); mac != Broadcast {
		t.Errorf("SWITCH_MAC %v", mac)
	}
}

// TestCSRTiming: a read at cycle Now() sees every update of the cycles
// before it; a write stamped t is seen by reads from t+1; a write stamped
// Now()-1 applies at once.
func TestCSRTiming(t *testing.T) {
	m, _ := New(DefaultConfig())
	m.Input(0, plain(Broadcast, macA, 64), false, 10) // decided at 11, leaves 13..20
	check := func(until uint64, addr, want uint32) {
		t.Helper()
		m.Run(until)
		if got := m.CSRRead(addr); got != want {
			t.Errorf("read at %d of %#x = %d, want %d", until, addr, got, want)
		}
	}
	check(11, CounterAddr(0, RxFrames), 0)
	check(12, CounterAddr(0, RxFrames), 1)
	check(20, CounterAddr(1, TxFrames), 0)
	check(21, CounterAddr(1, TxFrames), 1)
	if err := m.CSRWrite(AddrAgeCycles, 9, 30); err != nil {
		t.Fatal(err)
	}
	check(30, AddrAgeCycles, 0)
	check(31, AddrAgeCycles, 9)
	if err := m.CSRWrite(AddrAgeCycles, 5, 30); err != nil { // effective from 31 = Now()
		t.Fatal(err)
	}
	if got := m.CSRRead(AddrAgeCycles); got != 5 {
		t.Errorf("write stamped Now()-1: %d", got)
	}
}

func TestCounterNames(t *testing.T) {
	all := AllCounters()
	if len(all) != 28 || all[0] != RxFrames || all[11] != TxPFC || all[12] != DropTail(0) || all[27] != ECNMarked(7) {
		t.Errorf("AllCounters = %v", all)
	}
	for _, c := range []struct {
		c    Counter
		name string
		addr uint32
	}{
		{RxFrames, "rx_frames", 0x1000}, {TxBytes, "tx_bytes", 0x100C}, {DropNoSlot, "drop_no_slot", 0x101C},
		{RxMACControl, "rx_mac_control", 0x1028}, {TxPFC, "tx_pfc", 0x102C},
		{DropTail(3), "drop_tail[3]", 0x104C}, {ECNMarked(0), "ecn_marked[0]", 0x1060},
	} {
		if c.c.String() != c.name || CounterAddr(0, c.c) != c.addr {
			t.Errorf("counter %d: %q at %#x, want %q at %#x", c.c, c.c, CounterAddr(0, c.c), c.name, c.addr)
		}
	}
	if Counter(12).Valid() || Counter(12).String() != "Counter(12)" {
		t.Error("counter 12 is unused")
	}
	addrs := CounterAddrs(4)
	if len(addrs) != 4*28 || addrs["port2.drop_tail[3]"] != 0x124C || addrs[CounterName(3, RxPFC)] != 0x1324 {
		t.Errorf("CounterAddrs: %d entries", len(addrs))
	}
	m, _ := New(DefaultConfig())
	if len(m.CounterMap()) != len(addrs) {
		t.Error("CounterMap and CounterAddrs differ")
	}
}

// TestErrors: configurations and events the model refuses.
func TestErrors(t *testing.T) {
	for _, f := range []func(*Config){
		func(c *Config) { c.Ports = 1 },
		func(c *Config) { c.Ports = 65 },
		func(c *Config) { c.DataWidth = 96 },
		func(c *Config) { c.DataWidth = 1024 },
		func(c *Config) { c.Queues = 4 },
		func(c *Config) { c.MTUMax = 59 },
		func(c *Config) { c.Slots = 0 },
		func(c *Config) { c.BufBytes = -1 },
		func(c *Config) { c.MACEntries = 48 },
		func(c *Config) { c.MACEntries = 512 },
	} {
		cfg := DefaultConfig()
		f(&cfg)
		if _, err := New(cfg); err == nil {
			t.Errorf("New accepted %+v", cfg)
		}
	}
	m, _ := New(DefaultConfig())
	if err := m.Input(4, plain(Broadcast, macA, 64), false, 10); err == nil {
		t.Error("input on port 4 of 4")
	}
	if err := m.Input(0, plain(Broadcast, macA, 64), false, 10); err != nil {
		t.Fatal(err)
	}
	if err := m.Input(0, plain(Broadcast, macA, 64), false, 10); !errors.Is(err, ErrPast) {
		t.Errorf("two frames ending in one cycle on one port: %v", err)
	}
	if err := m.Input(1, plain(Broadcast, macA, 64), false, 5); err != nil {
		t.Errorf("ports are independent: %v", err)
	}
	m.Run(50)
	if err := m.Input(2, plain(Broadcast, macA, 64), false, 48); !errors.Is(err, ErrPast) {
		t.Errorf("decision at 49 < Now() = 50: %v", err)
	}
	if err := m.Input(2, plain(Broadcast, macA, 64), false, 49); err != nil {
		t.Errorf("decision at 50 = Now(): %v", err)
	}
	if err := m.CSRWrite(AddrCtrl, 1, 48); !errors.Is(err, ErrPast) {
		t.Errorf("write effective at 49 < 50: %v", err)
	}
	if err := m.CSRWrite(AddrCtrl, 1, 60); err != nil {
		t.Fatal(err)
	}
	if err := m.CSRWrite(AddrCtrl, 1, 59); !errors.Is(err, ErrPast) {
		t.Errorf("writes out of order: %v", err)
	}
}

// TestIdle follows the idle output through a frame's life and a PFC frame.
func TestIdle(t *testing.T) {
	cfg := DefaultConfig()
	m, _ := New(cfg)
	m.CSRWrite(AddrCtrl, CtrlPFCTx, 0)
	m.CSRWrite(AddrPFCXoff, 63, 0)
	m.CSRWrite(AddrPFCXon, 0, 0)
	if !m.Idle() {
		t.Error("not idle after reset")
	}
	m.Input(0, plain(Broadcast, macA, 64), false, 10)
	// Decided at 11 (ic = 64 > 63: XOFF waits on port 0 from 12, leaves
	// 13..20); copies leave 13..20; XON at the end of 20 leaves 22..29.
	for _, c := range []struct {
		until uint64
		idle  bool
	}{{5, false}, {11, false}, {12, false}, {21, false}, {29, false}, {30, true}} {
		m.Run(c.until)
		if m.Idle() != c.idle {
			t.Errorf("Idle at %d = %v, want %v", c.until, m.Idle(), c.idle)
		}
	}
	if n := len(m.Outputs()); n != 5 {
		t.Errorf("%d outputs, want 3 copies and 2 PFC frames", n)
	}
}
