//go:build linux

package main

// The bad-input catalogue: one table of named cases, each a defect of the
// input or of a model, with the exit status, the first line of stderr and
// what is left in --out that it must produce. Inputs are made in the test
// from small builders, so that each case shows its one defect.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/pcapio"
)

// outWant is what a case must leave in --out.
type outWant int

const (
	outAny     outWant = iota // not checked (the command takes no --out)
	outNone                   // --out is not even created
	outFailed                 // summary.json with pass false and an error
	outCapture                // that, and at least one link pcapng
)

type catCase struct {
	name string
	// files are written into the case's directory before it runs; a
	// value of nil bytes is a marker handled by setup instead.
	files map[string][]byte
	setup func(t *testing.T, dir string)
	// args: $D is the case's directory, $OUT its --out, $M the models.
	args []string
	code int
	// first is the first line of stderr: a prefix, or a regexp if it
	// starts with "~".
	first string
	out   outWant
	skip  string
	// check, if set, looks further at the case's directory ($D) and the
	// whole of stderr.
	check func(t *testing.T, dir, stderr string)
}

// catBase is a valid scenario on two axis_fifo models; its numbered lines
// let a case set any one (blank lines are room inside the table above).
var catBase = []string{
	1:  `name = "cat"`,
	2:  `cycles = 20000`,
	3:  ``,
	4:  `[[model]]`,
	5:  `name = "a"`,
	6:  `top = "axis_fifo"`,
	7:  ``,
	8:  `[[model]]`,
	9:  `name = "b"`,
	10: `top = "axis_fifo"`,
	11: ``,
	12: `[[link]]`,
	13: `from = "a.out0"`,
	14: `to = "b.in0"`,
	15: `latency = 2`,
	16: ``,
	17: `[[traffic]]`,
	18: `kind = "roce"`,
	19: `to = "a.in0"`,
	20: `frames = 10`,
	21: ``,
	22: ``,
}

// catEdit is catBase with lines set; lines past the end are appended.
func catEdit(set map[int]string) []byte {
	lines := append([]string(nil), catBase[1:]...)
	for n, l := range set {
		for len(lines) < n {
			lines = append(lines, "")
		}
		lines[n-1] = l
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// scen is a case of a scenario rejected by the parser: exit 2, FILE:LINE:
// KEY: MSG (line 0 has no line), nothing run, no --out.
func scen(name string, set map[int]string, line int, key, msg string) catCase {
	return scenText(name, catEdit(set), line, key, msg)
}

func scenText(name string, text []byte, line int, key, msg string) catCase {
	loc := "$D/s.toml"
	if line > 0 {
		loc += fmt.Sprintf(":%d", line)
	}
	return catCase{name: name, files: map[string][]byte{"s.toml": text},
		args: []string{"run", "$D/s.toml", "--out", "$OUT", "--models", "$M"},
		code: 2, first: "cosim: run: " + loc + ": " + key + ": " + msg, out: outNone}
}

// Lines of the extra tables, appended at line 23 on.
const (
	rdmaNICs = `name = "cat"
cycles = 20000

[[model]]
name = "n0"
top = "nic"

[[model]]
name = "n1"
top = "nic"

[[link]]
from = "n0.out0"
to = "n1.in0"
latency = 10

[[link]]
from = "n1.out0"
to = "n0.in0"
latency = 10

[[rdma]]
nics = ["n0", "n1"]
messages = 4
`
)

// rdma is a case of an [[rdma]] key: line 25 on is the rest of the table.
func rdma(name string, extra string, line int, key, msg string) catCase {
	return scenText(name, []byte(rdmaNICs+extra+"\n"), line, key, msg)
}

func catalogue(t *testing.T) []catCase {
	var cs []catCase
	add := func(c ...catCase) { cs = append(cs, c...) }
	usage := func(name string, code int, first string, args ...string) catCase {
		return catCase{name: name, args: args, code: code, first: first}
	}
	run := func(extra ...string) []string {
		return append([]string{"run", "$D/s.toml", "--out", "$OUT", "--models", "$M"}, extra...)
	}
	good := map[string][]byte{"s.toml": catEdit(nil)}

	// CLI usage.
	add(
		usage("cli/no command", 2, "usage: cosim <command>"),
		usage("cli/unknown command", 2, "usage: cosim <command>", "frobnicate"),
		usage("cli/run unknown flag", 2, "flag provided but not defined: -bogus", "run", "--bogus"),
		usage("cli/bridge unknown flag", 2, "flag provided but not defined: -bogus", "bridge", "--bogus"),
		usage("cli/check unknown flag", 2, "flag provided but not defined: -bogus", "check", "--bogus", "x.pcap"),
		usage("cli/selftest unknown flag", 2, "flag provided but not defined: -bogus", "selftest", "--bogus"),
		usage("cli/tap-demo unknown flag", 2, "flag provided but not defined: -bogus", "tap-demo", "--bogus"),
		usage("cli/version with an argument", 2, "cosim: version", "version", "extra"),
		usage("cli/check without files", 2, "usage: cosim check", "check"),
		usage("cli/model without build", 2, "usage: cosim model build", "model"),
		usage("cli/model build without top", 2, "usage: cosim model build", "model", "build", "--src", "rtl"),
		usage("cli/model build width abc", 2, `invalid value "abc" for flag -width`, "model", "build", "--width", "abc"),
		usage("cli/selftest with an argument", 2, `cosim: selftest: unexpected argument "extra"`, "selftest", "extra"),
		usage("cli/selftest seed abc", 2, `invalid value "abc" for flag -seed`, "selftest", "--seed", "abc"),
		usage("cli/tap-demo width abc", 2, `invalid value "abc" for flag -width`, "tap-demo", "--width", "abc"),
	)
	for _, c := range []struct {
		name, first string
		args        []string
	}{
		{"run seed -1", `invalid value "-1" for flag -seed`, []string{"--seed", "-1"}},
		{"run seed abc", `invalid value "abc" for flag -seed`, []string{"--seed", "abc"}},
		{"run seed beyond 64 bits", `invalid value "18446744073709551616" for flag -seed`, []string{"--seed", "18446744073709551616"}},
		{"run step-timeout bad", `invalid value "soon" for flag -step-timeout`, []string{"--step-timeout", "soon"}},
		{"run step-timeout without unit", `invalid value "5" for flag -step-timeout`, []string{"--step-timeout", "5"}},
		{"run seed without value", "flag needs an argument: -seed", []string{"--seed"}},
		{"run out without value", "flag needs an argument: -out", []string{"--out"}},
		{"run models without value", "flag needs an argument: -models", []string{"--models"}},
		{"run replay without value", "flag needs an argument: -replay", []string{"--replay"}},
		{"run trace with a value", `invalid boolean value "maybe" for -trace`, []string{"--trace=maybe"}},
	} {
		add(catCase{name: "cli/" + c.name, files: good, args: append([]string{"run", "$D/s.toml"}, c.args...), code: 2, first: c.first, out: outAny})
	}
	add(
		catCase{name: "cli/run two scenarios", files: good, args: []string{"run", "$D/s.toml", "$D/s.toml", "--out", "$OUT"},
			code: 2, first: "cosim: run: one scenario at a time, got 2", out: outNone},
		catCase{name: "cli/bridge two scenarios", files: good, args: []string{"bridge", "$D/s.toml", "$D/s.toml", "--out", "$OUT"},
			code: 2, first: "cosim: bridge: one scenario at a time, got 2", out: outNone},
		usage("cli/bridge seed abc", 2, `invalid value "abc" for flag -seed`, "bridge", "--seed", "abc"),
		usage("cli/check json with a value", 2, `invalid boolean value "yes" for -json`, "check", "--json=yes", "x.pcap"),
	)

	// Scenario files: syntax.
	add(
		scen("scenario/syntax double equals", map[int]string{2: `cycles = = 1000`}, 2, "cycles", "expected value"),
		scen("scenario/syntax unterminated string", map[int]string{19: `to = "a.in0`}, 19, "traffic.to", "strings cannot contain newlines"),
		scen("scenario/syntax key defined twice", map[int]string{3: `cycles = 5`}, 3, "cycles", "written twice"),
		scen("scenario/syntax two values", map[int]string{14: `to = "b.in0" "c.in0"`}, 14, "link", "expected"),
		scen("scenario/syntax unclosed table header", map[int]string{12: `[[link`}, 12, "model", "expected '.' or ']' to end table name"),
		scen("scenario/syntax bare word value", map[int]string{1: `name = cat`}, 1, "name", "expected value"),
	)
	// Unknown keys at each level.
	add(
		scen("scenario/unknown top-level key", map[int]string{3: `bogus = 1`}, 3, "bogus", "unknown key"),
		scen("scenario/unknown model key", map[int]string{7: `colour = "red"`}, 7, "model[0].colour", "unknown key"),
		scen("scenario/unknown key in second model", map[int]string{11: `colour = "red"`}, 11, "model[1].colour", "unknown key"),
		scen("scenario/unknown link key", map[int]string{16: `jitter = 3`}, 16, "link[0].jitter", "unknown key"),
		scen("scenario/unknown traffic key", map[int]string{21: `speed = 3`}, 21, "traffic[0].speed", "unknown key"),
		scen("scenario/unknown tap key", map[int]string{23: "[[tap]]", 24: `name = "h"`, 25: `in = "b.in1"`, 26: `colour = 1`}, 26, "tap[0].colour", "unknown key"),
		scen("scenario/unknown bridge key", map[int]string{23: "[bridge]", 24: `speed = 1`}, 24, "bridge.speed", "unknown key"),
		rdma("scenario/unknown rdma key", "colour = 1", 25, "rdma[0].colour", "unknown key"),
		rdma("scenario/unknown dcqcn key", "[rdma.dcqcn]\ncolour = 1", 26, "rdma[0].dcqcn.colour", "unknown key"),
		scen("scenario/unknown table", map[int]string{23: "[engine]", 24: `fast = true`}, 23, "engine", "unknown key"),
	)
	// Wrong types.
	add(
		scen("scenario/type cycles string", map[int]string{2: `cycles = "many"`}, 2, "cycles", "incompatible types"),
		scen("scenario/type name number", map[int]string{1: `name = 7`}, 1, "name", "incompatible types"),
		scen("scenario/type data_width string", map[int]string{7: `data_width = "x"`}, 7, "model[0].data_width", "incompatible types"),
		scen("scenario/type param string", map[int]string{7: `params = { depth = "deep" }`}, 7, "model[0].params.depth", "incompatible types"),
		scen("scenario/type latency float", map[int]string{15: `latency = 2.5`}, 15, "link[0].latency", "incompatible types"),
		scen("scenario/type loss_pct string", map[int]string{16: `loss_pct = "1"`}, 16, "link[0].loss_pct", "incompatible types"),
		scen("scenario/type frames bool", map[int]string{20: `frames = true`}, 20, "traffic[0].frames", "incompatible types"),
		scen("scenario/type with_icrc number", map[int]string{21: `with_icrc = 1`}, 21, "traffic[0].with_icrc", "incompatible types"),
		scen("scenario/type model is a table", map[int]string{4: `[model]`}, 8, "model", "already a table ([model]), so it cannot also be an array of tables ([[model]])"),
		scen("scenario/type tap mtu string", map[int]string{23: "[[tap]]", 24: `name = "h"`, 25: `in = "b.in1"`, 26: `mtu = "big"`}, 26, "tap[0].mtu", "incompatible types"),
		rdma("scenario/type rdma nics string", "", 0, "", ""),
	)
	cs[len(cs)-1] = scenText("scenario/type rdma nics string", []byte(strings.Replace(rdmaNICs, `nics = ["n0", "n1"]`, `nics = "n0"`, 1)), 23, "rdma[0].nics", "incompatible types")
	// Top level and models: every numeric key out of range.
	add(
		scen("scenario/missing cycles", map[int]string{2: ``}, 0, "cycles", "must be set"),
		scen("scenario/cycles 0", map[int]string{2: `cycles = 0`}, 2, "cycles", "must be set"),
		scen("scenario/cycles -1", map[int]string{2: `cycles = -1`}, 2, "cycles", "must be set"),
		scen("scenario/drain -1", map[int]string{3: `drain = -1`}, 3, "drain", "must not be negative"),
		scen("scenario/seed -1", map[int]string{3: `seed = -1`}, 3, "seed", "must not be negative"),
		scen("scenario/clock_mhz negative", map[int]string{3: `clock_mhz = -100.0`}, 3, "clock_mhz", "must be a positive number, is -100"),
		scen("scenario/clock_mhz nan", map[int]string{3: `clock_mhz = nan`}, 3, "clock_mhz", "must be a positive number, is NaN"),
		scen("scenario/clock_mhz inf", map[int]string{3: `clock_mhz = inf`}, 3, "clock_mhz", "must be a positive number, is +Inf"),
		scen("scenario/name too long", map[int]string{1: `name = "` + strings.Repeat("n", 1025) + `"`}, 1, "name", "must be at most 1024 bytes, is 1025"),
		scenText("scenario/no model", []byte("cycles = 10\n"), 0, "model", "at least one [[model]] is needed"),
		scen("scenario/duplicate model name", map[int]string{9: `name = "a"`}, 9, "model[1].name", `model "a" is defined twice`),
		scen("scenario/model name with a dot", map[int]string{5: `name = "a.b"`}, 5, "model[0].name", `"a.b" is not a valid model name`),
		scen("scenario/model name with a slash", map[int]string{5: `name = "a/b"`}, 5, "model[0].name", `"a/b" is not a valid model name`),
		scen("scenario/model name with a space", map[int]string{5: `name = "a b"`}, 5, "model[0].name", `"a b" is not a valid model name`),
		scen("scenario/model name starting with a digit", map[int]string{9: `name = "2b"`}, 9, "model[1].name", `"2b" is not a valid model name`),
		scen("scenario/model without name", map[int]string{5: ``}, 4, "model[0].name", `"" is not a valid model name`),
		scen("scenario/model name too long", map[int]string{9: `name = "` + strings.Repeat("m", 65) + `"`}, 9, "model[1].name", "must be at most 64 bytes, is 65"),
		scen("scenario/model without top", map[int]string{10: ``}, 8, "model[1].top", "must name the RTL top"),
		scen("scenario/data_width 100", map[int]string{7: `data_width = 100`}, 7, "model[0].data_width", "must be a multiple of 64 from 64 to 1024, is 100"),
		scen("scenario/data_width 2048", map[int]string{7: `data_width = 2048`}, 7, "model[0].data_width", "must be a multiple of 64 from 64 to 1024, is 2048"),
		scen("scenario/data_width negative", map[int]string{7: `data_width = -64`}, 7, "model[0].data_width", "must be a multiple of 64 from 64 to 1024, is -64"),
		scen("scenario/src_gap_pct 100", map[int]string{7: `src_gap_pct = 100`}, 7, "model[0].src_gap_pct", "must be 0 to 99, is 100"),
		scen("scenario/src_gap_pct -1", map[int]string{7: `src_gap_pct = -1`}, 7, "model[0].src_gap_pct", "must be 0 to 99, is -1"),
		scen("scenario/sink_stall_pct 150", map[int]string{11: `sink_stall_pct = 150`}, 11, "model[1].sink_stall_pct", "must be 0 to 99, is 150"),
		scen("scenario/remote without port", map[int]string{11: `remote = "sim-host"`}, 11, "model[1].remote", `"sim-host" is not host:port`),
		scen("scenario/remote port 0", map[int]string{7: `remote = "sim-host:0"`}, 7, "model[0].remote", `"sim-host:0": the port must be 1 to 65535`),
		scen("scenario/remote port 99999", map[int]string{7: `remote = "sim-host:99999"`}, 7, "model[0].remote", `"sim-host:99999": the port must be 1 to 65535`),
		scen("scenario/remote port by name", map[int]string{7: `remote = "sim-host:http"`}, 7, "model[0].remote", `"sim-host:http": the port must be 1 to 65535`),
		scen("scenario/remote without host", map[int]string{7: `remote = ":7001"`}, 7, "model[0].remote", `":7001" names no host`),
		scen("scenario/remote IPv6 without brackets", map[int]string{7: `remote = "::1:7001"`}, 7, "model[0].remote", `"::1:7001" is not host:port`),
		scen("scenario/unknown top", map[int]string{6: `top = "no_such_top"`}, 0, "", ""),
	)
	cs[len(cs)-1] = catCase{name: "scenario/unknown top", files: map[string][]byte{"s.toml": catEdit(map[int]string{6: `top = "no_such_top"`})},
		args: run(), code: 2, first: `cosim: run: $D/s.toml: model a: unknown RTL top "no_such_top"`, out: outFailed}
	// Links.
	add(
		scen("scenario/link latency 0", map[int]string{15: `latency = 0`}, 15, "link[0].latency", "must be at least 1 cycle"),
		scen("scenario/link latency missing", map[int]string{15: ``}, 12, "link[0].latency", "must be at least 1 cycle"),
		scen("scenario/link latency -1", map[int]string{15: `latency = -1`}, 15, "link[0].latency", "must be at least 1 cycle"),
		scen("scenario/link to a missing model", map[int]string{14: `to = "nomodel.in0"`}, 14, "link[0].to", `"nomodel.in0" names no model`),
		scen("scenario/link from a missing model", map[int]string{13: `from = "z.out0"`}, 13, "link[0].from", `"z.out0" names no model`),
		scen("scenario/link from an input", map[int]string{13: `from = "a.in0"`}, 13, "link[0].from", `"a.in0" is not a port reference of the form model.out<N>`),
		scen("scenario/link to an output", map[int]string{14: `to = "b.out0"`}, 14, "link[0].to", `"b.out0" is not a port reference of the form model.in<N>`),
		scen("scenario/link from garbage", map[int]string{13: `from = "a"`}, 13, "link[0].from", `"a" is not a port reference`),
		scen("scenario/link port number huge", map[int]string{14: `to = "b.in99999999999999999999"`}, 14, "link[0].to", `"b.in99999999999999999999": port number out of range`),
		scen("scenario/link loss_pct 101", map[int]string{16: `loss_pct = 101.0`}, 16, "link[0].loss_pct", "must be 0 to 100, is 101"),
		scen("scenario/link loss_pct nan", map[int]string{16: `loss_pct = nan`}, 16, "link[0].loss_pct", "must be 0 to 100, is NaN"),
		scen("scenario/link corrupt_pct -1", map[int]string{16: `corrupt_pct = -1.0`}, 16, "link[0].corrupt_pct", "must be 0 to 100, is -1"),
		scen("scenario/link dup_pct 200", map[int]string{16: `dup_pct = 200.0`}, 16, "link[0].dup_pct", "must be 0 to 100, is 200"),
		scen("scenario/link reorder_pct -5", map[int]string{16: `reorder_pct = -5.0`}, 16, "link[0].reorder_pct", "must be 0 to 100, is -5"),
		scen("scenario/link reorder_cycles -1", map[int]string{16: "reorder_pct = 1.0\nreorder_cycles = -1"}, 17, "link[0].reorder_cycles", "must not be negative"),
		scen("scenario/link latency whose reorder default overflows", map[int]string{15: `latency = 9223372036854775807`, 16: `reorder_pct = 1.0`}, 15, "link[0].latency", "must be at most 1844674407370955161"),
		scen("scenario/link latency + reorder_cycles overflows", map[int]string{16: "reorder_pct = 1.0\nreorder_cycles = 9223372036854775807"}, 17, "link[0].reorder_cycles", "latency + reorder_cycles must be at most"),
	)
	// Traffic of each kind.
	add(
		scen("scenario/traffic kind bogus", map[int]string{18: `kind = "bogus"`}, 18, "traffic[0].kind", `unknown traffic kind "bogus"`),
		scen("scenario/traffic without kind", map[int]string{18: ``}, 17, "traffic[0].kind", `unknown traffic kind ""`),
		scen("scenario/traffic to an out port", map[int]string{19: `to = "a.out0"`}, 19, "traffic[0].to", `"a.out0" is not a port reference of the form model.in<N>`),
		scen("scenario/traffic to a missing model", map[int]string{19: `to = "z.in0"`}, 19, "traffic[0].to", `"z.in0" names no model`),
		scen("scenario/roce min_size 30", map[int]string{21: `min_size = 30`}, 21, "traffic[0].min_size", "must be at least 60"),
		scen("scenario/roce max_size 9217", map[int]string{21: `max_size = 9217`}, 21, "traffic[0].max_size", "must lie between min_size (60) and 9216, is 9217"),
		scen("scenario/roce min_size above max_size", map[int]string{21: `min_size = 1000`, 22: `max_size = 500`}, 22, "traffic[0].max_size", "must lie between min_size (1000) and 9216, is 500"),
		scen("scenario/roce frames -1", map[int]string{20: `frames = -1`}, 20, "traffic[0].frames", "frames and gap_cycles must not be negative"),
		scen("scenario/roce gap_cycles -1", map[int]string{21: `gap_cycles = -1`}, 21, "traffic[0].gap_cycles", "frames and gap_cycles must not be negative"),
		scen("scenario/roce start -1", map[int]string{21: `start = -1`}, 21, "traffic[0].start", "must not be negative"),
		scen("scenario/roce corrupt_pct 101", map[int]string{21: `corrupt_pct = 101.0`}, 21, "traffic[0].corrupt_pct", "must be 0 to 100, is 101"),
		scen("scenario/pcap without file", map[int]string{18: `kind = "pcap"`}, 17, "traffic[0].file", `kind "pcap" needs a file`),
	)
	l2 := func(name, key, msg string) catCase {
		return scen("scenario/l2 "+name, map[int]string{23: "[[traffic]]", 24: `kind = "l2"`, 25: `to = "b.in0"`, 26: `frames = 4`, 27: key}, 27, "traffic[1]."+strings.SplitN(msg, "|", 2)[0], strings.SplitN(msg, "|", 2)[1])
	}
	// The l2 table is four lines from 23: its next key is on line 27.
	add(
		l2("min_size 59", `min_size = 59`, "min_size|min_size and max_size must lie within 60..9216, are 59 and"),
		l2("max_size 9300", `max_size = 9300`, "max_size|min_size and max_size must lie within 60..9216, are 60 and 9300"),
		l2("hosts -1", `hosts = -1`, "hosts|hosts must be 1 to 255 and burst at least 1"),
		l2("hosts 256", `hosts = 256`, "hosts|hosts must be 1 to 255 and burst at least 1"),
		l2("burst -1", `burst = -1`, "burst|hosts must be 1 to 255 and burst at least 1"),
		l2("pause_from an input", `pause_from = "a.in0"`, `pause_from|"a.in0" is not a port reference of the form model.out<N>`),
		l2("pause_from without latency", `pause_from = "a.out0"`, "pause_latency|must be at least 1 cycle with pause_from"),
	)
	cs[len(cs)-1] = scen("scenario/l2 pause_from without latency", map[int]string{23: "[[traffic]]", 24: `kind = "l2"`, 25: `to = "b.in0"`, 26: `frames = 4`, 27: `pause_from = "a.out0"`}, 23, "traffic[1].pause_latency", "must be at least 1 cycle with pause_from")
	add(
		scen("scenario/l2 pause_from with pfc_pct", map[int]string{23: "[[traffic]]", 24: `kind = "l2"`, 25: `to = "b.in0"`, 26: `frames = 4`, 27: "pause_from = \"a.out0\"\npause_latency = 5\npfc_pct = 1.0"}, 29, "traffic[1].pfc_pct", "pfc_pct and pause_from exclude each other"),
		l2("to_port -1", `to_port = -1`, "to_port|must not be negative"),
		l2("to_mac garbage", `to_mac = "nope"`, `to_mac|must be a unicast MAC address such as "02:4e:43:00:00:02", is "nope"`),
		l2("to_mac multicast", `to_mac = "01:00:5e:00:00:01"`, "to_mac|must be a unicast MAC address"),
		l2("to_mac with to_port", "to_mac = \"02:4e:43:00:00:02\"\nto_port = 1", "to_mac|to_mac and to_port exclude each other"),
		l2("pcp 8", `pcp = 8`, "pcp|must be 0 to 7, is 8"),
		l2("vlan_pct 101", `vlan_pct = 101.0`, "vlan_pct|must be 0 to 100, is 101"),
		l2("ipv4_pct -1", `ipv4_pct = -1.0`, "ipv4_pct|must be 0 to 100, is -1"),
		l2("ect_pct nan", `ect_pct = nan`, "ect_pct|must be 0 to 100, is NaN"),
		l2("broadcast_pct 150", `broadcast_pct = 150.0`, "broadcast_pct|must be 0 to 100, is 150"),
		l2("unknown_pct 150", `unknown_pct = 150.0`, "unknown_pct|must be 0 to 100, is 150"),
		l2("runt_pct 150", `runt_pct = 150.0`, "runt_pct|must be 0 to 100, is 150"),
		l2("oversize_pct 150", `oversize_pct = 150.0`, "oversize_pct|must be 0 to 100, is 150"),
		l2("bad_pct 150", `bad_pct = 150.0`, "bad_pct|must be 0 to 100, is 150"),
		l2("pfc_pct 150", `pfc_pct = 150.0`, "pfc_pct|must be 0 to 100, is 150"),
	)
	// [[rdma]] and [rdma.dcqcn]: the table's extra keys start at line 25.
	add(
		scenText("scenario/rdma one nic", []byte(strings.Replace(rdmaNICs, `nics = ["n0", "n1"]`, `nics = ["n0"]`, 1)), 23, "rdma[0].nics", `must name at least two NIC models, is ["n0"]`),
		scenText("scenario/rdma the same nic twice", []byte(strings.Replace(rdmaNICs, `nics = ["n0", "n1"]`, `nics = ["n0", "n0"]`, 1)), 23, "rdma[0].nics", `names "n0" twice`),
		scenText("scenario/rdma unknown nic", []byte(strings.Replace(rdmaNICs, `nics = ["n0", "n1"]`, `nics = ["n0", "n9"]`, 1)), 23, "rdma[0].nics", `"n9" names no model of this scenario`),
		scenText("scenario/rdma nic over its QPs in two workloads", []byte(rdmaNICs+"\n[[rdma]]\nnics = [\"n1\", \"n0\"]\nmessages = 1\nqps = 13\n"), 29, "rdma[1].qps", `NIC n1 would hold 17 QPs`),
		scenText("scenario/rdma unknown pattern", []byte(strings.Replace(rdmaNICs, `nics = ["n0", "n1"]`, "nics = [\"n0\", \"n1\"]\npattern = \"star\"", 1)), 24, "rdma[0].pattern", `must be "pairs", "incast", "all-to-all" or "permutation", is "star"`),
		scenText("scenario/rdma without messages", []byte(strings.Replace(rdmaNICs, "messages = 4\n", "", 1)), 22, "rdma[0].messages", "must be set"),
		rdma("scenario/rdma messages 0", "", 0, "", ""),
		rdma("scenario/rdma qps 0", "qps = 0", 25, "rdma[0].qps", "must be 1 to 16 (the NIC's QPS), is 0"),
		rdma("scenario/rdma qps 17", "qps = 17", 25, "rdma[0].qps", "must be 1 to 16 (the NIC's QPS), is 17"),
		rdma("scenario/rdma percentages not adding up", "send_pct = 50.0\nwrite_pct = 10.0\nread_pct = 10.0", 25, "rdma[0].send_pct", "send_pct, write_pct and read_pct must be 0 to 100 and add up to 100"),
		rdma("scenario/rdma imm_pct 101", "imm_pct = 101.0", 25, "rdma[0].imm_pct", "must be 0 to 100, is 101"),
		rdma("scenario/rdma max_size beyond 1 MiB", "max_size = 1048577", 25, "rdma[0].max_size", "min_size and max_size must lie within 0..1048576"),
		rdma("scenario/rdma min_size above max_size", "min_size = 100\nmax_size = 10", 26, "rdma[0].max_size", "min_size and max_size must lie within 0..1048576, are 100 and 10"),
		rdma("scenario/rdma pmtu 1500", "pmtu = 1500", 25, "rdma[0].pmtu", "must be 256, 512, 1024, 2048 or 4096, is 1500"),
		rdma("scenario/rdma outstanding 33", "outstanding = 33", 25, "rdma[0].outstanding", "must be 1 to 32"),
		rdma("scenario/rdma host_latency beyond 2^32", "host_latency = 4294967297", 25, "rdma[0].host_latency", "must be 1 to 2^32 cycles"),
		rdma("scenario/rdma timeout 32", "timeout = 32", 25, "rdma[0].timeout", "must be 0 to 31 (0: no local ACK timeout), is 32"),
		rdma("scenario/rdma retry 8", "retry = 8", 25, "rdma[0].retry", "must be 0 to 7, is 8"),
		rdma("scenario/rdma rnr_retry -1", "rnr_retry = -1", 25, "rdma[0].rnr_retry", "must be 0 to 7 (7: no limit), is -1"),
		rdma("scenario/rdma min_rnr_timer 32", "min_rnr_timer = 32", 25, "rdma[0].min_rnr_timer", "must be 1 to 31, or 0 for 655.36 ms, is 32"),
		rdma("scenario/dcqcn cnp_interval beyond 2^32", "[rdma.dcqcn]\ncnp_interval = 4294967296", 26, "rdma[0].dcqcn.cnp_interval", "must be 0 (the default) to 2^32-1, is 4294967296"),
		rdma("scenario/dcqcn alpha_period beyond 2^32", "[rdma.dcqcn]\nalpha_period = 4294967296", 26, "rdma[0].dcqcn.alpha_period", "must be 0 (the default) to 2^32-1"),
		rdma("scenario/dcqcn increase_period beyond 2^32", "[rdma.dcqcn]\nincrease_period = 4294967296", 26, "rdma[0].dcqcn.increase_period", "must be 0 (the default) to 2^32-1"),
		rdma("scenario/dcqcn byte_counter beyond 2^32", "[rdma.dcqcn]\nbyte_counter = 4294967296", 26, "rdma[0].dcqcn.byte_counter", "must be 0 (the default) to 2^32-1"),
		rdma("scenario/dcqcn g_shift 17", "[rdma.dcqcn]\ng_shift = 17", 26, "rdma[0].dcqcn.g_shift", "must be 1 to 16, or 0 for the default 8, is 17"),
		rdma("scenario/dcqcn fast_recovery 256", "[rdma.dcqcn]\nfast_recovery = 256", 26, "rdma[0].dcqcn.fast_recovery", "must be 1 to 255, or 0 for the default 5, is 256"),
		rdma("scenario/dcqcn additive_mbps negative", "[rdma.dcqcn]\nadditive_mbps = -1.0", 26, "rdma[0].dcqcn.additive_mbps", "must be 0 (the default) to 1,000,000 Mbit/s, is -1"),
		rdma("scenario/dcqcn hyper_mbps too fast", "[rdma.dcqcn]\nhyper_mbps = 2e6", 26, "rdma[0].dcqcn.hyper_mbps", "must be 0 (the default) to 1,000,000 Mbit/s, is 2e+06"),
		rdma("scenario/dcqcn min_mbps nan", "[rdma.dcqcn]\nmin_mbps = nan", 26, "rdma[0].dcqcn.min_mbps", "must be 0 (the default) to 1,000,000 Mbit/s, is NaN"),
	)
	for i := range cs {
		if cs[i].name == "scenario/rdma messages 0" {
			cs[i] = scenText("scenario/rdma messages 0", []byte(strings.Replace(rdmaNICs, "messages = 4", "messages = 0", 1)), 24, "rdma[0].messages", "must be at least 1 (an empty workload is not run), is 0")
		}
	}
	// [[tap]] and [bridge]: the tap table is three lines from 23.
	tap := func(name string, set map[int]string, line int, key, msg string) catCase {
		s := map[int]string{23: "[[tap]]", 24: `name = "h1"`, 25: `in = "b.in1"`}
		for k, v := range set {
			s[k] = v
		}
		return scen("scenario/tap "+name, s, line, key, msg)
	}
	add(
		tap("name with a dot", map[int]string{24: `name = "h.1"`}, 24, "tap[0].name", `"h.1" is not a valid tap name`),
		tap("name of a model", map[int]string{24: `name = "a"`}, 24, "tap[0].name", `"a" is already the name of a model or another tap`),
		tap("device too long", map[int]string{26: `device = "abcdefghijklmnop"`}, 26, "tap[0].device", `"abcdefghijklmnop" is not a valid interface name`),
		tap("device with a slash", map[int]string{26: `device = "a/b"`}, 26, "tap[0].device", `"a/b" is not a valid interface name`),
		tap("without in and out", map[int]string{25: ``}, 23, "tap[0].in", "a tap needs in, out or both"),
		tap("in to an output", map[int]string{25: `in = "b.out0"`}, 25, "tap[0].in", `"b.out0" is not a port reference of the form model.in<N>`),
		tap("in of a missing model", map[int]string{25: `in = "z.in0"`}, 25, "tap[0].in", `"z.in0" names no model`),
		tap("out already linked", map[int]string{26: `out = "a.out0"`}, 26, "tap[0].out", "a.out0 already feeds another tap or a link"),
		tap("in fed by another tap", map[int]string{27: "[[tap]]\nname = \"h2\"\nin = \"b.in1\""}, 29, "tap[1].in", "b.in1 is fed by another tap"),
		tap("persist without create", map[int]string{26: `persist = true`}, 26, "tap[0].persist", "persist, owner and group apply to a TAP the bridge creates"),
		tap("owner negative", map[int]string{26: "create = true\nowner = -1"}, 27, "tap[0].owner", "owner and group are numeric ids, not negative"),
		tap("mtu 67", map[int]string{26: `mtu = 67`}, 26, "tap[0].mtu", "must be 68 to 65535, is 67"),
		tap("mtu 65536", map[int]string{26: `mtu = 65536`}, 26, "tap[0].mtu", "must be 68 to 65535, is 65536"),
		tap("queue -1", map[int]string{26: `queue = -1`}, 26, "tap[0].queue", "must be 1 to"),
		scen("scenario/bridge window too big", map[int]string{23: "[bridge]", 24: `window = 1048577`}, 24, "bridge.window", "must be at most 1048576 cycles"),
		scen("scenario/bridge max_window too big", map[int]string{23: "[bridge]", 24: `max_window = 1048577`}, 24, "bridge.max_window", "must be at most 1048576 cycles"),
	)
	// The same defect through `cosim bridge`: checked before any TAP.
	bs := scen("scenario/bridge command bad scenario", map[int]string{15: `latency = 0`}, 15, "link[0].latency", "must be at least 1 cycle")
	bs.args = []string{"bridge", "$D/s.toml", "--out", "$OUT", "--models", "$M"}
	bs.first = strings.Replace(bs.first, "cosim: run: ", "cosim: bridge: ", 1)
	add(bs)

	// The scenario file itself.
	add(
		catCase{name: "file/missing scenario", args: run(), code: 2, first: "cosim: run: open $D/s.toml: no such file or directory", out: outNone},
		catCase{name: "file/empty scenario", files: map[string][]byte{"s.toml": {}}, args: run(), code: 2, first: "cosim: run: $D/s.toml: cycles: must be set and above 0", out: outNone},
		catCase{name: "file/directory scenario", setup: func(t *testing.T, d string) { require.NoError(t, os.Mkdir(filepath.Join(d, "s.toml"), 0o755)) },
			args: run(), code: 2, first: "cosim: run: open $D/s.toml: is a directory, not a regular file", out: outNone},
		catCase{name: "file/FIFO scenario", setup: mkfifo("s.toml"), args: run(), code: 2, first: "cosim: run: open $D/s.toml: is a FIFO (reading it would wait for a writer), not a regular file", out: outNone},
		catCase{name: "file/binary scenario", files: map[string][]byte{"s.toml": {0, 1, 2, 0xff, 0xfe}}, args: run(), code: 2, first: "cosim: run: $D/s.toml:1: files cannot contain NULL bytes", out: outNone},
		catCase{name: "file/bridge missing scenario", args: []string{"bridge", "$D/s.toml", "--out", "$OUT"}, code: 2, first: "cosim: bridge: open $D/s.toml: no such file or directory", out: outNone},
	)

	// cosim check inputs.
	var pcap bytes.Buffer
	require.NoError(t, pcapio.WritePcapTo(&pcap, validFrames(t)[:3]))
	chk := func(name string, files map[string][]byte, setup func(*testing.T, string), first string) catCase {
		return catCase{name: "check/" + name, files: files, setup: setup, args: []string{"check", "$D/c.pcap"}, code: 2, first: first}
	}
	ngBad := linkType147(t)
	ngBad[4] = 0xff // the section header's length no longer matches its trailer
	add(
		chk("missing", nil, nil, "cosim check: open $D/c.pcap: no such file or directory"),
		chk("empty", map[string][]byte{"c.pcap": {}}, nil, "cosim check: $D/c.pcap: empty file"),
		chk("directory", nil, func(t *testing.T, d string) { require.NoError(t, os.Mkdir(filepath.Join(d, "c.pcap"), 0o755)) }, "cosim check: open $D/c.pcap: is a directory, not a regular file"),
		chk("FIFO", nil, mkfifo("c.pcap"), "cosim check: open $D/c.pcap: is a FIFO (reading it would wait for a writer), not a regular file"),
		chk("not a capture", map[string][]byte{"c.pcap": []byte("this is not a capture file\n")}, nil, "cosim check: $D/c.pcap: not a pcap or pcapng file"),
		chk("truncated header", map[string][]byte{"c.pcap": pcap.Bytes()[:10]}, nil, "cosim check: $D/c.pcap: truncated pcap file header"),
		chk("truncated record", map[string][]byte{"c.pcap": truncatedPcap(t, validFrames(t)[:3])}, nil, "~cosim check: \\$D/c.pcap: .*packet 3.*truncated"),
		chk("wrong link type", map[string][]byte{"c.pcap": linkType147(t)}, nil, "~cosim check: \\$D/c.pcap: .*link type 147"),
		chk("pcapng with a bad block", map[string][]byte{"c.pcap": ngBad}, nil, "cosim check: $D/c.pcap: "),
		chk("pcapng cut inside a block", map[string][]byte{"c.pcap": linkType147(t)[:len(linkType147(t))-7]}, nil, "cosim check: $D/c.pcap: "),
		chk("gzip", map[string][]byte{"c.pcap": {0x1f, 0x8b, 8, 0, 0, 0, 0, 0}}, nil, "~cosim check: \\$D/c.pcap: .*gzip"),
	)

	// pcap traffic files, damaged at the start and mid-run.
	trafficPcap := func(name string, data []byte, code int, first string, out outWant) catCase {
		files := map[string][]byte{"s.toml": catEdit(map[int]string{18: `kind = "pcap"`, 20: `file = "t.pcap"`})}
		if data != nil {
			files["t.pcap"] = data
		}
		return catCase{name: "traffic-pcap/" + name, files: files, args: run(), code: code, first: first, out: out}
	}
	add(
		trafficPcap("missing", nil, 2, "cosim: run: $D/s.toml: traffic[0]: open $D/t.pcap: no such file or directory", outFailed),
		trafficPcap("empty", []byte{}, 2, "cosim: run: $D/s.toml: traffic[0]: $D/t.pcap: empty file", outFailed),
		trafficPcap("garbage", []byte("not a capture at all, just text\n"), 2, "cosim: run: $D/s.toml: traffic[0]: $D/t.pcap: not a pcap or pcapng file", outFailed),
		trafficPcap("header cut short", pcap.Bytes()[:10], 2, "cosim: run: $D/s.toml: traffic[0]: $D/t.pcap: truncated pcap file header", outFailed),
		trafficPcap("truncated mid-run", truncatedPcap(t, validFrames(t)[:6]), 2, "cosim: run: $D/s.toml: traffic[0]: $D/t.pcap: packet 6: truncated record", outFailed),
		trafficPcap("wrong link type", linkType147(t), 2, "cosim: run: $D/s.toml: traffic[0]: $D/t.pcap: interface 0: unsupported link type 147", outFailed),
	)

	// cosim run --replay.
	rp := func(name string, files map[string][]byte, setup func(*testing.T, string), args []string, first string) catCase {
		return catCase{name: "replay/" + name, files: files, setup: setup,
			args: append([]string{"run", "--replay", "$D/r.pcapng", "--out", "$OUT", "--models", "$M"}, args...), code: 2, first: first, out: outNone}
	}
	rpRan := func(name string, files map[string][]byte, setup func(*testing.T, string), args []string, first string) catCase {
		c := rp(name, files, setup, args, first)
		c.out = outFailed
		return c
	}
	add(
		rp("missing recording", nil, nil, nil, "cosim: run: open $D/r.pcapng: no such file or directory"),
		rp("empty recording", map[string][]byte{"r.pcapng": {}}, nil, nil, "cosim: run: $D/r.pcapng: not a pcapng recording"),
		rp("directory recording", nil, func(t *testing.T, d string) { require.NoError(t, os.Mkdir(filepath.Join(d, "r.pcapng"), 0o755)) }, nil, "cosim: run: open $D/r.pcapng: is a directory, not a regular file"),
		rp("FIFO recording", nil, mkfifo("r.pcapng"), nil, "cosim: run: open $D/r.pcapng: is a FIFO"),
		rp("not a recording: text", map[string][]byte{"r.pcapng": []byte("hello\n")}, nil, nil, "cosim: run: $D/r.pcapng: not a pcapng recording"),
		rp("not a recording: a plain pcap", map[string][]byte{"r.pcapng": pcap.Bytes()}, nil, nil, "cosim: run: $D/r.pcapng: not a pcapng recording"),
		rp("not a recording: a pcapng of another kind", map[string][]byte{"r.pcapng": linkType147(t)}, nil, nil, "cosim: run: $D/r.pcapng: not a cosim recording"),
		rp("truncated recording", nil, recording(t, func(b []byte) []byte { return b[:len(b)*2/3] }), nil, "~^cosim: run: \\$D/r.pcapng: packet [0-9]+: truncated record"),
		rpRan("recording of another scenario", map[string][]byte{"s.toml": catEdit(nil)}, recording(t, nil), []string{"$D/s.toml"}, "cosim: run: $D/s.toml: no [[tap]] named h1 (the recording and the scenario disagree)"),
		rpRan("scenario disagreeing on a tap", map[string][]byte{"s.toml": []byte(strings.Replace(twoTaps(""), `name = "h2"`, `name = "h9"`, 1))}, recording(t, nil), []string{"$D/s.toml"}, "cosim: run: $D/s.toml: no [[tap]] named h2 (the recording and the scenario disagree)"),
		rp("bad scenario with a recording", map[string][]byte{"s.toml": catEdit(map[int]string{15: `latency = 0`})}, recording(t, nil), []string{"$D/s.toml"}, "cosim: run: $D/s.toml:15: link[0].latency: must be at least 1 cycle"),
	)

	// Remote models.
	add(
		catCase{name: "remote/nothing listens", setup: func(t *testing.T, d string) {
			writeScen(t, d, catEdit(map[int]string{11: `remote = "` + deadAddr(t) + `"`}))
		}, args: run(), code: 1, first: `~^cosim: run: model "b": connect to tcp 127\.0\.0\.1:[0-9]+: .*connection refused`, out: outFailed},
		catCase{name: "remote/speaks garbage", setup: func(t *testing.T, d string) {
			writeScen(t, d, catEdit(map[int]string{11: `remote = "` + garbageAddr(t) + `"`}))
		}, args: run("--step-timeout", "2s"), code: 1, first: `cosim: run: model "b": handshake: waiting for HELLO: protocol error at byte 0`, out: outFailed},
		catCase{name: "remote/accepts and hangs up", setup: func(t *testing.T, d string) {
			writeScen(t, d, catEdit(map[int]string{11: `remote = "` + hangupAddr(t) + `"`}))
		}, args: run("--step-timeout", "2s"), code: 1, first: `cosim: run: model "b": handshake: waiting for HELLO: connection closed by the model`, out: outFailed},
		catCase{name: "remote/unresolvable host", setup: func(t *testing.T, d string) {
			writeScen(t, d, catEdit(map[int]string{11: `remote = "no-such-host.invalid:7001"`}))
		}, args: run(), code: 1, first: `cosim: run: model "b": connect to tcp no-such-host.invalid:7001: `, out: outFailed},
	)

	// Models: not built, or a port beyond the top's.
	add(
		catCase{name: "models/binary not built", files: good, args: []string{"run", "$D/s.toml", "--out", "$OUT", "--models", "$D"},
			code: 1, first: "cosim: run: model a: no binary for top axis_fifo", out: outFailed},
		catCase{name: "models/binary not executable", files: good, setup: func(t *testing.T, d string) {
			require.NoError(t, os.MkdirAll(filepath.Join(d, "m", "axis_fifo_64"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(d, "m", "axis_fifo_64", "Vaxis_fifo_top"), []byte("not a program"), 0o644))
		}, args: []string{"run", "$D/s.toml", "--out", "$OUT", "--models", "$D/m"}, code: 1, first: `cosim: run: model "a": start $D/m/axis_fifo_64/Vaxis_fifo_top: fork/exec $D/m/axis_fifo_64/Vaxis_fifo_top: permission denied`, out: outFailed},
		catCase{name: "models/traffic to a port beyond the top", files: map[string][]byte{"s.toml": catEdit(map[int]string{19: `to = "a.in5"`})},
			args: run(), code: 2, first: "cosim: run: $D/s.toml:19: traffic[0].to: a.in5: top axis_fifo has 1 input ports", out: outFailed},
		catCase{name: "models/link from a port beyond the top", files: map[string][]byte{"s.toml": catEdit(map[int]string{13: `from = "a.out3"`})},
			args: run(), code: 2, first: "cosim: run: $D/s.toml:13: link[0].from: a.out3: top axis_fifo has 1 output ports", out: outFailed},
	)

	// The model binaries run directly.
	bin := func(name string, code int, first string, args ...string) catCase {
		return catCase{name: "binary/" + name, args: append([]string{"@model"}, args...), code: code, first: first}
	}
	add(
		bin("no arguments", 2, "axis_fifo_64: give exactly one of --socket, --listen, --raw"),
		bin("unknown flag", 2, `axis_fifo_64: unknown argument "--bogus"`, "--bogus"),
		bin("listen 99999", 2, `axis_fifo_64: --listen: want PORT, :PORT or HOST:PORT with a port 0 to 65535, got "99999"`, "--listen", "99999"),
		bin("listen abc", 2, `axis_fifo_64: --listen: want PORT, :PORT or HOST:PORT with a port 0 to 65535, got "abc"`, "--listen", "abc"),
		bin("socket without value", 2, "axis_fifo_64: --socket needs a value", "--socket"),
		bin("socket under a file", 1, "model axis_fifo_64: bind $D/f/m.sock", "--socket", "$D/f/m.sock"),
		bin("socket and raw", 2, "axis_fifo_64: give exactly one of --socket, --listen, --raw", "--raw", "1", "--listen", "0"),
		bin("raw -1", 2, `axis_fifo_64: --raw wants a number up to 1099511627776, got "-1"`, "--raw", "-1"),
		bin("raw abc", 2, `axis_fifo_64: --raw wants a number up to 1099511627776, got "abc"`, "--raw", "abc"),
		bin("raw size 0", 2, "axis_fifo_64: --size and --window must be at least 1", "--raw", "10", "--size", "0"),
		bin("raw size abc", 2, `axis_fifo_64: --size wants a number up to 1048576, got "abc"`, "--raw", "10", "--size", "abc"),
		bin("raw window 0", 2, "axis_fifo_64: --size and --window must be at least 1", "--raw", "10", "--window", "0"),
		bin("raw gap 150", 2, `axis_fifo_64: --gap wants a number up to 99, got "150"`, "--raw", "10", "--gap", "150"),
		bin("accept-timeout abc", 2, `axis_fifo_64: --accept-timeout wants a number up to 86400, got "abc"`, "--accept-timeout", "abc", "--listen", "0"),
		bin("accept-timeout passes", 1, "", "--accept-timeout", "1", "--listen", "0"),
	)
	for i := range cs {
		if cs[i].name == "binary/socket under a file" {
			cs[i].files = map[string][]byte{"f": []byte("x")}
		}
	}

	// --out unusable.
	add(
		catCase{name: "out/a file", files: map[string][]byte{"s.toml": catEdit(nil), "f": []byte("x")}, args: []string{"run", "$D/s.toml", "--out", "$D/f", "--models", "$M"},
			code: 2, first: "cosim: run: --out $D/f: not a directory", out: outAny},
		catCase{name: "out/under a file", files: map[string][]byte{"s.toml": catEdit(nil), "f": []byte("x")}, args: []string{"run", "$D/s.toml", "--out", "$D/f/out", "--models", "$M"},
			code: 2, first: "cosim: run: --out $D/f/out: not a directory", out: outAny},
		catCase{name: "out/unwritable", files: good, setup: func(t *testing.T, d string) { require.NoError(t, os.Mkdir(filepath.Join(d, "ro"), 0o555)) },
			args: []string{"run", "$D/s.toml", "--out", "$D/ro/out", "--models", "$M"}, code: 2, first: "cosim: run: --out $D/ro/out: ", out: outAny, skip: rootSkip()},
		catCase{name: "out/selftest under a file", files: map[string][]byte{"f": []byte("x")}, args: []string{"selftest", "--out", "$D/f/out"},
			code: 2, first: "cosim: selftest: mkdir $D/f: not a directory", out: outAny},
		catCase{name: "out/bridge under a file", files: map[string][]byte{"s.toml": []byte(twoTaps("")), "f": []byte("x")}, args: []string{"bridge", "$D/s.toml", "--out", "$D/f/out", "--models", "$M"},
			code: 2, first: "cosim: bridge: --out $D/f/out: not a directory", out: outAny},
	)
	return cs
}

// mkfifo makes a named pipe, which the commands must refuse rather than
// block on.
func mkfifo(name string) func(*testing.T, string) {
	return func(t *testing.T, d string) { require.NoError(t, syscall.Mkfifo(filepath.Join(d, name), 0o644)) }
}

func writeScen(t *testing.T, d string, text []byte) {
	require.NoError(t, os.WriteFile(filepath.Join(d, "s.toml"), text, 0o644))
}

// recordingBytes is one short bridge session's recording, made once.
var recordingBytes []byte

// recording writes r.pcapng, a real recording of the two-taps scenario
// cut by damage if given.
func recording(t *testing.T, damage func([]byte) []byte) func(*testing.T, string) {
	return func(t *testing.T, d string) {
		if recordingBytes == nil {
			live := record(t, needModels(t, "switch4_512"))
			b, err := os.ReadFile(filepath.Join(live, "recording.pcapng"))
			require.NoError(t, err)
			recordingBytes = b
		}
		b := recordingBytes
		if damage != nil {
			b = damage(append([]byte(nil), b...))
		}
		require.NoError(t, os.WriteFile(filepath.Join(d, "r.pcapng"), b, 0o644))
	}
}

// deadAddr is a loopback address where nothing listens: a port just
// closed.
func deadAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	a := l.Addr().String()
	require.NoError(t, l.Close())
	return a
}

// serveAddr listens on loopback and hands each connection to serve until
// the test ends.
func serveAddr(t *testing.T, serve func(net.Conn)) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); serve(c) }()
		}
	}()
	return l.Addr().String()
}

// garbageAddr is a remote that answers the handshake with text.
func garbageAddr(t *testing.T) string {
	return serveAddr(t, func(c net.Conn) {
		c.Write(bytes.Repeat([]byte("HTTP/1.1 400 Bad Request\r\n"), 64))
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	})
}

// hangupAddr is a remote that accepts and closes at once.
func hangupAddr(t *testing.T) string {
	return serveAddr(t, func(c net.Conn) {})
}

func TestCatalogue(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "axis_fifo_64"))
	require.NoError(t, err)
	cases := catalogue(t)
	seen := map[string]bool{}
	for _, c := range cases {
		require.False(t, seen[c.name], "case %q twice", c.name)
		seen[c.name] = true
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runCatCase(t, models, c) })
	}
}

// runCatCase runs one case with the models in models.
func runCatCase(t *testing.T, models string, c catCase) {
	if c.skip != "" {
		t.Skip(c.skip)
	}
	d := t.TempDir()
	for name, b := range c.files {
		require.NoError(t, os.WriteFile(filepath.Join(d, name), b, 0o644))
	}
	if c.setup != nil {
		c.setup(t, d)
	}
	out := filepath.Join(d, "out")
	expand := func(s string) string {
		return strings.NewReplacer("$D", d, "$OUT", out, "$M", models).Replace(s)
	}
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = expand(a)
	}
	var code int
	var stderr string
	if len(args) > 0 && args[0] == "@model" {
		code, stderr = runModel(t, filepath.Join(models, "axis_fifo_64", "Vaxis_fifo_top"), args[1:])
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		code, _, stderr, _ = cli(ctx, args...)
		require.NoError(t, ctx.Err(), "the case did not end in time")
	}
	first := strings.SplitN(stderr, "\n", 2)[0]
	assert.Equal(t, c.code, code, "exit status; stderr:\n%s", stderr)
	if strings.HasPrefix(c.first, "~") {
		// The directory goes into the pattern quoted.
		re := strings.ReplaceAll(c.first[1:], `\$D`, regexp.QuoteMeta(d))
		assert.Regexp(t, re, first, "first line of stderr")
	} else {
		want := expand(c.first)
		assert.True(t, strings.HasPrefix(first, want), "first line of stderr\nwant prefix: %s\n         got: %s", want, first)
	}
	checkOut(t, c.out, out)
	if c.check != nil {
		c.check(t, d, stderr)
	}
}

// runModel runs a model binary with a deadline and returns its exit
// status and stderr.
func runModel(t *testing.T, bin string, args []string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "the model did not end in time")
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, stderr.String()
}

func checkOut(t *testing.T, want outWant, out string) {
	t.Helper()
	switch want {
	case outNone:
		assert.NoDirExists(t, out, "nothing may be written")
	case outFailed, outCapture:
		s := summaryOf(t, out)
		assert.Equal(t, false, s["pass"])
		assert.NotEmpty(t, s["error"])
		if want == outCapture {
			assert.NotEmpty(t, capture(t, out))
		}
	}
}

// TestCatalogueCounts keeps the catalogue's size honest: at least 150
// cases, and every category present.
func TestCatalogueCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds recordings lazily only")
	}
	n := map[string]int{}
	total := 0
	for _, c := range catalogue(t) {
		n[strings.SplitN(c.name, "/", 2)[0]]++
		total++
	}
	var ks []string
	for k := range n {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		t.Logf("%-14s %d", k, n[k])
	}
	t.Logf("%-14s %d", "total", total)
	assert.GreaterOrEqual(t, total, 150)
}

// rootSkip skips a case of permissions, which root does not have.
func rootSkip() string {
	if os.Geteuid() == 0 {
		return "root writes anywhere: no unwritable directory to try"
	}
	return ""
}

// TestCatalogueSignals is the catalogue's part that needs processes: a
// signal to `cosim run` itself (a subprocess), and a model killed or
// stopped mid-run (signalMidRun's checks of the summary and captures).
func TestCatalogueSignals(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "nic_icrc_64"))
	require.NoError(t, err)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run("signal/"+sig.String()+" to cosim run", func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			cmd := self(t, "run", "testdata/run_long.toml", "--seed", "3", "--out", out, "--models", models)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			time.Sleep(time.Second) // into the run
			require.NoError(t, cmd.Process.Signal(sig))
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("cosim run did not end after %v", sig)
			}
			assert.Equal(t, 130, cmd.ProcessState.ExitCode())
			assert.True(t, strings.HasPrefix(strings.SplitN(stderr.String(), "\n", 2)[0], "cosim: run: interrupted at cycle "), stderr.String())
			s := summaryOf(t, out)
			assert.Equal(t, false, s["pass"])
			assert.True(t, strings.HasPrefix(s["error"].(string), "interrupted at cycle "), "%v", s["error"])
			assert.NotEmpty(t, capture(t, out))
		})
	}
	for _, c := range []struct {
		name  string
		sig   syscall.Signal
		extra []string
		want  string
	}{
		{"death/model SIGKILL", syscall.SIGKILL, nil, "signal: killed"},
		{"death/model SIGTERM", syscall.SIGTERM, nil, "signal: terminated"},
		{"death/model SIGSEGV", syscall.SIGSEGV, nil, "signal: segmentation fault"},
		{"death/model SIGSTOP with step-timeout", syscall.SIGSTOP, []string{"--step-timeout", "1s"}, "no answer within 1s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			victim := "cat_" + strings.ToLower(strings.TrimPrefix(c.sig.String(), "signal "))
			victim = strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r == '_' {
					return r
				}
				return '_'
			}, victim)
			code, stderr, took := signalMidRun(t, victim, c.sig, c.extra...)
			assert.Equal(t, 1, code)
			assert.True(t, strings.HasPrefix(strings.SplitN(stderr, "\n", 2)[0], fmt.Sprintf("cosim: run: model %q", victim)), stderr)
			assert.Contains(t, stderr, c.want)
			assert.Less(t, took, 3*time.Second)
		})
	}
}
