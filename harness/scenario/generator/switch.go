package generator

import "fmt"

// SwitchTraffic: a switch of the given width with random l2 traffic into
// every port (perPort frames each), random output backpressure and the
// given CSR settings; every frame and counter is checked by golden/ethswitch.
// The tests of the switch, the engine and cmd/cosim run it as it is; the
// switch-random generator without its cycles bound.
func SwitchTraffic(top string, ports, width, perPort int, csr string) string {
	return switchTraffic(top, ports, width, perPort, csr, "200_000_000")
}

// switchTraffic is SwitchTraffic with its cycles bound.
func switchTraffic(top string, ports, width, perPort int, csr, cycles string) string {
	s := fmt.Sprintf(`
name = "switch-random"
cycles = %s

[[model]]
name = "sw"
top = %q
data_width = %d
src_gap_pct = 5
sink_stall_pct = 20
[model.csr]
%s
`, cycles, top, width, csr)
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

// The [model.csr] presets of SwitchTraffic.
const (
	// switchStrict: strict priority with ECN, PFC generation and reception.
	switchStrict = `CTRL = 14
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
SWITCH_MAC_HI = 0x0200`
	// switchDRR: DRR, the RED form of ECN and PFC reception.
	switchDRR = `CTRL = 27
RED_LFSR = 0x1D2E
ECN_KMAX1 = 12000
ECN_PMAX1 = 64
MTU = 1518
QUANTUM0 = 1518
QUANTUM1 = 3000
QUANTUM5 = 6000
QUANTUM7 = 2000
ECN_K1 = 4000
DEFAULT_PRIO = 1`
)

// SwitchConfigs are the [model.csr] of SwitchTraffic by width: strict
// priority with ECN, PFC generation and reception at 64 bits; DRR,
// the RED form of ECN and PFC reception at 512.
var SwitchConfigs = map[int]string{64: switchStrict, 512: switchDRR}

var switchCSR = map[string]struct{ csr, what string }{
	"strict": {switchStrict, "strict priority, ECN, PFC"},
	"drr":    {switchDRR, "DRR, RED ECN, PFC reception"},
}

func init() {
	Register(&Generator{
		Name: "switch-random",
		Doc:  "random l2 traffic into every port of one RTL switch, every frame and counter checked",
		Params: []Param{
			{Name: "ports", Doc: "the switch: 4 (top switch4) or 8 (top switch8)", Default: 4, OneOf: []any{4, 8}},
			{Name: "width", Doc: "data width in bits", Default: 64, OneOf: []any{64, 512}},
			{Name: "frames", Doc: "frames in all, spread evenly over the ports", Default: 2_000_000, Min: 1},
			{Name: "csr", Doc: `CSR preset: "strict", "drr", or "auto" (strict at 64 bits, drr at 512)`, Default: "auto", OneOf: []any{"auto", "strict", "drr"}},
		},
		Func: switchRandom,
	})
}

func switchRandom(p Params, _ uint64) (string, string, error) {
	ports, width, frames, preset := p["ports"].(int), p["width"].(int), p["frames"].(int), p["csr"].(string)
	if frames < ports {
		return "", "", &ParamError{Generator: "switch-random", Key: "frames", Msg: fmt.Sprintf("%d frames over %d ports: at least one a port", frames, ports)}
	}
	if preset == "auto" {
		preset = map[int]string{64: "strict", 512: "drr"}[width]
	}
	top := fmt.Sprintf("switch%d", ports)
	desc := fmt.Sprintf("%d frames into %s at %d bits (%d a port), %s", frames/ports*ports, top, width, frames/ports, switchCSR[preset].what)
	return switchTraffic(top, ports, width, frames/ports, switchCSR[preset].csr, unbounded), desc, nil
}
