package modelbuild

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Shape is what the port convention makes of a top: its port counts and
// which optional groups it has. The model's build and its HELLO carry it.
type Shape struct {
	In, Out        int // AXI-Stream input and output ports: the widths of s_axis_tvalid and m_axis_tvalid
	DataWidth      int
	CSR, DMA, Idle bool
}

// Where the rules are written down; every error cites one.
const (
	ruleAxis = "sim/README.md, Port convention"
	ruleCSR  = "sim/README.md, CSR bus"
	ruleDMA  = "sim/README.md, DMA port"
)

// want is one port of the convention: its direction and width for a
// shape, and the width as the rule says it.
type want struct {
	name  string
	dir   string
	width func(s Shape) int
	says  string // "IN*DATA_WIDTH" and the like; "" for a fixed width
	what  string // what the port is, for "no port" errors
}

func fixed(n int) func(Shape) int { return func(Shape) int { return n } }

func ins(s Shape) int      { return s.In }
func outs(s Shape) int     { return s.Out }
func inData(s Shape) int   { return s.In * s.DataWidth }
func inKeep(s Shape) int   { return s.In * s.DataWidth / 8 }
func outData(s Shape) int  { return s.Out * s.DataWidth }
func outKeep(s Shape) int  { return s.Out * s.DataWidth / 8 }
func beat(s Shape) int     { return s.DataWidth }
func beatKeep(s Shape) int { return s.DataWidth / 8 }

// The mandatory ports (sim/README.md, Port convention; sim/model.h binds them).
var mandatory = []want{
	{"clk", "input", fixed(1), "", "clock"},
	{"rst", "input", fixed(1), "", "reset"},
	{"s_axis_tdata", "input", inData, "IN*DATA_WIDTH", "tdata"},
	{"s_axis_tkeep", "input", inKeep, "IN*DATA_WIDTH/8", "tkeep"},
	{"s_axis_tvalid", "input", ins, "IN", "tvalid"},
	{"s_axis_tready", "output", ins, "IN", "tready"},
	{"s_axis_tlast", "input", ins, "IN", "tlast"},
	{"s_axis_tuser", "input", ins, "IN", "tuser"},
	{"m_axis_tdata", "output", outData, "OUT*DATA_WIDTH", "tdata"},
	{"m_axis_tkeep", "output", outKeep, "OUT*DATA_WIDTH/8", "tkeep"},
	{"m_axis_tvalid", "output", outs, "OUT", "tvalid"},
	{"m_axis_tready", "input", outs, "OUT", "tready"},
	{"m_axis_tlast", "output", outs, "OUT", "tlast"},
	{"m_axis_tuser", "output", outs, "OUT", "tuser"},
}

// An optional group: all of its ports or none, found by any one of them.
type group struct {
	name  string
	rule  string
	ports []want
}

var groups = []group{
	{"the CSR bus", ruleCSR, []want{
		{"csr_addr", "input", fixed(16), "", ""},
		{"csr_wdata", "input", fixed(32), "", ""},
		{"csr_we", "input", fixed(1), "", ""},
		{"csr_re", "input", fixed(1), "", ""},
		{"csr_rdata", "output", fixed(32), "", ""},
		{"csr_rvalid", "output", fixed(1), "", ""},
	}},
	{"the DMA port", ruleDMA, []want{
		{"dma_rd_req_valid", "output", fixed(1), "", ""},
		{"dma_rd_req_ready", "input", fixed(1), "", ""},
		{"dma_rd_req_addr", "output", fixed(64), "", ""},
		{"dma_rd_req_len", "output", fixed(13), "", ""}, // kDmaLenBits, sim/dma.h
		{"dma_rd_req_tag", "output", fixed(8), "", ""},  // kDmaTagBits
		{"dma_rd_resp_data", "input", beat, "DATA_WIDTH", ""},
		{"dma_rd_resp_keep", "input", beatKeep, "DATA_WIDTH/8", ""},
		{"dma_rd_resp_valid", "input", fixed(1), "", ""},
		{"dma_rd_resp_ready", "output", fixed(1), "", ""},
		{"dma_rd_resp_last", "input", fixed(1), "", ""},
		{"dma_rd_resp_tag", "input", fixed(8), "", ""},
		{"dma_wr_valid", "output", fixed(1), "", ""},
		{"dma_wr_ready", "input", fixed(1), "", ""},
		{"dma_wr_addr", "output", fixed(64), "", ""},
		{"dma_wr_data", "output", beat, "DATA_WIDTH", ""},
		{"dma_wr_keep", "output", beatKeep, "DATA_WIDTH/8", ""},
		{"dma_wr_last", "output", fixed(1), "", ""},
	}},
	{"idle", ruleAxis, []want{{"idle", "output", fixed(1), "", ""}}},
}

// CheckWidth refuses a data width the convention does not allow.
func CheckWidth(dw int) error {
	if dw < 8 || dw > 512 || dw%8 != 0 {
		return fmt.Errorf("data width %d: the convention wants a multiple of 8, at most 512 (%s)", dw, ruleAxis)
	}
	return nil
}

// Check holds a top's ports to the port convention at data width dw and
// returns its shape. Every port that breaks a rule is reported, each
// error naming the port, the rule and where it is written down.
func Check(p *Ports, dw int) (Shape, error) {
	if err := CheckWidth(dw); err != nil {
		return Shape{}, err
	}
	s := Shape{DataWidth: dw}
	var errs []error
	known := map[string]bool{}
	// IN and OUT are read off tvalid, whose width is one bit per port.
	if v, ok := p.Find("s_axis_tvalid"); ok && !v.Unpacked {
		s.In = v.Width
	}
	if v, ok := p.Find("m_axis_tvalid"); ok && !v.Unpacked {
		s.Out = v.Width
	}
	for _, w := range mandatory {
		known[w.name] = true
		got, ok := p.Find(w.name)
		if !ok {
			who := "the convention wants it"
			if side, _, ok := strings.Cut(w.name, "_axis_"); ok {
				who = map[string]string{"s": "the input", "m": "the output"}[side] + " streams (" + side + "_axis_*) need it"
			}
			errs = append(errs, fmt.Errorf("no %s port %s: %s, an %s of %s (%s)", w.what, w.name, who, w.dir, bitsText(w, s), ruleAxis))
			continue
		}
		errs = append(errs, portErrors(got, w, s, ruleAxis)...)
	}
	for _, g := range groups {
		var have, missing []string
		for _, w := range g.ports {
			known[w.name] = true
			if _, ok := p.Find(w.name); ok {
				have = append(have, w.name)
			} else {
				missing = append(missing, w.name)
			}
		}
		if len(have) == 0 {
			continue
		}
		if len(missing) > 0 {
			errs = append(errs, fmt.Errorf("port %s: %s has all of its ports or none; missing %s (%s)",
				have[0], g.name, strings.Join(missing, ", "), g.rule))
			continue
		}
		for _, w := range g.ports {
			got, _ := p.Find(w.name)
			errs = append(errs, portErrors(got, w, s, g.rule)...)
		}
		switch g.name {
		case "the CSR bus":
			s.CSR = true
		case "the DMA port":
			s.DMA = true
		default:
			s.Idle = true
		}
	}
	var extra []string
	for _, q := range p.List {
		if !known[q.Name] {
			extra = append(extra, q.Name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		errs = append(errs, fmt.Errorf("port %s: not a port of the convention, and a model built by cosim model build binds no other (%s; a top with more ports needs a main of its own, sim/README.md, Adding a top)", name, ruleAxis))
	}
	return s, errors.Join(errs...)
}

// portErrors checks one port's direction, packing and width.
func portErrors(got Port, w want, s Shape, rule string) []error {
	var errs []error
	if got.Dir != w.dir {
		errs = append(errs, fmt.Errorf("port %s: an %s, the convention wants an %s (%s)", w.name, got.Dir, w.dir, rule))
	}
	if got.Unpacked {
		return append(errs, fmt.Errorf("port %s: an unpacked array, the convention wants a packed vector of %s (%s)", w.name, bitsText(w, s), rule))
	}
	if n := w.width(s); n > 0 && got.Width != n {
		errs = append(errs, fmt.Errorf("port %s: width %d, the convention wants %s (%s)", w.name, got.Width, bitsText(w, s), rule))
	}
	return errs
}

// bitsText says a port's width as the rule does, with its value when the
// shape is known: "IN*DATA_WIDTH = 2*64 = 128 bits".
func bitsText(w want, s Shape) string {
	n := w.width(s)
	switch {
	case w.says == "":
		if n == 1 {
			return "1 bit"
		}
		return fmt.Sprintf("%d bits", n)
	case n <= 0:
		return w.says + " bits"
	}
	unit := "bits"
	if n == 1 {
		unit = "bit"
	}
	vals := strings.NewReplacer("IN", fmt.Sprint(s.In), "OUT", fmt.Sprint(s.Out), "DATA_WIDTH", fmt.Sprint(s.DataWidth)).Replace(w.says)
	if vals == fmt.Sprint(n) {
		return fmt.Sprintf("%s = %d %s", w.says, n, unit)
	}
	return fmt.Sprintf("%s = %s = %d %s", w.says, vals, n, unit)
}
