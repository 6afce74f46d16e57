// Package scenario reads the TOML files that describe a co-simulation run:
// the models (which RTL top, data width, parameters), the links between
// their ports (latency in cycles), the traffic sources, and the run length.
// Unknown keys and bad values are errors that name the file, line and key.
package scenario

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/harness/inputfile"
)

// Scenario is one run, as written in TOML.
type Scenario struct {
	Name     string    `toml:"name"`
	Seed     *uint64   `toml:"seed"`      // default 1; --seed overrides
	Cycles   uint64    `toml:"cycles"`    // stop after this many cycles at the latest
	DrainCap uint64    `toml:"drain"`     // cycles without any frame accepted or emitted before the run is called stalled (defaultDrain)
	ClockMHz float64   `toml:"clock_mhz"` // converts cycles to time in reports and pcapng
	Models   []Model   `toml:"model"`
	Links    []Link    `toml:"link"`
	Traffic  []Traffic `toml:"traffic"`
	Taps     []Tap     `toml:"tap"`    // TAP devices on model ports (tap.go)
	Bridge   Bridge    `toml:"bridge"` // live-session tuning (tap.go)
	RDMA     []RDMA    `toml:"rdma"`   // RC workloads between NIC models (rdma.go)

	File string `toml:"-"` // where it came from, for messages
	Text []byte `toml:"-"` // as given: KeyError locates keys in it
}

// KeyError is a problem found in the scenario after parsing, by what knows
// more than the parser (the engine knows a top's ports), located as the
// parser's own errors are: file, the line of key, key. key is dotted, with
// array indexes as numbers: "traffic.0.to".
func (s *Scenario) KeyError(key string, format string, args ...any) *Error {
	k := toml.Key(strings.Split(key, "."))
	return &Error{File: s.File, Line: keyLine(s.Text, k), Key: keyName(k), Msg: fmt.Sprintf(format, args...)}
}

// Model is one Verilated RTL top.
type Model struct {
	Name         string         `toml:"name"`
	Top          string         `toml:"top"` // RTL top, e.g. "icrc"; selects the binary and the golden model
	DataWidth    int            `toml:"data_width"`
	Params       map[string]int `toml:"params"`
	SrcGapPct    int            `toml:"src_gap_pct"`    // random idle cycles between input beats
	SinkStallPct int            `toml:"sink_stall_pct"` // random cycles the output holds tready low
	Remote       string         `toml:"remote"`         // host:port of a model started elsewhere
	// CSR sets configuration registers by name before traffic: the
	// writes take cycles 0, 1, ... in the order of the names (sorted).
	CSR map[string]int64 `toml:"csr"`
}

// Link joins an output port to an input port ("model.out0" -> "model.in0")
// with a latency in cycles.
type Link struct {
	From    string `toml:"from"`
	To      string `toml:"to"`
	Latency uint64 `toml:"latency"`
	// Faults, drawn from a generator seeded by the run seed and the link.
	LossPct    float64 `toml:"loss_pct"`    // frames dropped on the wire (counted as drops)
	CorruptPct float64 `toml:"corrupt_pct"` // frames with one byte after the Ethernet header damaged
	DupPct     float64 `toml:"dup_pct"`     // frames delivered twice, the copy right behind
	ReorderPct float64 `toml:"reorder_pct"` // frames held back reorder_cycles, so later ones overtake them
	// ReorderCycles is the extra delay of a reordered frame (default 4 *
	// latency); the engine's windows stay no longer than latency.
	ReorderCycles uint64 `toml:"reorder_cycles"`
}

// Traffic is a source of frames into one input port.
type Traffic struct {
	// Kind: "roce": random valid RoCEv2 frames; "pcap": replay a capture;
	// "l2": Ethernet frames between hosts behind the model's ports (a switch).
	Kind      string `toml:"kind"`
	To        string `toml:"to"` // "model.inN"
	Frames    int    `toml:"frames"`
	MinSize   int    `toml:"min_size"`
	MaxSize   int    `toml:"max_size"`
	GapCycles int    `toml:"gap_cycles"` // idle cycles between frames at the source
	Start     uint64 `toml:"start"`      // the cycle the first frame is offered (default 0)
	File      string `toml:"file"`       // pcap for kind "pcap"
	// WithICRC keeps the ICRC on "roce" frames (what a receiver sees);
	// without it they end before the ICRC (what an ICRC inserter takes).
	WithICRC   bool    `toml:"with_icrc"`
	CorruptPct float64 `toml:"corrupt_pct"` // share of frames with one byte after the Ethernet header damaged

	// Kind "l2": host h behind input port p has MAC 02:00:00:00:pp:hh;
	// each frame goes from a host of its port to a host of another port,
	// unless it is one of the shares below (percent of frames).
	Hosts        int     `toml:"hosts"`         // hosts per port (default 4)
	Burst        int     `toml:"burst"`         // frames back to back before gap_cycles (default 1)
	VLANPct      float64 `toml:"vlan_pct"`      // 802.1Q tagged, random PCP
	IPv4Pct      float64 `toml:"ipv4_pct"`      // IPv4 inside, random DSCP
	ECTPct       float64 `toml:"ect_pct"`       // of the IPv4 frames: ECN ECT(0)
	BroadcastPct float64 `toml:"broadcast_pct"` // to the broadcast or a multicast address
	UnknownPct   float64 `toml:"unknown_pct"`   // to a MAC no host has
	RuntPct      float64 `toml:"runt_pct"`      // 20 to 59 bytes
	OversizePct  float64 `toml:"oversize_pct"`  // max_size+1 to max_size+64 bytes
	BadPct       float64 `toml:"bad_pct"`       // tuser[0] set on the last beat
	// PFCPct: an 802.1Qbb PFC frame from the host, as its NIC would send
	// (framegen.WritePFC: random priorities, pause times of 0 to 1023
	// quanta, a quarter of them 0 to resume).
	PFCPct float64 `toml:"pfc_pct"`
	// ToPort sends every unicast frame to a host behind this port (incast);
	// -1 (the default) picks a random other port per frame.
	ToPort *int `toml:"to_port"`
	// ToMAC sends every unicast frame to this address ("02:4e:43:00:00:02",
	// say a NIC's: a second source of traffic into its switch port).
	ToMAC string `toml:"to_mac"`
	// PCP fixes the priority of tagged frames (default: random 0..7).
	PCP *int `toml:"pcp"`
	// PauseFrom makes the generator honour 802.1Qbb PFC like a host's NIC:
	// PFC frames leaving that output port ("model.outN") reach it
	// PauseLatency cycles after their last beat and pause its frames of
	// the priorities they name (a frame's priority is its PCP, 0 when
	// untagged). Frames of other priorities go on.
	PauseFrom    string `toml:"pause_from"`
	PauseLatency uint64 `toml:"pause_latency"`
}

// Error names the file, line and key of a scenario problem.
type Error struct {
	File string
	Line int // 0 when unknown
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": %s", e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// DefaultName is what messages call the built-in default scenario.
var DefaultName = builtinFile("default")

// Default returns the built-in default scenario.
func Default() (*Scenario, error) { return LoadBuiltin("default") }

// DefaultTOML returns the text of the built-in default scenario.
func DefaultTOML() []byte { t, _ := BuiltinTOML("default"); return t }

// Load reads and checks a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	// Files a scenario names are relative to the scenario, not to where
	// the command runs.
	for i := range s.Traffic {
		if f := s.Traffic[i].File; f != "" && !filepath.IsAbs(f) {
			s.Traffic[i].File = filepath.Join(filepath.Dir(path), f)
		}
	}
	return s, nil
}

// Parse decodes and checks a scenario; file names it in errors.
func Parse(file string, data []byte) (*Scenario, error) {
	s := &Scenario{File: file, Text: data}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(s)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// Count lines up to the offending byte: the library's line is one
			// late when that byte is the newline. Its offset is -1 for a bad
			// first byte.
			line := 1 + bytes.Count(data[:min(max(pe.Position.Start, 0), len(data))], []byte("\n"))
			key, msg := pe.LastKey, pe.Message
			if m := redefined.FindStringSubmatch(msg); m != nil {
				// The library names the key in its sentence and not in
				// LastKey when a table header clashes.
				key, msg = m[1], strings.ReplaceAll(redefinedMsg[m[2]], "{key}", m[1])
			}
			return nil, &Error{File: file, Line: line, Key: key, Msg: msg}
		}
		// Type mismatches come as plain errors that carry the line and key.
		if m := decodeErr.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			return nil, &Error{File: file, Line: line, Key: indexKey(data, strings.Split(m[2], "."), line), Msg: m[3]}
		}
		return nil, &Error{File: file, Msg: err.Error()}
	}
	if und := md.Undecoded(); len(und) > 0 {
		line := keyLine(data, und[0])
		return nil, &Error{File: file, Line: line, Key: indexKey(data, und[0], line), Msg: "unknown key"}
	}
	written := rdmaWritten(data)
	s.defaults(written)
	if err := s.check(data, written); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Scenario) defaults(rdma []map[string]any) {
	if s.ClockMHz == 0 {
		s.ClockMHz = 156.25
	}
	for i := range s.Models {
		if s.Models[i].DataWidth == 0 {
			s.Models[i].DataWidth = 64
		}
	}
	for i := range s.Links {
		// Only where latency + 4 x latency fits in a TOML integer: check
		// then names latency, the key written, rather than a wrapped sum.
		if l := &s.Links[i]; l.ReorderPct > 0 && l.ReorderCycles == 0 && l.Latency <= maxReorderLatency {
			l.ReorderCycles = 4 * l.Latency
		}
	}
	for i := range s.Traffic {
		t := &s.Traffic[i]
		if t.MinSize == 0 {
			t.MinSize = 60
		}
		if t.MaxSize == 0 {
			t.MaxSize = 1500
		}
		if t.Kind == "l2" && t.Hosts == 0 {
			t.Hosts = 4
		}
		if t.Kind == "l2" && t.Burst == 0 {
			t.Burst = 1
		}
	}
	s.tapDefaults()
	s.rdmaDefaults(rdma)
	if s.DrainCap == 0 {
		s.DrainCap = s.defaultDrain()
	}
}

// defaultDrain is the stall bound when the scenario sets none: 100,000
// cycles, or twice the longest a workload's QPs may stay silent on
// purpose, whichever is longer, plus the longest a frame may travel
// unseen. A requester whose last packet or its ACK was lost sends nothing
// until its local ACK timer expires, and one told RNR waits the
// responder's RNR timer; with timeout = 8 that is 1.05 ms, 164,000 cycles
// at 156.25 MHz, and the run is not stalled. Nor is it while a frame is on
// a link (latency, and reorder_cycles more if held back) or a PFC frame on
// its way to a paused source (pause_latency).
func (s *Scenario) defaultDrain() uint64 {
	drain := uint64(100_000)
	hz := uint64(s.ClockMHz * 1e6)
	for _, w := range s.RDMA {
		quiet := max(rc.TimeoutCycles(uint8(*w.Timeout), hz), rc.RNRCycles(uint8(w.MinRNRTimer), hz))
		drain = max(drain, 2*quiet)
	}
	var travel uint64
	for _, l := range s.Links {
		t := l.Latency
		if l.ReorderPct > 0 {
			t = satAdd(t, l.ReorderCycles)
		}
		travel = max(travel, t)
	}
	for _, t := range s.Traffic {
		travel = max(travel, t.PauseLatency)
	}
	return satAdd(drain, travel)
}

// satAdd is a + b, or the largest TOML integer where the sum would be
// larger: a bound on cycles, which check then rejects with the key the
// user wrote if it came from one.
func satAdd(a, b uint64) uint64 {
	if a > math.MaxInt64 || b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// Port resolves "model.inN" or "model.outN": dir is "in" or "out".
func (s *Scenario) port(ref, dir string) (model string, port int, err error) {
	m := portRef.FindStringSubmatch(ref)
	if m == nil || m[2] != dir {
		return "", 0, fmt.Errorf("%q is not a port reference of the form model.%s<N>", ref, dir)
	}
	n, err := strconv.Atoi(m[3])
	if err != nil || n > 1<<16 {
		return "", 0, fmt.Errorf("%q: port number out of range", ref)
	}
	for _, mod := range s.Models {
		if mod.Name == m[1] {
			return m[1], n, nil
		}
	}
	return "", 0, fmt.Errorf("%q names no model of this scenario", ref)
}

// Port resolves a checked port reference.
func (s *Scenario) Port(ref string) (model string, port int) {
	m := portRef.FindStringSubmatch(ref)
	n, _ := strconv.Atoi(m[3])
	return m[1], n
}

// lineScanner reads data line by line, however long a line: the default
// 64 KiB bound would stop at a long string and lose the line numbers.
func lineScanner(data []byte) *bufio.Scanner {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	return sc
}

// keyName renders a key path as written by users: link[0].latency.
func keyName(k toml.Key) string {
	var b strings.Builder
	for i, p := range k {
		if _, err := strconv.Atoi(p); err == nil {
			fmt.Fprintf(&b, "[%s]", p)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// indexKey names a key the TOML library reports without its array index
// (model.colour) with the index of the [[table]] entry that holds line:
// model[1].colour.
func indexKey(data []byte, key toml.Key, line int) string {
	if len(key) < 2 || line == 0 {
		return keyName(key)
	}
	if _, err := strconv.Atoi(key[1]); err == nil {
		return keyName(key) // already indexed
	}
	header := "[[" + key[0] + "]]"
	entry := -1
	sc := lineScanner(data)
	for n := 1; sc.Scan() && n <= line; n++ {
		t, _, _ := strings.Cut(strings.TrimSpace(sc.Text()), "#")
		if strings.TrimSpace(t) == header {
			entry++
		}
	}
	if entry < 0 {
		return keyName(key)
	}
	return keyName(append(toml.Key{key[0], strconv.Itoa(entry)}, key[1:]...))
}

// keyLine finds the line that defines key: the line of its last element
// inside the table (or array-of-tables entry) the key's prefix names. The
// TOML library keeps positions to itself, so this re-reads the text: good
// for the plain layout scenarios use; 0 when not found.
func keyLine(data []byte, key toml.Key) int {
	if len(key) == 0 {
		return 0
	}
	// Strip array indexes: model.2.name -> table "model", entry 2, key "name".
	var table []string
	entry := -1
	last := key[len(key)-1]
	for _, p := range key[:len(key)-1] {
		if n, err := strconv.Atoi(p); err == nil {
			entry = n
			continue
		}
		table = append(table, p)
	}
	want := strings.Join(table, ".")
	cur, seen := "", map[string]int{}
	sc := lineScanner(data)
	tableLine := 0
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(t, "[") {
			t, _, _ = strings.Cut(t, "#") // a comment after a table header
			t = strings.TrimSpace(t)
		}
		switch {
		case strings.HasPrefix(t, "[["):
			cur = strings.TrimSpace(strings.Trim(t, "[] "))
			seen[cur]++
		case strings.HasPrefix(t, "["):
			cur = strings.TrimSpace(strings.Trim(t, "[] "))
			seen[cur] = 1
		default:
			inTable := cur == want && (entry < 0 || seen[cur] == entry+1)
			name, _, ok := strings.Cut(t, "=")
			if inTable && ok && strings.Trim(strings.TrimSpace(name), `"`) == last {
				return line
			}
			continue
		}
		if cur == want && (entry < 0 || seen[cur] == entry+1) || cur == strings.Join(key, ".") {
			tableLine = line
		}
	}
	return tableLine
}
