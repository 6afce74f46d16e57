package report

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gopacket/gopacket"

	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/pcapio"
)

// bins is how many slices of simulated time the plots show.
const bins = 100

// traffic is what the run's link captures show over time, in bins of
// width cycles each.
type traffic struct {
	width uint64 // cycles per bin
	links []*linkSeries
	qps   []*qpSeries
	// pauses are the PFC pause intervals seen, per link and priority.
	pauses []pause
}

// linkSeries is one link: bytes and ECN CE marks per bin.
type linkSeries struct {
	name   string // "nic0.out0--sw.in0"
	from   string // the sending model
	bytes  []float64
	ce     []float64
	frames int
}

// qpSeries is one destination QP (a NIC's, by IP address and QP number):
// what its peers sent it, as the NICs put it on the wire.
type qpSeries struct {
	key                    string
	bytes, cnp, nak, retry []float64
	totals                 [4]int // bytes, CNPs, NAKs, retransmissions
}

// pause is one PFC XOFF interval: priority prio of the link's sender was
// asked to pause from start to end (cycles), by the sender of link.
type pause struct {
	link       string
	prio       int
	start, end uint64
}

// readTraffic reads every link capture in dir ("A.outN--B.inM.pcapng");
// runs without captures (--no-pcap) give an empty traffic.
func readTraffic(dir string, sum *engine.Summary) (*traffic, error) {
	t := &traffic{width: max(1, (sum.Cycles+bins-1)/bins)}
	files, err := filepath.Glob(filepath.Join(dir, "*--*.pcapng"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	qps := map[string]*qpSeries{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pcapng")
		from, _, _ := strings.Cut(name, ".")
		l := &linkSeries{name: name, from: from, bytes: make([]float64, bins), ce: make([]float64, bins)}
		nic := sum.Models[from].Top == "nic"
		if err := t.readLink(f, l, sum, nic, qps); err != nil {
			return nil, err
		}
		t.links = append(t.links, l)
	}
	for _, k := range slices.Sorted(maps.Keys(qps)) {
		t.qps = append(t.qps, qps[k])
	}
	return t, nil
}

func (t *traffic) bin(cycle uint64) int { return min(bins-1, int(cycle/t.width)) }

// readLink adds one capture. Frames a NIC sent feed the per-QP series:
// each RoCEv2 packet crosses the first link once, so nothing counts twice.
func (t *traffic) readLink(path string, l *linkSeries, sum *engine.Summary, nic bool, qps map[string]*qpSeries) error {
	r, err := pcapio.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	psn := map[string]roce.PSN{} // highest request PSN per destination QP
	last := map[int]int{}        // priority -> its latest pause interval
	width := sum.Models[l.from].DataWidth
	for {
		p, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		b := t.bin(p.Cycle)
		l.bytes[b] += float64(len(p.Data))
		l.frames++
		if isCE(p.Data) {
			l.ce[b]++
		}
		if mask, quanta, ok := pfcFrame(p.Data); ok {
			t.pfc(l.name, p.Cycle, mask, quanta, width, last)
			continue
		}
		if nic {
			countQP(p.Data, b, psn, qps)
		}
	}
	for i := range t.pauses {
		t.pauses[i].end = min(t.pauses[i].end, sum.Cycles)
	}
	return nil
}

// pfc turns a PFC frame into pause intervals: a priority's pause starts
// at a non-zero quanta and lasts its quanta (512 bit times each, IEEE
// 802.1Qbb) at the sender's width, unless the next frame for it (a zero
// quanta, XON, or a refresh) comes first. last holds, per priority, the
// index in t.pauses of its latest interval.
func (t *traffic) pfc(link string, cycle uint64, mask uint8, quanta [pfc.NumPriorities]uint16, width int, last map[int]int) {
	for prio := range pfc.NumPriorities {
		if mask&(1<<prio) == 0 {
			continue
		}
		if i, ok := last[prio]; ok && t.pauses[i].end > cycle {
			t.pauses[i].end = cycle
		}
		delete(last, prio)
		if quanta[prio] == 0 {
			continue
		}
		end := ^uint64(0) // the sender's width unknown: until the next frame or the run's end
		if width > 0 {
			end = cycle + pfc.QuantaToCycles(quanta[prio], width)
		}
		last[prio] = len(t.pauses)
		t.pauses = append(t.pauses, pause{link: link, prio: prio, start: cycle, end: end})
	}
}

// pfcFrame decodes a MAC Control frame into what it asks (a PAUSE frame
// asks every priority).
func pfcFrame(data []byte) (mask uint8, quanta [pfc.NumPriorities]uint16, ok bool) {
	const ethHeader = 14
	if len(data) < ethHeader || binary.BigEndian.Uint16(data[12:]) != uint16(pfc.EtherType) {
		return 0, quanta, false
	}
	var f pfc.PFC
	if f.DecodeFromBytes(data[ethHeader:], gopacket.NilDecodeFeedback) != nil {
		return 0, quanta, false
	}
	mask, quanta = f.Request()
	return mask, quanta, mask != 0
}

// isCE reports an IP packet (after at most one VLAN tag) marked
// Congestion Experienced (ECN 0b11, RFC 3168).
func isCE(d []byte) bool {
	off := 12
	if len(d) >= off+2 && binary.BigEndian.Uint16(d[off:]) == 0x8100 {
		off += 4
	}
	if len(d) < off+4 {
		return false
	}
	switch binary.BigEndian.Uint16(d[off:]) {
	case 0x0800:
		return d[off+3]&3 == 3 // TOS low bits
	case 0x86DD:
		return (binary.BigEndian.Uint16(d[off+2:])>>4)&3 == 3 // traffic class low bits
	}
	return false
}

// countQP adds a RoCEv2 packet a NIC sent to its destination QP's series.
func countQP(data []byte, b int, psn map[string]roce.PSN, qps map[string]*qpSeries) {
	var f roce.Frame
	if f.Decode(data) != nil {
		return
	}
	ip := f.IPPacket(data)
	var dst string
	if f.IPv6 {
		dst = fmt.Sprintf("%x", ip[24:40])
	} else {
		dst = fmt.Sprintf("%d.%d.%d.%d", ip[16], ip[17], ip[18], ip[19])
	}
	key := fmt.Sprintf("%s qp %s", dst, f.BTH.DestQP)
	q := qps[key]
	if q == nil {
		q = &qpSeries{key: key, bytes: make([]float64, bins), cnp: make([]float64, bins), nak: make([]float64, bins), retry: make([]float64, bins)}
		qps[key] = q
	}
	op := f.BTH.OpCode
	switch {
	case op == roce.CNPOpCode:
		q.cnp[b]++
		q.totals[1]++
		return
	case op.Headers()&roce.HasAETH != 0 && f.BTH.AETH.Syndrome.Kind() == roce.KindNAK:
		q.nak[b]++
		q.totals[2]++
	}
	n := len(f.BTH.Payload)
	q.bytes[b] += float64(n)
	q.totals[0] += n
	if !isRequest(op) {
		return
	}
	// A request at or behind the highest PSN sent before is sent again.
	cur := f.BTH.PSN
	if last, ok := psn[key]; ok && !last.Less(cur) {
		q.retry[b]++
		q.totals[3]++
		return
	}
	psn[key] = cur
}

// isRequest reports a requester's opcode: SENDs, RDMA WRITEs, the RDMA READ
// request and the atomics (IBA 9.2, table 38: the low five bits 0x00 to
// 0x0C, 0x13, 0x14, 0x16, 0x17); the rest are responses or CNPs.
func isRequest(op roce.OpCode) bool {
	switch c := op & 0x1F; {
	case op == roce.CNPOpCode:
		return false
	case c <= 0x0C, c == 0x13, c == 0x14, c == 0x16, c == 0x17:
		return true
	}
	return false
}
