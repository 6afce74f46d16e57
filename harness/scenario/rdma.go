package scenario

import (
	"strconv"

	"github.com/BurntSushi/toml"
)

// RDMA is a workload of RC messages between NIC models: QP pairs join
// them as its pattern says, and the host behind each posts SEND, WRITE and
// READ work requests through its NIC's command port (in1), reacting to the
// completion records it reads from out1. It also configures the NICs
// (addresses, memory regions, QPs) and fills and checks their host memory.
// A NIC may be in several workloads: each takes its own QP slots and
// memory region on it.
type RDMA struct {
	NICs []string `toml:"nics"` // two or more NIC models, joined by [[link]]s (directly or through switches)
	// Pattern says which NICs QP pairs join and which way messages go
	// (default "pairs"; Connections).
	Pattern  string `toml:"pattern"`
	QPs      int    `toml:"qps"`      // QP pairs per connection (default 4)
	Messages int    `toml:"messages"` // work requests in all, over every connection (at least 1; no default)
	// The mix, in percent of messages (default 40 SEND, 40 WRITE, 20
	// READ); ImmPct of the SENDs and WRITEs carry an immediate (default 25).
	SendPct  float64  `toml:"send_pct"`
	WritePct float64  `toml:"write_pct"`
	ReadPct  float64  `toml:"read_pct"`
	ImmPct   *float64 `toml:"imm_pct"`
	MinSize  int      `toml:"min_size"` // message bytes (default 0)
	// ZeroPct is the share of messages of 0 bytes, whatever min_size
	// (default 0): an empty message is one packet with no payload.
	ZeroPct float64 `toml:"zero_pct"`
	MaxSize int     `toml:"max_size"` // (default 4096)
	PMTU    int     `toml:"pmtu"`     // path MTU (default 1024)
	// Outstanding is how many work requests a host keeps posted and not
	// completed per QP (default 8; at most the NIC's SQ_DEPTH and
	// RQ_DEPTH, 32).
	Outstanding int `toml:"outstanding"`
	// HostLatency is how many cycles after a completion record's last beat
	// the host posts the next work request (default 256, 1.6 us at 156.25
	// MHz): the engine's windows are never longer, so the reaction is on
	// time.
	HostLatency uint64 `toml:"host_latency"`
	// QP settings: the local ACK timeout code (4.096 us * 2^timeout,
	// default 6), retry_cnt and rnr_retry (default 7 each) and the RNR
	// timer code a responder sends (default 1, 10 us).
	Timeout     *int `toml:"timeout"`
	Retry       *int `toml:"retry"`
	RNRRetry    *int `toml:"rnr_retry"`
	MinRNRTimer int  `toml:"min_rnr_timer"`
	// DCQCN, when the [rdma.dcqcn] table is there, turns congestion
	// control on in both NICs.
	DCQCN *DCQCN `toml:"dcqcn"`
	// Flow control (rtl/nic/README.md "PFC", "VLAN"): QP pair q has the
	// 802.1p priority priorities[q % len] (default 0) and the DSCP
	// dscps[q % len] (default the NICs' 26); cnp_priority is the CNPs'
	// (default 0). A PFC or PAUSE frame that reaches a NIC pauses the
	// QPs of its priorities; a switch's DSCP_MAP should map each DSCP to
	// its priority. vlan, when set (0..4095), tags every frame with that
	// VID and the QP's priority as PCP.
	Priorities  []int `toml:"priorities"`
	DSCPs       []int `toml:"dscps"`
	CNPPriority int   `toml:"cnp_priority"`
	VLAN        *int  `toml:"vlan"`
}

// DCQCN is the congestion control of both NICs of a workload: a NIC that
// receives CE-marked packets sends CNPs, at most one per QP per
// CNPInterval cycles (the notification point), and a NIC that receives
// CNPs cuts the QP's send rate and raises it again over time (the reaction
// point, CTRL bit 1; rtl/nic/nic_dcqcn_rp.sv, golden/dcqcn). A field left
// out (0) takes the DCQCN paper's value, golden/dcqcn.DefaultConfig at the
// NIC's line rate (data_width bits per cycle).
type DCQCN struct {
	CNPInterval    uint64  `toml:"cnp_interval"`    // cycles (50 us)
	AlphaPeriod    uint64  `toml:"alpha_period"`    // cycles, K (55 us)
	IncreasePeriod uint64  `toml:"increase_period"` // cycles, T (55 us)
	ByteCounter    uint64  `toml:"byte_counter"`    // bytes, B (10 MB; at least nic.MinByteCounter)
	GShift         int     `toml:"g_shift"`         // alpha gain g = 2^-g_shift (8)
	FastRecovery   int     `toml:"fast_recovery"`   // F, fast-recovery steps (5)
	AdditiveMbps   float64 `toml:"additive_mbps"`   // R_AI (40 Mbit/s)
	HyperMbps      float64 `toml:"hyper_mbps"`      // R_HAI (200 Mbit/s)
	MinMbps        float64 `toml:"min_mbps"`        // the floor of a cut (100 Mbit/s)
}

// rdmaWritten lists the keys each [[rdma]] table writes, so that a
// default fills a key left out and never an explicit 0. MetaData.IsDefined
// cannot index an array of tables, so this decodes the text again, into
// maps; data decoded once already, so errors cannot come.
func rdmaWritten(data []byte) []map[string]any {
	var v struct {
		RDMA []map[string]any `toml:"rdma"`
	}
	_, _ = toml.Decode(string(data), &v)
	return v.RDMA
}

// written tells whether table i of tables writes key.
func written(tables []map[string]any, i int, key string) bool {
	if i >= len(tables) {
		return false
	}
	_, ok := tables[i][key]
	return ok
}

func (s *Scenario) rdmaDefaults(set []map[string]any) {
	for i := range s.RDMA {
		w := &s.RDMA[i]
		unset := func(key string) bool { return !written(set, i, key) }
		if unset("qps") {
			w.QPs = 4
		}
		if w.Pattern == "" {
			w.Pattern = PatternPairs
		}
		if w.SendPct == 0 && w.WritePct == 0 && w.ReadPct == 0 {
			w.SendPct, w.WritePct, w.ReadPct = 40, 40, 20
		}
		if w.ImmPct == nil {
			v := 25.0
			w.ImmPct = &v
		}
		if w.MaxSize == 0 {
			w.MaxSize = 4096
		}
		if unset("pmtu") {
			w.PMTU = 1024
		}
		if unset("outstanding") {
			w.Outstanding = 8
		}
		if unset("host_latency") {
			w.HostLatency = 256
		}
		if w.MinRNRTimer == 0 {
			w.MinRNRTimer = 1
		}
		for _, d := range []struct {
			p **int
			v int
		}{{&w.Timeout, 6}, {&w.Retry, 7}, {&w.RNRRetry, 7}} {
			if *d.p == nil {
				v := d.v
				*d.p = &v
			}
		}
	}
}

// maxMessage is the longest message a NIC command takes (rtl/nic README
// "Host records": 0..1 MiB).
const maxMessage = 1 << 20

func (s *Scenario) checkRDMA(bad func(toml.Key, string, ...any) error, set []map[string]any) error {
	slots := map[string]int{}   // QP slots each NIC's workloads take
	firstOf := map[string]int{} // the first workload that names each NIC: it sets the NIC up
	for i, w := range s.RDMA {
		k := func(f string) toml.Key { return toml.Key{"rdma", strconv.Itoa(i), f} }
		seen := map[string]bool{}
		for _, n := range w.NICs {
			if !s.hasModel(n) {
				return bad(k("nics"), "%q names no model of this scenario", n)
			}
			if seen[n] {
				return bad(k("nics"), "names %q twice", n)
			}
			seen[n] = true
		}
		switch {
		case len(w.NICs) < 2:
			return bad(k("nics"), "must name at least two NIC models, is %q", w.NICs)
		case !validPattern(w.Pattern):
			return bad(k("pattern"), "must be %q, %q, %q or %q, is %q", PatternPairs, PatternIncast, PatternAllToAll, PatternPermutation, w.Pattern)
		case w.Pattern == PatternPairs && len(w.NICs)%2 != 0:
			return bad(k("nics"), "pattern %q joins the NICs two by two: name an even number, not %d", PatternPairs, len(w.NICs))
		case w.QPs < 1 || w.QPs > nicQPs:
			return bad(k("qps"), "must be 1 to %d (the NIC's QPS), is %d", nicQPs, w.QPs)
		case !written(set, i, "messages"):
			return bad(k("messages"), "must be set: the work requests in all, at least 1")
		case w.Messages < 1:
			// An empty workload would still have its host memory checked,
			// which no message wrote: refused rather than failed at run time.
			return bad(k("messages"), "must be at least 1 (an empty workload is not run), is %d", w.Messages)
		case !(w.SendPct >= 0 && w.WritePct >= 0 && w.ReadPct >= 0 && w.SendPct+w.WritePct+w.ReadPct == 100):
			return bad(k("send_pct"), "send_pct, write_pct and read_pct must be 0 to 100 and add up to 100, are %g, %g and %g",
				w.SendPct, w.WritePct, w.ReadPct)
		case !(*w.ImmPct >= 0 && *w.ImmPct <= 100):
			return bad(k("imm_pct"), "must be 0 to 100, is %g", *w.ImmPct)
		case !(w.ZeroPct >= 0 && w.ZeroPct <= 100):
			return bad(k("zero_pct"), "must be 0 to 100, is %g", w.ZeroPct)
		case w.MinSize < 0 || w.MaxSize > maxMessage || w.MinSize > w.MaxSize:
			return bad(k("max_size"), "min_size and max_size must lie within 0..%d, are %d and %d", maxMessage, w.MinSize, w.MaxSize)
		case w.PMTU != 256 && w.PMTU != 512 && w.PMTU != 1024 && w.PMTU != 2048 && w.PMTU != 4096:
			return bad(k("pmtu"), "must be 256, 512, 1024, 2048 or 4096, is %d", w.PMTU)
		case w.Outstanding < 1 || w.Outstanding > 32:
			return bad(k("outstanding"), "must be 1 to 32 (the NIC's SQ_DEPTH and RQ_DEPTH), is %d", w.Outstanding)
		case w.HostLatency < 1 || w.HostLatency > 1<<32:
			return bad(k("host_latency"), "must be 1 to 2^32 cycles")
		case *w.Timeout < 0 || *w.Timeout > 31:
			return bad(k("timeout"), "must be 0 to 31 (0: no local ACK timeout), is %d", *w.Timeout)
		case *w.Retry < 0 || *w.Retry > 7:
			return bad(k("retry"), "must be 0 to 7, is %d", *w.Retry)
		case *w.RNRRetry < 0 || *w.RNRRetry > 7:
			return bad(k("rnr_retry"), "must be 0 to 7 (7: no limit), is %d", *w.RNRRetry)
		case w.MinRNRTimer < 0 || w.MinRNRTimer > 31:
			return bad(k("min_rnr_timer"), "must be 1 to 31, or 0 for 655.36 ms, is %d", w.MinRNRTimer)
		case w.CNPPriority < 0 || w.CNPPriority > 7:
			return bad(k("cnp_priority"), "must be 0 to 7, is %d", w.CNPPriority)
		case w.VLAN != nil && (*w.VLAN < 0 || *w.VLAN > 4095):
			return bad(k("vlan"), "must be a VID, 0 to 4095, is %d", *w.VLAN)
		}
		for _, p := range w.Priorities {
			if p < 0 || p > 7 {
				return bad(k("priorities"), "must be priorities 0 to 7, are %v", w.Priorities)
			}
		}
		for _, d := range w.DSCPs {
			if d < 1 || d > 63 {
				return bad(k("dscps"), "must be DSCPs 1 to 63 (0 is the NIC's own), are %v", w.DSCPs)
			}
		}
		if d := w.DCQCN; d != nil {
			dk := func(f string) toml.Key { return toml.Key{"rdma", strconv.Itoa(i), "dcqcn", f} }
			const max32 = 1<<32 - 1 // the NIC's registers
			for _, f := range []struct {
				key string
				v   uint64
			}{{"cnp_interval", d.CNPInterval}, {"alpha_period", d.AlphaPeriod}, {"increase_period", d.IncreasePeriod},
				{"byte_counter", d.ByteCounter}} {
				if f.v > max32 {
					return bad(dk(f.key), "must be 0 (the default) to 2^32-1, is %d", f.v)
				}
			}
			switch {
			case d.GShift < 0 || d.GShift > 16:
				return bad(dk("g_shift"), "must be 1 to 16, or 0 for the default 8, is %d", d.GShift)
			case d.FastRecovery < 0 || d.FastRecovery > 255:
				return bad(dk("fast_recovery"), "must be 1 to 255, or 0 for the default 5, is %d", d.FastRecovery)
			}
			for _, f := range []struct {
				key string
				v   float64
			}{{"additive_mbps", d.AdditiveMbps}, {"hyper_mbps", d.HyperMbps}, {"min_mbps", d.MinMbps}} {
				if !(f.v >= 0 && f.v <= 1e6) {
					return bad(dk(f.key), "must be 0 (the default) to 1,000,000 Mbit/s, is %g", f.v)
				}
			}
		}
		for _, n := range w.NICs {
			slots[n] += w.QPsOn(n)
			if slots[n] > nicQPs {
				return bad(k("qps"), "NIC %s would hold %d QPs with this workload's (%s, %d per connection), more than its QPS, %d",
					n, slots[n], w.Pattern, w.QPs, nicQPs)
			}
			// Congestion control is the NIC's, not a QP's: its workloads
			// must agree on it.
			j, ok := firstOf[n]
			switch {
			case !ok:
				firstOf[n] = i
			case !sameDCQCN(s.RDMA[j].DCQCN, w.DCQCN):
				return bad(k("dcqcn"), "NIC %s is in rdma.%d too, whose [rdma.dcqcn] differs: a NIC has one congestion control", n, j)
			case s.RDMA[j].CNPPriority != w.CNPPriority:
				return bad(k("cnp_priority"), "NIC %s is in rdma.%d too, whose cnp_priority is %d: a NIC sends its CNPs at one priority", n, j, s.RDMA[j].CNPPriority)
			}
		}
	}
	return nil
}

// nicQPs is the NIC's QP slots (rtl/nic README, QPS).
const nicQPs = 16

// The patterns of an [[rdma]] workload.
const (
	PatternPairs       = "pairs"       // nics[0]-nics[1], nics[2]-nics[3], ...; messages both ways
	PatternIncast      = "incast"      // every other NIC to nics[0] (N:1)
	PatternAllToAll    = "all-to-all"  // every two NICs; messages both ways
	PatternPermutation = "permutation" // each NIC to one other, a random derangement drawn from the seed
)

func validPattern(p string) bool {
	return p == PatternPairs || p == PatternIncast || p == PatternAllToAll || p == PatternPermutation
}

// Connection is a pair of the workload's NICs (indexes into NICs) joined
// by QPs QP pairs; messages go from A to B only, unless Both.
type Connection struct {
	A, B int
	Both bool
}

// Connections lists the workload's connections. A permutation's depend
// on the draw: perm[k] is the NIC k sends to (nil for other patterns).
func (w *RDMA) Connections(perm []int) []Connection {
	n := len(w.NICs)
	var c []Connection
	switch w.Pattern {
	case PatternIncast:
		for k := 1; k < n; k++ {
			c = append(c, Connection{A: k, B: 0})
		}
	case PatternAllToAll:
		for a := range n {
			for b := a + 1; b < n; b++ {
				c = append(c, Connection{A: a, B: b, Both: true})
			}
		}
	case PatternPermutation:
		for k, to := range perm {
			c = append(c, Connection{A: k, B: to})
		}
	default:
		for k := 0; k+1 < n; k += 2 {
			c = append(c, Connection{A: k, B: k + 1, Both: true})
		}
	}
	return c
}

// QPsOn is how many QP slots the workload takes on NIC nic (whatever a
// permutation draws: each NIC sends to one and hears from one).
func (w *RDMA) QPsOn(nic string) int {
	n := len(w.NICs)
	for k, m := range w.NICs {
		if m != nic {
			continue
		}
		switch w.Pattern {
		case PatternIncast:
			if k == 0 {
				return (n - 1) * w.QPs
			}
			return w.QPs
		case PatternAllToAll:
			return (n - 1) * w.QPs
		case PatternPermutation:
			return 2 * w.QPs
		default:
			return w.QPs
		}
	}
	return 0
}

func sameDCQCN(a, b *DCQCN) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func (s *Scenario) hasModel(name string) bool {
	for _, m := range s.Models {
		if m.Name == name {
			return true
		}
	}
	return false
}
