package modelbuild

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// Port is one port of a top as Verilator elaborated it.
type Port struct {
	Name  string
	Dir   string // "input", "output" or "inout"
	Width int    // bits, packed dimensions multiplied out
	// Unpacked is set for a port with an unpacked dimension, which no
	// convention port may have (the adapters see flat vectors).
	Unpacked bool
}

// Ports is what Verilator says of a top: its ports in declaration order
// and its parameters with their elaborated values.
type Ports struct {
	Module string
	List   []Port
	Params map[string]string
}

// Find returns the port called name.
func (p *Ports) Find(name string) (Port, bool) {
	for _, q := range p.List {
		if q.Name == name {
			return q, true
		}
	}
	return Port{}, false
}

// The parts of Verilator's --xml-only netlist that hold a top's ports:
// the top module's vars (a port has dir, a parameter param="true") and
// the type table their dtype_id points into.
type xmlNetlist struct {
	Modules []xmlModule `xml:"netlist>module"`
	Types   xmlTypes    `xml:"netlist>typetable"`
}

type xmlModule struct {
	Name string   `xml:"name,attr"`
	Top  string   `xml:"topModule,attr"`
	Vars []xmlVar `xml:"var"`
}

type xmlVar struct {
	Name  string    `xml:"name,attr"`
	Dir   string    `xml:"dir,attr"`
	Type  string    `xml:"dtype_id,attr"`
	Param string    `xml:"param,attr"`
	Value *xmlConst `xml:"const"`
}

type xmlConst struct {
	Name string `xml:"name,attr"` // a sized literal: 32'h40, 32'sh2
}

type xmlRange struct {
	Consts []xmlConst `xml:"const"`
}

type xmlType struct {
	XMLName xml.Name
	ID      string     `xml:"id,attr"`
	Left    *int       `xml:"left,attr"`
	Right   *int       `xml:"right,attr"`
	Sub     string     `xml:"sub_dtype_id,attr"`
	Range   *xmlRange  `xml:"range"`
	Members []xmlField `xml:"memberdtype"`
}

type xmlField struct {
	Type string `xml:"sub_dtype_id,attr"`
}

type xmlTypes struct {
	List []xmlType `xml:",any"`
}

// parsePorts reads the ports of the top module out of Verilator's
// --xml-only output.
func parsePorts(data []byte) (*Ports, error) {
	var n xmlNetlist
	if err := xml.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("Verilator's XML: %w", err)
	}
	types := map[string]xmlType{}
	for _, t := range n.Types.List {
		types[t.ID] = t
	}
	for _, m := range n.Modules {
		if m.Top != "1" {
			continue
		}
		p := &Ports{Module: m.Name, Params: map[string]string{}}
		for _, v := range m.Vars {
			if v.Param == "true" {
				if v.Value != nil {
					if x, err := literal(v.Value.Name); err == nil {
						p.Params[v.Name] = strconv.FormatInt(x, 10)
					}
				}
				continue
			}
			if v.Dir == "" {
				continue
			}
			w, unpacked, err := width(types, v.Type, 0)
			if err != nil {
				return nil, fmt.Errorf("port %s: %w", v.Name, err)
			}
			p.List = append(p.List, Port{Name: v.Name, Dir: v.Dir, Width: w, Unpacked: unpacked})
		}
		return p, nil
	}
	return nil, fmt.Errorf("Verilator's XML has no top module")
}

// width is the number of bits of a type: a basic type's [left:right]
// (one bit without a range), a packed array's elements times its range,
// a packed struct's members summed; unpacked says an unpacked array was
// met on the way.
func width(types map[string]xmlType, id string, depth int) (bits int, unpacked bool, err error) {
	t, ok := types[id]
	if !ok || depth > 32 {
		return 0, false, fmt.Errorf("type %q is not in Verilator's type table", id)
	}
	switch t.XMLName.Local {
	case "basicdtype":
		if t.Left == nil || t.Right == nil {
			return 1, false, nil
		}
		return abs(*t.Left-*t.Right) + 1, false, nil
	case "refdtype", "enumdtype":
		return width(types, t.Sub, depth+1)
	case "packarraydtype", "unpackarraydtype":
		sub, un, err := width(types, t.Sub, depth+1)
		if err != nil {
			return 0, false, err
		}
		if t.Range == nil || len(t.Range.Consts) != 2 {
			return 0, false, fmt.Errorf("an array of type %s without a constant range", id)
		}
		l, errL := literal(t.Range.Consts[0].Name)
		r, errR := literal(t.Range.Consts[1].Name)
		if errL != nil || errR != nil {
			return 0, false, fmt.Errorf("an array range %s:%s that is not a number", t.Range.Consts[0].Name, t.Range.Consts[1].Name)
		}
		return sub * (abs(int(l-r)) + 1), un || t.XMLName.Local == "unpackarraydtype", nil
	case "structdtype":
		sum := 0
		for _, m := range t.Members {
			w, un, err := width(types, m.Type, depth+1)
			if err != nil {
				return 0, false, err
			}
			sum += w
			unpacked = unpacked || un
		}
		return sum, unpacked, nil
	}
	return 0, false, fmt.Errorf("a port of type %s, which the convention's flat vectors cannot be", t.XMLName.Local)
}

// literal reads a Verilog sized literal as Verilator writes constants,
// 32'h1f, 32'sh2, 8'd9 or 1'b1.
func literal(s string) (int64, error) {
	_, v, ok := strings.Cut(s, "'")
	if !ok {
		return strconv.ParseInt(s, 10, 64)
	}
	v = strings.TrimPrefix(strings.ToLower(v), "s")
	if v == "" {
		return 0, fmt.Errorf("literal %q", s)
	}
	base := map[byte]int{'h': 16, 'd': 10, 'b': 2, 'o': 8}[v[0]]
	if base == 0 {
		return 0, fmt.Errorf("literal %q", s)
	}
	x, err := strconv.ParseUint(strings.ReplaceAll(v[1:], "_", ""), base, 64)
	return int64(x), err
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
