package generator

import (
	"fmt"
	"math/rand/v2"

	"github.com/rocesim/cosim/golden/ethswitch"
	"github.com/rocesim/cosim/harness/workload/rdma"
)

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

// NICDirect is the models and links of two RTL NICs joined by a pair of
// 1 us links, each with these fault rates (percent).
func NICDirect(width int, loss, corrupt, dup, reorder float64) string {
	s := ""
	for _, m := range []string{"nic0", "nic1"} {
		s += fmt.Sprintf("[[model]]\nname = %q\ntop = \"nic\"\ndata_width = %d\n", m, width)
	}
	for _, l := range [][2]string{{"nic0", "nic1"}, {"nic1", "nic0"}} {
		s += fmt.Sprintf("[[link]]\nfrom = \"%s.out0\"\nto = \"%s.in0\"\nlatency = 156\nloss_pct = %g\ncorrupt_pct = %g\ndup_pct = %g\nreorder_pct = %g\n",
			l[0], l[1], loss, corrupt, dup, reorder)
	}
	return s
}

func init() {
	Register(&Generator{
		Name: "nic-soak",
		Doc:  "an RDMA workload between two RTL NICs, its shape and fault rates drawn from the seed",
		Params: []Param{
			{Name: "width", Doc: "data width in bits", Default: 64, OneOf: []any{64, 512}},
			{Name: "path", Doc: `"switch" (nic0 - switch4 - nic1, loss and corruption) or "direct" (nic0 - nic1, every link fault)`, Default: "switch", OneOf: []any{"switch", "direct"}},
			{Name: "messages", Doc: "messages asked for; fewer when they are large", Default: 20_000, Min: 1},
		},
		Func: nicSoak,
	})
}

// nicSoak draws the shape from the seed whatever the path, so that a
// seed's runs through the switch and direct differ only where the path
// must: the switch makes no duplicates or reorders (and would cap the path
// MTU at soakSwitchPMTU, now every path MTU drawn).
func nicSoak(p Params, seed uint64) (string, string, error) {
	width, path := p["width"].(int), p["path"].(string)
	shape := newSoakShape(seed, p["messages"].(int))
	head := "name = \"nic-soak\"\ncycles = " + unbounded + "\n"
	if path == "direct" {
		desc := fmt.Sprintf("nic0 - nic1 at %d bits, %s, duplication %g %%, reordering %g %%", width, shape, shape.dup, shape.reorder)
		return head + NICDirect(width, shape.loss, shape.corrupt, shape.dup, shape.reorder) + shape.workload(), desc, nil
	}
	shape.pmtu = min(shape.pmtu, soakSwitchPMTU)
	desc := fmt.Sprintf("nic0 - switch - nic1 at %d bits, %s", width, shape)
	links := fmt.Sprintf("loss_pct = %g\ncorrupt_pct = %g", shape.loss, shape.corrupt)
	return head + NICSwitchNIC(width, "", links) + shape.workload(), desc, nil
}

// soakShape is what a seed draws of a soak workload besides its order.
type soakShape struct {
	// asked: the messages asked for; messages: what the shape takes of
	// them (soakMessages).
	asked int

	messages, qps, outstanding, minSize, maxSize, pmtu, timeout int
	send, write, read, imm                                      float64
	loss, corrupt, dup, reorder                                 float64 // percent, per link
	zero                                                        float64 // percent of empty messages
}

// newSoakShape draws a workload shape from seed. Fault rates and timers
// stay where seven retries recover every loss, so that every message must
// complete.
func newSoakShape(seed uint64, messages int) soakShape {
	rng := rand.New(rand.NewPCG(seed, 0x736f616b)) // "soak"
	pick := func(v ...int) int { return v[rng.IntN(len(v))] }
	s := soakShape{
		asked:       messages,
		qps:         pick(1, 2, 4, 8, 16),
		outstanding: pick(1, 4, 8, 16, 32),
		maxSize:     pick(256, 4096, 16384, 65536),
		pmtu:        pick(256, 512, 1024, 2048, 4096),
		timeout:     pick(4, 5, 6, 8),
		loss:        float64(rng.IntN(21)) / 10, // 0 to 2 %
		corrupt:     float64(rng.IntN(6)) / 10,  // 0 to 0.5 %
		dup:         float64(rng.IntN(11)) / 10, // 0 to 1 %
		reorder:     float64(rng.IntN(11)) / 10,
		imm:         float64(rng.IntN(101)),
	}
	s.minSize = pick(0, 0, s.maxSize/2)
	// The buffers must fit each NIC's memory: fewer outstanding messages
	// when they would not (seed 108 drew 16 QPs, 32 outstanding and 64 KiB:
	// 160 MiB, and every run of it stopped before starting).
	for s.outstanding > 1 && !rdma.BuffersFit(s.qps, s.outstanding, s.maxSize) {
		s.outstanding /= 2
	}
	// The ACK timer must outlast the queue a request may wait behind: every
	// QP's outstanding messages at their largest, at 64 bits (8 bytes a
	// cycle), twice over. A shorter one expires while the answers are on
	// their way, and eight expiries in a row spend the retries (seed 24 at
	// 1 QP, 32 outstanding, 64 KiB, timeout 4: RTL and golden agreed on
	// RETRY_EXC_ERR). Code t waits 640 * 2^t cycles at 156.25 MHz.
	queue := uint64(s.qps*s.outstanding*s.maxSize) / 8 * 2
	for 640<<s.timeout < queue {
		s.timeout++
	}
	// A mix in whole percent that adds up to 100.
	a, b := rng.IntN(101), rng.IntN(101)
	a, b = min(a, b), max(a, b)
	s.send, s.write, s.read = float64(a), float64(b-a), float64(100-b)
	s.messages = soakMessages(messages, s.minSize, s.maxSize, min(s.pmtu, soakSwitchPMTU))
	// Drawn last, so that the draws above (and each seed's shape) stay as
	// they were: some runs send empty messages, an ONLY packet with no
	// payload, which uniform sizes almost never give.
	s.zero = float64(pick(0, 0, 2))
	return s
}

// soakSwitchPMTU is the largest path MTU of a soak run through the switch:
// the largest whose packets fit in its MTU_MAX (4224 bytes, jumbo), so
// 4096, every path MTU the shape draws.
var soakSwitchPMTU = rdma.LargestPMTU(ethswitch.DefaultConfig().MTUMax)

// soakPacketsPerMessage is the data packets a soak run may move per
// message asked for, on average: soakMessages scales a shape of large
// messages and a small path MTU down to it, so that every run takes about
// as long as the others. Unscaled, seed 71's shape (32 to 64 KiB at path
// MTU 1024, about 49 packets a message) took three times as long as seed
// 70's (0 to 16 KiB, about 9).
const soakPacketsPerMessage = 10

// soakMessages is how many messages of minSize to maxSize bytes a run
// takes when messages were asked for, at the path MTU of its run through
// the switch (the smaller one): all of them, unless their packets would
// exceed the budget.
func soakMessages(messages, minSize, maxSize, pmtu int) int {
	perMessage := 1 + (minSize+maxSize)/2/pmtu
	return max(1, min(messages, messages*soakPacketsPerMessage/perMessage))
}

func (s soakShape) String() string {
	scaled := ""
	if s.messages < s.asked {
		scaled = fmt.Sprintf(" (of %d: large ones)", s.asked)
	}
	return fmt.Sprintf("%d messages%s on %d QPs, %d outstanding, %d to %d bytes (%g %% empty), path MTU %d, SEND/WRITE/READ %g/%g/%g %%, immediate %g %%, timeout %d; per link loss %g %%, corruption %g %%",
		s.messages, scaled, s.qps, s.outstanding, s.minSize, s.maxSize, s.zero, s.pmtu, s.send, s.write, s.read, s.imm, s.timeout,
		s.loss, s.corrupt)
}

// workload is the [[rdma]] table of the shape between nic0 and nic1.
func (s soakShape) workload() string {
	return fmt.Sprintf(`
[[rdma]]
nics = ["nic0", "nic1"]
qps = %d
messages = %d
outstanding = %d
min_size = %d
max_size = %d
pmtu = %d
send_pct = %g
write_pct = %g
read_pct = %g
imm_pct = %g
timeout = %d
zero_pct = %g
`, s.qps, s.messages, s.outstanding, s.minSize, s.maxSize, s.pmtu, s.send, s.write, s.read, s.imm, s.timeout, s.zero)
}
