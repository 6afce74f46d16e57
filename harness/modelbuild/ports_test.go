package modelbuild

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A netlist as Verilator 5's --xml-only writes it: a packed 2-D port, an
// unpacked one, a scalar, and parameters.
const netlist = `<?xml version="1.0" ?>
<verilator_xml>
  <netlist>
    <module name="sub" origName="sub"><var name="x" dtype_id="3" dir="input"/></module>
    <module name="t" origName="t" topModule="1">
      <var name="DATA_WIDTH" dtype_id="1" vartype="int" param="true"><const name="32&apos;h20" dtype_id="2"/></var>
      <var name="PORTS" dtype_id="1" vartype="int" param="true"><const name="32&apos;sh2" dtype_id="2"/></var>
      <var name="clk" dtype_id="3" dir="input" vartype="logic"/>
      <var name="s_axis_tkeep" dtype_id="5" dir="input" vartype="unknown"/>
      <var name="s_axis_tready" dtype_id="6" dir="output" vartype="logic"/>
      <var name="s_axis_tvalid" dtype_id="7" dir="input" vartype="port"/>
      <var name="count" dtype_id="6"/>
    </module>
    <typetable>
      <basicdtype id="1" name="int" left="31" right="0" signed="true"/>
      <basicdtype id="2" name="logic" left="31" right="0" signed="true"/>
      <basicdtype id="3" name="logic"/>
      <basicdtype id="9" name="logic" left="3" right="0"/>
      <packarraydtype id="5" sub_dtype_id="9"><range><const name="32&apos;h1"/><const name="32&apos;sh0"/></range></packarraydtype>
      <basicdtype id="6" name="logic" left="1" right="0"/>
      <unpackarraydtype id="7" sub_dtype_id="3"><range><const name="32&apos;h0"/><const name="32&apos;h1"/></range></unpackarraydtype>
    </typetable>
  </netlist>
</verilator_xml>`

func TestParsePorts(t *testing.T) {
	p, err := parsePorts([]byte(netlist))
	require.NoError(t, err)
	assert.Equal(t, "t", p.Module)
	assert.Equal(t, map[string]string{"DATA_WIDTH": "32", "PORTS": "2"}, p.Params)
	assert.Equal(t, []Port{
		{Name: "clk", Dir: "input", Width: 1},
		{Name: "s_axis_tkeep", Dir: "input", Width: 8},
		{Name: "s_axis_tready", Dir: "output", Width: 2},
		{Name: "s_axis_tvalid", Dir: "input", Width: 2, Unpacked: true},
	}, p.List)
}

func TestParsePortsErrors(t *testing.T) {
	_, err := parsePorts([]byte("<verilator_xml><netlist></netlist></verilator_xml>"))
	assert.ErrorContains(t, err, "no top module")
	_, err = parsePorts([]byte(`<verilator_xml><netlist><module name="t" topModule="1"><var name="a" dtype_id="4" dir="input"/></module><typetable><classrefdtype id="4"/></typetable></netlist></verilator_xml>`))
	assert.ErrorContains(t, err, "port a: a port of type classrefdtype")
	_, err = parsePorts([]byte("<verilator_xml"))
	assert.ErrorContains(t, err, "Verilator's XML")
}

func TestLiteral(t *testing.T) {
	for s, want := range map[string]int64{"32'h1f": 31, "32'sh2": 2, "8'd9": 9, "1'b1": 1, "4'o17": 15, "12": 12, "16'hff_ff": 65535} {
		got, err := literal(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	for _, s := range []string{"32'", "32'x1", "abc"} {
		_, err := literal(s)
		assert.Error(t, err, s)
	}
}
