package modeltest

import "fmt"

// The scenarios below are run by the tests of more than one package: the
// switch's random traffic by its own (rtl/switch/tb) and by the engine's
// pipelining tests; two NICs through the switch by the NIC's (rtl/nic/tb)
// and by the engine's benchmark.

// SwitchTraffic: a switch of the given width with random l2 traffic into
// every port (perPort frames each), random output backpressure and the
// given CSR settings; every frame and counter is checked by golden/ethswitch.
func SwitchTraffic(top string, ports, width, perPort int, csr string) string {
	s := fmt.Sprintf(`
name = "switch-random"
cycles = 200_000_000

[[model]]
name = "sw"
top = %q
data_width = %d
src_gap_pct = 5
sink_stall_pct = 20
[model.csr]
%s
`, top, width, csr)
	for p := range ports {
		s += fmt.Sprintf(`
[[traffic]]
kind = "l2"
to = "sw.in%d"
frames = %d
min_size = 60
max_size = 1518
hosts = 6
burst = 4
gap_cycles = %d
vlan_pct = 30
ipv4_pct = 60
ect_pct = 70
broadcast_pct = 3
unknown_pct = 5
runt_pct = 1
oversize_pct = 1
bad_pct = 1
pfc_pct = 1
`, p, perPort, 3*1518*8/width)
	}
	return s
}

// SwitchConfigs are the [model.csr] of SwitchTraffic by width: strict
// priority with ECN, PFC generation and reception at 64 bits; DRR,
// the RED form of ECN and PFC reception at 512.
var SwitchConfigs = map[int]string{
	64: `CTRL = 14
MTU = 1518
AGE_CYCLES = 400000
DSCP_MAP0 = 0x76543210
DSCP_MAP5 = 0x01234567
ECN_K3 = 3000
ECN_K5 = 2000
ECN_K0 = 6000
PFC_XOFF = 6000
PFC_XON = 3000
PFC_REFRESH = 20000
SWITCH_MAC_LO = 0x00000042
SWITCH_MAC_HI = 0x0200`,
	512: `CTRL = 27
RED_LFSR = 0x1D2E
ECN_KMAX1 = 12000
ECN_PMAX1 = 64
MTU = 1518
QUANTUM0 = 1518
QUANTUM1 = 3000
QUANTUM5 = 6000
QUANTUM7 = 2000
ECN_K1 = 4000
DEFAULT_PRIO = 1`,
}

// NICSwitchNIC is the models and links of two RTL NICs through the RTL
// 4-port switch at width bits, nic0 on port 0 and nic1 on port 1, every
// link 1 us (156 cycles at 156.25 MHz). swExtra follows the switch's
// [[model]] (its [model.csr]), linkExtra every [[link]] (its faults).
func NICSwitchNIC(width int, swExtra, linkExtra string) string {
	s := ""
	for _, m := range []string{"nic0", "nic1"} {
		s += fmt.Sprintf("[[model]]\nname = %q\ntop = \"nic\"\ndata_width = %d\n", m, width)
	}
	s += fmt.Sprintf("[[model]]\nname = \"sw\"\ntop = \"switch4\"\ndata_width = %d\n%s\n", width, swExtra)
	for p, m := range []string{"nic0", "nic1"} {
		s += fmt.Sprintf("[[link]]\nfrom = \"%s.out0\"\nto = \"sw.in%d\"\nlatency = 156\n%s\n", m, p, linkExtra)
		s += fmt.Sprintf("[[link]]\nfrom = \"sw.out%d\"\nto = \"%s.in0\"\nlatency = 156\n%s\n", p, m, linkExtra)
	}
	return s
}

// FIFOPair is a scenario called name of two 64-bit axis_fifo models, a's
// out0 linked to b's in0 with the link keys given (latency, faults), and
// then the rest (its [[traffic]] into a.in0, say).
func FIFOPair(name string, cycles uint64, link, rest string) string {
	return fmt.Sprintf("name = %q\ncycles = %d\n[[model]]\nname = \"a\"\ntop = \"axis_fifo\"\n[[model]]\nname = \"b\"\ntop = \"axis_fifo\"\n"+
		"[[link]]\nfrom = \"a.out0\"\nto = \"b.in0\"\n%s\n%s", name, cycles, link, rest)
}
