package scenario_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/scenario"
)

func TestDefault(t *testing.T) {
	s, err := scenario.Default()
	require.NoError(t, err)

	assert.Equal(t, scenario.DefaultName, s.File)
	assert.Equal(t, "default", s.Name)
	assert.Nil(t, s.Seed, "the default leaves the seed to --seed")
	assert.Equal(t, uint64(100_000_000), s.Cycles)
	assert.Equal(t, 156.25, s.ClockMHz)
	assert.Equal(t, uint64(100_000+156+4*156), s.DrainCap, "the base, and the longest link: latency and reorder_cycles")

	require.Len(t, s.Models, 3)
	for i, name := range []string{"nic0", "nic1"} {
		assert.Equal(t, scenario.Model{Name: name, Top: "nic", DataWidth: 64}, s.Models[i])
	}
	assert.Equal(t, scenario.Model{Name: "sw", Top: "switch4", DataWidth: 64}, s.Models[2])

	require.Len(t, s.Links, 4)
	for i, ends := range [][2]string{{"nic0.out0", "sw.in0"}, {"sw.out0", "nic0.in0"}, {"nic1.out0", "sw.in1"}, {"sw.out1", "nic1.in0"}} {
		assert.Equal(t, scenario.Link{From: ends[0], To: ends[1], Latency: 156, LossPct: 1, CorruptPct: 0.1, DupPct: 0.1,
			ReorderPct: 0.1, ReorderCycles: 4 * 156}, s.Links[i], "1 us links with every fault")
	}
	assert.Empty(t, s.Traffic)
	require.Len(t, s.RDMA, 1)
	w := s.RDMA[0]
	assert.Equal(t, []string{"nic0", "nic1"}, w.NICs)
	assert.Equal(t, []int{8, 2000, 0, 8192, 1024}, []int{w.QPs, w.Messages, w.MinSize, w.MaxSize, w.PMTU})
}

func TestDefaultTOML(t *testing.T) {
	text := scenario.DefaultTOML()
	s, err := scenario.Parse("copy.toml", text)
	require.NoError(t, err)
	d, err := scenario.Default()
	require.NoError(t, err)
	d.File = "copy.toml"
	assert.Equal(t, d, s, "DefaultTOML is the text Default parses")

	// It is a copy: scribbling on it leaves the built-in scenario alone.
	for i := range text {
		text[i] = '#'
	}
	_, err = scenario.Default()
	assert.NoError(t, err)
	assert.Contains(t, string(scenario.DefaultTOML()), `name = "default"`)
}

func TestDefaults(t *testing.T) {
	s, err := scenario.Parse("min.toml", []byte(`
cycles = 10

[[model]]
name = "m"
top = "nic_icrc"

[[traffic]]
kind = "roce"
to = "m.in0"
`))
	require.NoError(t, err)
	assert.Equal(t, 156.25, s.ClockMHz, "clock")
	assert.Equal(t, uint64(100_000), s.DrainCap, "drain")
	assert.Equal(t, 64, s.Models[0].DataWidth, "data width")
	assert.Equal(t, 60, s.Traffic[0].MinSize, "min size")
	assert.Equal(t, 1500, s.Traffic[0].MaxSize, "max size")
	assert.Nil(t, s.Seed)
	assert.Equal(t, "min.toml", s.File)
}

func TestLoadFull(t *testing.T) {
	path := filepath.Join("testdata", "full.toml")
	s, err := scenario.Load(path)
	require.NoError(t, err)

	seed := uint64(77)
	want := &scenario.Scenario{
		Name:     "full",
		Seed:     &seed,
		Cycles:   5000,
		DrainCap: 300,
		ClockMHz: 322.265625,
		Models: []scenario.Model{
			{Name: "nic", Top: "nic_icrc", DataWidth: 512, SrcGapPct: 5, Params: map[string]int{"depth": 16, "ports": 2}},
			{Name: "sw-1", Top: "switch", DataWidth: 64, Remote: "127.0.0.1:7001"},
		},
		Links: []scenario.Link{{From: "nic.out0", To: "sw-1.in3", Latency: 12, LossPct: 0.5, CorruptPct: 2.5}},
		Traffic: []scenario.Traffic{
			{Kind: "roce", To: "nic.in0", Frames: 100, MinSize: 64, MaxSize: 9216, GapCycles: 3},
			{Kind: "pcap", To: "nic.in1", File: filepath.Join("testdata", "replay.pcap"), MinSize: 60, MaxSize: 1500},
		},
		File: path,
	}
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	want.Text = text // as given
	assert.Equal(t, want, s)
}

func TestPort(t *testing.T) {
	s, err := scenario.Load(filepath.Join("testdata", "full.toml"))
	require.NoError(t, err)
	for _, tc := range []struct {
		ref   string
		model string
		port  int
	}{
		{"nic.in0", "nic", 0},
		{"nic.out0", "nic", 0},
		{"sw-1.in3", "sw-1", 3},
		{"sw-1.out12", "sw-1", 12},
	} {
		m, p := s.Port(tc.ref)
		assert.Equal(t, tc.model, m, tc.ref)
		assert.Equal(t, tc.port, p, tc.ref)
	}
	for _, l := range s.Links {
		m, p := s.Port(l.To)
		assert.Equal(t, "sw-1", m)
		assert.Equal(t, 3, p)
	}
}

func TestErrorString(t *testing.T) {
	for _, tc := range []struct {
		err  scenario.Error
		want string
	}{
		{scenario.Error{File: "run.toml", Line: 7, Key: "link[0].latency", Msg: "must be at least 1 cycle"}, "run.toml:7: link[0].latency: must be at least 1 cycle"},
		{scenario.Error{File: "run.toml", Key: "cycles", Msg: "must be set"}, "run.toml: cycles: must be set"},
		{scenario.Error{File: "run.toml", Line: 3, Msg: "bad syntax"}, "run.toml:3: bad syntax"},
		{scenario.Error{File: "run.toml", Msg: "broken"}, "run.toml: broken"},
	} {
		assert.Equal(t, tc.want, tc.err.Error())
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-scenario.toml")
	s, err := scenario.Load(path)
	require.Error(t, err)
	assert.Nil(t, s)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), path, "the error names the file")
}

func TestLoadReportsPath(t *testing.T) {
	path := filepath.Join("testdata", "unknown_key_second_model.toml")
	_, err := scenario.Load(path)
	var se *scenario.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, path, se.File)
	assert.Equal(t, 13, se.Line, "the line of the key in the second [[model]], not in the first")
	assert.Contains(t, se.Key, "colour")
	assert.Equal(t, "unknown key", se.Msg)
	assert.True(t, strings.HasPrefix(err.Error(), path+":13: "), err.Error())
}

// base is a valid scenario. Its lines are numbered so that cases can set
// any of them (the blank ones are room for extra keys inside the table
// above them) and know the line an error must name.
var base = []string{
	1:  `name = "t"`,
	2:  `cycles = 1000`,
	3:  ``,
	4:  `[[model]]`,
	5:  `name = "a"`,
	6:  `top = "nic_icrc"`,
	7:  ``,
	8:  `[[model]]`,
	9:  `name = "b"`,
	10: `top = "nic_icrc"`,
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

// edit returns base with lines set (an empty string removes a line's
// content but keeps the numbering).
func edit(set map[int]string) []byte {
	lines := append([]string(nil), base[1:]...)
	for n, l := range set {
		lines[n-1] = l
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

func TestBaseIsValid(t *testing.T) {
	s, err := scenario.Parse("base.toml", edit(nil))
	require.NoError(t, err)
	require.Len(t, s.Models, 2)
	require.Len(t, s.Links, 1)
	require.Len(t, s.Traffic, 1)
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  map[int]string // lines of base to replace
		text string         // or the whole file
		line int
		key  string
		msg  string // the message contains this
	}{
		{name: "syntax error", set: map[int]string{2: `cycles = = 1000`}, line: 2, key: "cycles", msg: "expected value"},
		{name: "syntax error in a table", set: map[int]string{14: `to = "b.in0" "c.in0"`}, line: 14, key: "link", msg: "expected"},
		{name: "unterminated string", set: map[int]string{19: `to = "a.in0`}, line: 19, key: "traffic.to", msg: "strings cannot contain newlines"},
		{name: "key defined twice", set: map[int]string{3: `cycles = 5`}, line: 3, key: "cycles", msg: "written twice"},
		{name: "table then array of tables", set: map[int]string{4: `[model]`}, line: 8, key: "model", msg: "already a table ([model]), so it cannot also be an array of tables ([[model]])"},
		{name: "table written twice", set: map[int]string{3: "[bridge]\n[bridge]"}, line: 4, key: "bridge", msg: "written twice"},
		{name: "unknown top-level key", set: map[int]string{3: `bogus = 1`}, line: 3, key: "bogus", msg: "unknown key"},
		// The library names keys of [[tables]] without the entry index.
		{name: "unknown key in second model", set: map[int]string{11: `colour = "red"`}, line: 11, key: "model[1].colour", msg: "unknown key"},
		{name: "unknown key in link", set: map[int]string{16: `jitter = 3`}, line: 16, key: "link[0].jitter", msg: "unknown key"},
		{name: "wrong type", set: map[int]string{7: `data_width = "x"`}, line: 7, key: "model[0].data_width", msg: "incompatible types"},
		{name: "wrong type in second model", set: map[int]string{11: `data_width = "x"`}, line: 11, key: "model[1].data_width", msg: "incompatible types"},
		{name: "wrong type of param", set: map[int]string{7: `params = { depth = "deep" }`}, line: 7, key: "model[0].params.depth", msg: "incompatible types"},
		{name: "missing cycles", set: map[int]string{2: ``}, line: 0, key: "cycles", msg: "must be set"},
		{name: "cycles 0", set: map[int]string{2: `cycles = 0`}, line: 2, key: "cycles", msg: "must be set"},
		{name: "negative clock", set: map[int]string{3: `clock_mhz = -100.0`}, line: 3, key: "clock_mhz", msg: "must be a positive number, is -100"},
		{name: "no model", text: "cycles = 10\n", line: 0, key: "model", msg: "at least one [[model]]"},
		{name: "duplicate model name", set: map[int]string{9: `name = "a"`}, line: 9, key: "model[1].name", msg: `model "a" is defined twice`},
		{name: "bad model name", set: map[int]string{5: `name = "a.b"`}, line: 5, key: "model[0].name", msg: `"a.b" is not a valid model name`},
		{name: "model name starting with a digit", set: map[int]string{9: `name = "2b"`}, line: 9, key: "model[1].name", msg: `"2b" is not a valid model name`},
		{name: "model without name", set: map[int]string{5: ``}, line: 4, key: "model[0].name", msg: `"" is not a valid model name`},
		{name: "second model without top", set: map[int]string{10: ``}, line: 8, key: "model[1].top", msg: "must name the RTL top"},
		{name: "data_width 100", set: map[int]string{7: `data_width = 100`}, line: 7, key: "model[0].data_width", msg: "multiple of 64 from 64 to 1024, is 100"},
		{name: "data_width 2048", set: map[int]string{11: `data_width = 2048`}, line: 11, key: "model[1].data_width", msg: "is 2048"},
		{name: "src_gap_pct 150", set: map[int]string{11: `src_gap_pct = 150`}, line: 11, key: "model[1].src_gap_pct", msg: "must be 0 to 99, is 150"},
		{name: "sink_stall_pct -1", set: map[int]string{7: `sink_stall_pct = -1`}, line: 7, key: "model[0].sink_stall_pct", msg: "must be 0 to 99, is -1"},
		{name: "link latency 0", set: map[int]string{15: `latency = 0`}, line: 15, key: "link[0].latency", msg: "at least 1 cycle"},
		{name: "link latency missing", set: map[int]string{15: ``}, line: 12, key: "link[0].latency", msg: "at least 1 cycle"},
		{name: "link to a missing model", set: map[int]string{14: `to = "nomodel.in0"`}, line: 14, key: "link[0].to", msg: `"nomodel.in0" names no model`},
		{name: "link from an input", set: map[int]string{13: `from = "a.in0"`}, line: 13, key: "link[0].from", msg: `"a.in0" is not a port reference of the form model.out<N>`},
		{name: "link to an output", set: map[int]string{14: `to = "b.out0"`}, line: 14, key: "link[0].to", msg: `"b.out0" is not a port reference of the form model.in<N>`},
		{name: "link from garbage", set: map[int]string{13: `from = "a"`}, line: 13, key: "link[0].from", msg: "not a port reference"},
		{name: "loss_pct 101", set: map[int]string{16: `loss_pct = 101.0`}, line: 16, key: "link[0].loss_pct", msg: "must be 0 to 100, is 101"},
		{name: "corrupt_pct -1", set: map[int]string{16: `corrupt_pct = -1.0`}, line: 16, key: "link[0].corrupt_pct", msg: "must be 0 to 100, is -1"},
		{name: "traffic kind bogus", set: map[int]string{18: `kind = "bogus"`}, line: 18, key: "traffic[0].kind", msg: `unknown traffic kind "bogus"`},
		{name: "traffic without kind", set: map[int]string{18: ``}, line: 17, key: "traffic[0].kind", msg: `unknown traffic kind ""`},
		{name: "traffic to an out port", set: map[int]string{19: `to = "a.out0"`}, line: 19, key: "traffic[0].to", msg: `"a.out0" is not a port reference of the form model.in<N>`},
		{name: "traffic to a missing model", set: map[int]string{19: `to = "z.in0"`}, line: 19, key: "traffic[0].to", msg: `"z.in0" names no model`},
		{name: "min_size > max_size", set: map[int]string{21: `min_size = 1000`, 22: `max_size = 500`}, line: 22, key: "traffic[0].max_size", msg: "must lie between min_size (1000) and 9216, is 500"},
		{name: "max_size too big", set: map[int]string{21: `max_size = 9217`}, line: 21, key: "traffic[0].max_size", msg: "must lie between min_size (60) and 9216, is 9217"},
		{name: "pcap without file", set: map[int]string{18: `kind = "pcap"`}, line: 17, key: "traffic[0].file", msg: `kind "pcap" needs a file`},
		{name: "negative frames", set: map[int]string{20: `frames = -1`}, line: 20, key: "traffic[0].frames", msg: "must not be negative"},
		// The default reorder_cycles, 4 x latency, must not wrap: the error
		// names latency, the key written, not the derived one.
		{name: "latency whose reorder default wraps to 0", set: map[int]string{15: `latency = 4611686018427387904`, 16: `reorder_pct = 1.0`}, line: 15, key: "link[0].latency", msg: "at most 1844674407370955161 with reorder_pct"},
		{name: "latency whose reorder default overflows", set: map[int]string{15: `latency = 9223372036854775807`, 16: `reorder_pct = 1.0`}, line: 15, key: "link[0].latency", msg: "the default reorder_cycles is 4 x latency"},
		{name: "latency + reorder_cycles overflows", set: map[int]string{16: "reorder_pct = 1.0\nreorder_cycles = 9223372036854775807"}, line: 17, key: "link[0].reorder_cycles", msg: "latency + reorder_cycles must be at most 9223372036854775807"},
		// Limits of where names go: pcapng section options (64 KiB) and
		// the model's Unix socket path (108 bytes).
		{name: "scenario name too long", set: map[int]string{1: `name = "` + strings.Repeat("n", 70_000) + `"`}, line: 1, key: "name", msg: "at most 1024 bytes, is 70000"},
		{name: "model name too long", set: map[int]string{9: `name = "` + strings.Repeat("m", 65) + `"`}, line: 9, key: "model[1].name", msg: "at most 64 bytes, is 65"},
		{name: "remote without port", set: map[int]string{11: `remote = "sim-host"`}, line: 11, key: "model[1].remote", msg: `"sim-host" is not host:port`},
		{name: "remote port 0", set: map[int]string{7: `remote = "sim-host:0"`}, line: 7, key: "model[0].remote", msg: "port must be 1 to 65535"},
		{name: "remote port 99999", set: map[int]string{7: `remote = "sim-host:99999"`}, line: 7, key: "model[0].remote", msg: "port must be 1 to 65535"},
		{name: "remote port by name", set: map[int]string{7: `remote = "sim-host:http"`}, line: 7, key: "model[0].remote", msg: "port must be 1 to 65535"},
		{name: "remote without host", set: map[int]string{7: `remote = ":7001"`}, line: 7, key: "model[0].remote", msg: "names no host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := []byte(tc.text)
			if tc.text == "" {
				text = edit(tc.set)
			}
			s, err := scenario.Parse("case.toml", text)
			require.Error(t, err)
			assert.Nil(t, s)
			var se *scenario.Error
			require.ErrorAs(t, err, &se)
			assert.Equal(t, "case.toml", se.File, "file")
			assert.Equal(t, tc.line, se.Line, "line")
			assert.Equal(t, tc.key, se.Key, "key")
			assert.Contains(t, se.Msg, tc.msg, "message")

			want := "case.toml"
			if tc.line > 0 {
				want += fmt.Sprintf(":%d", tc.line)
			}
			if tc.key != "" {
				want += ": " + tc.key
			}
			assert.Equal(t, want+": "+se.Msg, err.Error())
		})
	}
}

// TestEdgeCases pins down the bugs reported with these tests; each skips
// until fixed.
func TestEdgeCases(t *testing.T) {
	parseErr := func(t *testing.T, text []byte) *scenario.Error {
		t.Helper()
		_, err := scenario.Parse("case.toml", text)
		var se *scenario.Error
		require.ErrorAs(t, err, &se)
		return se
	}

	t.Run("negative unsigned values wrap", func(t *testing.T) {
		for _, c := range []struct {
			n int
			l string
		}{{2, `cycles = -1`}, {15, `latency = -1`}, {3, `drain = -1`}, {3, `seed = -1`}} {
			se := parseErr(t, edit(map[int]string{c.n: c.l}))
			assert.Equal(t, c.n, se.Line, c.l)
		}
	})

	t.Run("NaN passes range checks", func(t *testing.T) {
		for _, c := range []struct {
			n int
			l string
		}{{3, `clock_mhz = nan`}, {16, `loss_pct = nan`}, {16, `corrupt_pct = nan`}} {
			se := parseErr(t, edit(map[int]string{c.n: c.l}))
			assert.Equal(t, c.n, se.Line, c.l)
		}
	})

	t.Run("syntax error at the end of a line names the next line", func(t *testing.T) {
		se := parseErr(t, edit(map[int]string{12: `[[link`}))
		assert.Equal(t, 12, se.Line)
	})

	t.Run("comment after a table header loses the line", func(t *testing.T) {
		se := parseErr(t, edit(map[int]string{8: `[[model]] # the second one`, 9: `name = "a"`}))
		assert.Equal(t, 9, se.Line)
	})

	t.Run("decode errors name keys without the entry index", func(t *testing.T) {
		se := parseErr(t, edit(map[int]string{11: `colour = "red"`}))
		assert.Equal(t, "model[1].colour", se.Key)
	})

	t.Run("min_size below 60 blames max_size", func(t *testing.T) {
		se := parseErr(t, edit(map[int]string{21: `min_size = 30`}))
		assert.Equal(t, "traffic[0].min_size", se.Key)
		assert.Equal(t, 21, se.Line)
	})

	t.Run("port number out of range", func(t *testing.T) {
		se := parseErr(t, edit(map[int]string{19: `to = "a.in99999999999999999999"`}))
		assert.Equal(t, "traffic[0].to", se.Key)
	})
}

// Names at their limits and remote addresses of every form parse.
func TestNameLimitsAndRemotes(t *testing.T) {
	for _, set := range []map[int]string{
		{1: `name = "` + strings.Repeat("n", scenario.MaxNameLen) + `"`},
		{9: `name = "` + strings.Repeat("m", scenario.MaxModelNameLen) + `"`, 14: `to = "` + strings.Repeat("m", scenario.MaxModelNameLen) + `.in0"`},
		{7: `remote = "127.0.0.1:7001"`, 11: `remote = "[::1]:65535"`},
		{7: `remote = "sim-host.example:1"`},
	} {
		_, err := scenario.Parse("case.toml", edit(set))
		assert.NoError(t, err)
	}
}
