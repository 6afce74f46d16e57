package scenario

// The checks of a parsed scenario: every value in range, every name and
// port resolvable, each error naming the file, line and key.

import (
	"fmt"
	"math"
	"net"
	"regexp"
	"strconv"

	"github.com/BurntSushi/toml"
)

// check validates values; data locates the offending key's line and rdma
// holds the keys each [[rdma]] table writes.
func (s *Scenario) check(data []byte, rdma []map[string]any) error {
	bad := func(key toml.Key, format string, args ...any) error {
		return &Error{File: s.File, Line: keyLine(data, key), Key: keyName(key), Msg: fmt.Sprintf(format, args...)}
	}
	// TOML integers are signed 64-bit: larger unsigned values were negative.
	const maxInt = math.MaxInt64
	if s.Cycles == 0 || s.Cycles > maxInt {
		return bad(toml.Key{"cycles"}, "must be set and above 0 (the run stops there at the latest)")
	}
	if s.DrainCap > maxInt {
		return bad(toml.Key{"drain"}, "must not be negative")
	}
	if s.Seed != nil && *s.Seed > maxInt {
		return bad(toml.Key{"seed"}, "must not be negative")
	}
	if !(s.ClockMHz > 0) || math.IsInf(s.ClockMHz, 0) {
		return bad(toml.Key{"clock_mhz"}, "must be a positive number, is %g", s.ClockMHz)
	}
	if len(s.Name) > MaxNameLen {
		return bad(toml.Key{"name"}, "must be at most %d bytes, is %d: it heads every pcapng file, whose header options hold at most 64 KiB", MaxNameLen, len(s.Name))
	}
	if len(s.Models) == 0 {
		return bad(toml.Key{"model"}, "at least one [[model]] is needed")
	}
	names := map[string]bool{}
	for i, m := range s.Models {
		k := func(f string) toml.Key { return toml.Key{"model", strconv.Itoa(i), f} }
		switch {
		case !validName.MatchString(m.Name):
			return bad(k("name"), "%q is not a valid model name (letters, digits, '_' and '-')", m.Name)
		case len(m.Name) > MaxModelNameLen:
			return bad(k("name"), "must be at most %d bytes, is %d: the model's Unix socket path (temporary directory, /cosim-NNNNNNNNNN/, name, .sock) must fit in 107 bytes", MaxModelNameLen, len(m.Name))
		case names[m.Name]:
			return bad(k("name"), "model %q is defined twice", m.Name)
		case m.Top == "":
			return bad(k("top"), "must name the RTL top")
		case m.DataWidth < 64 || m.DataWidth > 1024 || m.DataWidth%64 != 0:
			return bad(k("data_width"), "must be a multiple of 64 from 64 to 1024, is %d", m.DataWidth)
		case m.SrcGapPct < 0 || m.SrcGapPct > 99:
			return bad(k("src_gap_pct"), "must be 0 to 99, is %d", m.SrcGapPct)
		case m.SinkStallPct < 0 || m.SinkStallPct > 99:
			return bad(k("sink_stall_pct"), "must be 0 to 99, is %d", m.SinkStallPct)
		}
		if m.Remote != "" {
			if err := checkRemote(m.Remote); err != nil {
				return bad(k("remote"), "%v", err)
			}
		}
		names[m.Name] = true
	}
	for i, l := range s.Links {
		k := func(f string) toml.Key { return toml.Key{"link", strconv.Itoa(i), f} }
		if _, _, err := s.port(l.From, "out"); err != nil {
			return bad(k("from"), "%v", err)
		}
		if _, _, err := s.port(l.To, "in"); err != nil {
			return bad(k("to"), "%v", err)
		}
		if l.Latency < 1 || l.Latency > maxInt {
			return bad(k("latency"), "must be at least 1 cycle")
		}
		if !(l.LossPct >= 0 && l.LossPct <= 100) {
			return bad(k("loss_pct"), "must be 0 to 100, is %g", l.LossPct)
		}
		if !(l.CorruptPct >= 0 && l.CorruptPct <= 100) {
			return bad(k("corrupt_pct"), "must be 0 to 100, is %g", l.CorruptPct)
		}
		if !(l.DupPct >= 0 && l.DupPct <= 100) {
			return bad(k("dup_pct"), "must be 0 to 100, is %g", l.DupPct)
		}
		if !(l.ReorderPct >= 0 && l.ReorderPct <= 100) {
			return bad(k("reorder_pct"), "must be 0 to 100, is %g", l.ReorderPct)
		}
		if l.ReorderPct > 0 && l.ReorderCycles == 0 {
			return bad(k("latency"), "must be at most %d with reorder_pct and no reorder_cycles: the default reorder_cycles is 4 x latency, and a held frame arrives latency + reorder_cycles after it left", maxReorderLatency)
		}
		if l.ReorderCycles > maxInt {
			return bad(k("reorder_cycles"), "must not be negative")
		}
		if l.ReorderCycles > maxInt-l.Latency {
			return bad(k("reorder_cycles"), "latency + reorder_cycles must be at most %d (the cycle a held frame arrives), are %d + %d", uint64(maxInt), l.Latency, l.ReorderCycles)
		}
	}
	for i, t := range s.Traffic {
		k := func(f string) toml.Key { return toml.Key{"traffic", strconv.Itoa(i), f} }
		switch t.Kind {
		case "roce":
			if t.MinSize < 60 {
				return bad(k("min_size"), "must be at least 60 (the shortest Ethernet frame), is %d", t.MinSize)
			}
			if t.MaxSize > 9216 || t.MinSize > t.MaxSize {
				return bad(k("max_size"), "must lie between min_size (%d) and 9216, is %d", t.MinSize, t.MaxSize)
			}
		case "pcap":
			if t.File == "" {
				return bad(k("file"), "kind \"pcap\" needs a file")
			}
		case "l2":
			// Each bound blames the key that breaks it, so that the line
			// is the one written.
			if t.MinSize < 60 {
				return bad(k("min_size"), "min_size and max_size must lie within 60..9216, are %d and %d", t.MinSize, t.MaxSize)
			}
			if t.MaxSize > 9216 || t.MinSize > t.MaxSize {
				return bad(k("max_size"), "min_size and max_size must lie within 60..9216, are %d and %d", t.MinSize, t.MaxSize)
			}
			if t.Hosts < 1 || t.Hosts > 255 {
				return bad(k("hosts"), "hosts must be 1 to 255 and burst at least 1")
			}
			if t.Burst < 1 {
				return bad(k("burst"), "hosts must be 1 to 255 and burst at least 1")
			}
			if t.PauseFrom != "" {
				if _, _, err := s.port(t.PauseFrom, "out"); err != nil {
					return bad(k("pause_from"), "%v", err)
				}
				if t.PauseLatency < 1 || t.PauseLatency > maxInt {
					return bad(k("pause_latency"), "must be at least 1 cycle with pause_from")
				}
				if t.PFCPct > 0 {
					// A host's MAC control frames are never paused; a
					// pausable source holds every frame by its PCP.
					return bad(k("pfc_pct"), "pfc_pct and pause_from exclude each other")
				}
			}
			if t.ToPort != nil && *t.ToPort < 0 {
				return bad(k("to_port"), "must not be negative")
			}
			if t.ToMAC != "" {
				if mac, err := net.ParseMAC(t.ToMAC); err != nil || len(mac) != 6 || mac[0]&1 != 0 {
					return bad(k("to_mac"), "must be a unicast MAC address such as \"02:4e:43:00:00:02\", is %q", t.ToMAC)
				}
				if t.ToPort != nil {
					return bad(k("to_mac"), "to_mac and to_port exclude each other")
				}
			}
			if t.PCP != nil && (*t.PCP < 0 || *t.PCP > 7) {
				return bad(k("pcp"), "must be 0 to 7, is %d", *t.PCP)
			}
			for _, f := range []struct {
				key string
				v   float64
			}{{"vlan_pct", t.VLANPct}, {"ipv4_pct", t.IPv4Pct}, {"ect_pct", t.ECTPct}, {"broadcast_pct", t.BroadcastPct},
				{"unknown_pct", t.UnknownPct}, {"runt_pct", t.RuntPct}, {"oversize_pct", t.OversizePct}, {"bad_pct", t.BadPct},
				{"pfc_pct", t.PFCPct}} {
				if !(f.v >= 0 && f.v <= 100) {
					return bad(k(f.key), "must be 0 to 100, is %g", f.v)
				}
			}
		default:
			return bad(k("kind"), "unknown traffic kind %q (want \"roce\", \"pcap\" or \"l2\")", t.Kind)
		}
		if _, _, err := s.port(t.To, "in"); err != nil {
			return bad(k("to"), "%v", err)
		}
		if t.Start > maxInt {
			return bad(k("start"), "must not be negative")
		}
		if t.Frames < 0 {
			return bad(k("frames"), "frames and gap_cycles must not be negative")
		}
		if t.GapCycles < 0 {
			return bad(k("gap_cycles"), "frames and gap_cycles must not be negative")
		}
		if !(t.CorruptPct >= 0 && t.CorruptPct <= 100) {
			return bad(k("corrupt_pct"), "must be 0 to 100, is %g", t.CorruptPct)
		}
	}
	if err := s.checkRDMA(bad, rdma); err != nil {
		return err
	}
	return s.checkTaps(bad)
}

// maxReorderLatency is the longest link latency the default
// reorder_cycles (4 x latency) takes: latency + 4 x latency <= 2^63-1.
const maxReorderLatency = math.MaxInt64 / 5

// Name limits, so that a name too long fails here and not at run time.
const (
	// MaxNameLen bounds the scenario name: it goes into the section
	// header of every pcapng file with the seed and a link name.
	MaxNameLen = 1024
	// MaxModelNameLen bounds a model name: cosim.Start listens on
	// <temporary directory>/cosim-<up to 10 digits>/<name>.sock, and
	// sun_path holds 107 bytes; 64 leaves a temporary directory of 20.
	MaxModelNameLen = 64
)

// checkRemote checks a remote model's address: host:port, the port a
// number, as the engine dials it over TCP.
func checkRemote(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (such as \"127.0.0.1:7001\" or \"[::1]:7001\")", addr)
	}
	if host == "" {
		return fmt.Errorf("%q names no host (such as \"127.0.0.1:7001\")", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q: the port must be 1 to 65535, is %q", addr, port)
	}
	return nil
}

var (
	decodeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)
	// redefined matches the TOML library's messages for a key or table
	// written twice, or as a table and as an array of tables.
	redefined    = regexp.MustCompile(`^Key '([^']*)' (has already been defined|was already created and cannot be used as an array|was already created as a hash)\.$`)
	redefinedMsg = map[string]string{
		"has already been defined":                           "written twice",
		"was already created and cannot be used as an array": "already a table ([{key}]), so it cannot also be an array of tables ([[{key}]])",
		"was already created as a hash":                      "already a table, so it cannot also be a value",
	}
	validName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	portRef   = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*)\.(in|out)([0-9]+)$`)
)
