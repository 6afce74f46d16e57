package modelbuild

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// conventionTop is a top that follows the convention: IN inputs, OUT
// outputs at DW bits, with the CSR bus and idle.
func conventionTop(in, out, dw int) *Ports {
	p := &Ports{Module: "t", Params: map[string]string{}}
	add := func(name, dir string, w int) { p.List = append(p.List, Port{Name: name, Dir: dir, Width: w}) }
	add("clk", "input", 1)
	add("rst", "input", 1)
	for _, side := range []struct {
		prefix, data, ctl string
		n                 int
	}{{"s_axis_", "input", "output", in}, {"m_axis_", "output", "input", out}} {
		add(side.prefix+"tdata", side.data, side.n*dw)
		add(side.prefix+"tkeep", side.data, side.n*dw/8)
		add(side.prefix+"tvalid", side.data, side.n)
		add(side.prefix+"tready", side.ctl, side.n)
		add(side.prefix+"tlast", side.data, side.n)
		add(side.prefix+"tuser", side.data, side.n)
	}
	for _, w := range groups[0].ports {
		add(w.name, w.dir, w.width(Shape{}))
	}
	add("idle", "output", 1)
	return p
}

// edit changes or removes (dir "") one port of p.
func edit(p *Ports, name, dir string, width int, unpacked bool) *Ports {
	var l []Port
	for _, q := range p.List {
		if q.Name == name {
			if dir == "" {
				continue
			}
			q = Port{Name: name, Dir: dir, Width: width, Unpacked: unpacked}
		}
		l = append(l, q)
	}
	p.List = l
	return p
}

func TestCheckAcceptsTheConvention(t *testing.T) {
	s, err := Check(conventionTop(2, 3, 64), 64)
	require.NoError(t, err)
	assert.Equal(t, Shape{In: 2, Out: 3, DataWidth: 64, CSR: true, Idle: true}, s)

	// The DMA port, whose data is one beat wide.
	p := conventionTop(1, 1, 512)
	for _, w := range groups[1].ports {
		p.List = append(p.List, Port{Name: w.name, Dir: w.dir, Width: w.width(Shape{DataWidth: 512})})
	}
	s, err = Check(p, 512)
	require.NoError(t, err)
	assert.True(t, s.DMA)
}

// Each broken rule is one error naming the port, the rule and where it
// is written.
func TestCheckNamesThePortAndTheRule(t *testing.T) {
	for _, c := range []struct {
		name string
		top  *Ports
		want string
	}{
		{"no clock", edit(conventionTop(1, 1, 64), "clk", "", 0, false),
			"no clock port clk: the convention wants it, an input of 1 bit (sim/README.md, Port convention)"},
		{"data too narrow", edit(conventionTop(2, 2, 64), "s_axis_tdata", "input", 32, false),
			"port s_axis_tdata: width 32, the convention wants IN*DATA_WIDTH = 2*64 = 128 bits (sim/README.md, Port convention)"},
		{"keep of one port", edit(conventionTop(1, 1, 64), "m_axis_tkeep", "output", 64, false),
			"port m_axis_tkeep: width 64, the convention wants OUT*DATA_WIDTH/8 = 1*64/8 = 8 bits (sim/README.md, Port convention)"},
		{"no tready for an output", edit(conventionTop(1, 2, 64), "m_axis_tready", "", 0, false),
			"no tready port m_axis_tready: the output streams (m_axis_*) need it, an input of OUT = 2 bits (sim/README.md, Port convention)"},
		{"tready the wrong way", edit(conventionTop(1, 1, 64), "s_axis_tready", "input", 1, false),
			"port s_axis_tready: an input, the convention wants an output (sim/README.md, Port convention)"},
		{"unpacked tvalid", edit(conventionTop(1, 1, 64), "m_axis_tlast", "output", 1, true),
			"port m_axis_tlast: an unpacked array, the convention wants a packed vector of OUT = 1 bit"},
		{"half a CSR bus", edit(conventionTop(1, 1, 64), "csr_rvalid", "", 0, false),
			"port csr_addr: the CSR bus has all of its ports or none; missing csr_rvalid (sim/README.md, CSR bus)"},
		{"CSR address too wide", edit(conventionTop(1, 1, 64), "csr_addr", "input", 32, false),
			"port csr_addr: width 32, the convention wants 16 bits (sim/README.md, CSR bus)"},
		{"idle of two bits", edit(conventionTop(1, 1, 64), "idle", "output", 2, false),
			"port idle: width 2, the convention wants 1 bit (sim/README.md, Port convention)"},
		{"a port of its own", func() *Ports {
			p := conventionTop(1, 1, 64)
			p.List = append(p.List, Port{Name: "irq", Dir: "output", Width: 1})
			return p
		}(), "port irq: not a port of the convention"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Check(c.top, 64)
			require.Error(t, err)
			// One error per broken rule, nothing else.
			assert.Len(t, strings.Split(err.Error(), "\n"), 1, "%v", err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestCheckWidth(t *testing.T) {
	for _, dw := range []int{8, 24, 64, 512} {
		assert.NoError(t, CheckWidth(dw), "%d", dw)
	}
	for _, dw := range []int{0, 12, 520, 1024} {
		err := CheckWidth(dw)
		require.Error(t, err, "%d", dw)
		assert.Contains(t, err.Error(), "a multiple of 8, at most 512 (sim/README.md, Port convention)")
	}
}
