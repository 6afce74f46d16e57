package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
)

// passTop is a one-port top in the port convention, its input wired to
// its output; without clk when noClock.
func passTop(t *testing.T, noClock bool) string {
	clk, unused := "input wire logic clk,", "rst ^ clk"
	if noClock {
		clk, unused = "", "rst"
	}
	src := `module pass_top #(parameter int DATA_WIDTH = 64) (
    ` + clk + ` input wire logic rst,
    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata, input wire logic [DATA_WIDTH/8-1:0] s_axis_tkeep,
    input  wire logic s_axis_tvalid, output wire logic s_axis_tready,
    input  wire logic s_axis_tlast, input wire logic s_axis_tuser,
    output wire logic [DATA_WIDTH-1:0] m_axis_tdata, output wire logic [DATA_WIDTH/8-1:0] m_axis_tkeep,
    output wire logic m_axis_tvalid, input wire logic m_axis_tready,
    output wire logic m_axis_tlast, output wire logic m_axis_tuser);
    assign m_axis_tdata = s_axis_tdata;
    assign m_axis_tkeep = s_axis_tkeep;
    assign m_axis_tvalid = s_axis_tvalid;
    assign s_axis_tready = m_axis_tready;
    assign m_axis_tlast = s_axis_tlast;
    assign m_axis_tuser = s_axis_tuser;
    wire unused = ` + unused + `;
endmodule
`
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pass_top.sv"), []byte(src), 0o644))
	return dir
}

func needVerilator(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("verilator"); err != nil {
		if os.Getenv(cmodeltest.RequireEnv) == "1" {
			t.Fatal("verilator is not installed (make deps)")
		}
		t.Skip("verilator is not installed (make deps)")
	}
}

func TestModelBuild(t *testing.T) {
	needVerilator(t)
	out := t.TempDir()
	code, stdout, stderr := cosim(t, "model", "build", "--top", "pass_top", "--src", passTop(t, false), "--width", "32",
		"--name", "pass", "--out", out)
	require.Equal(t, 0, code, "%s", stderr)
	bin := filepath.Join(out, "pass_32", "Vpass_top")
	assert.Contains(t, stdout, "model pass_32: "+bin+" (1 in, 1 out, DATA_WIDTH 32; no optional port)")
	info, err := exec.Command(bin, "--info").Output()
	require.NoError(t, err)
	assert.Contains(t, string(info), "name=pass_32\n")
}

// A top that breaks the convention is bad input (exit 2), named port by
// port; nothing is built.
func TestModelBuildBrokenTop(t *testing.T) {
	needVerilator(t)
	out := t.TempDir()
	code, stdout, stderr := cosim(t, "model", "build", "--top", "pass_top", "--src", passTop(t, true), "--out", out)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "cosim: model build: top pass_top breaks the port convention:\n"+
		"no clock port clk: the convention wants it, an input of 1 bit (sim/README.md, Port convention)")
	ents, _ := os.ReadDir(out)
	assert.Empty(t, ents)
	assert.Equal(t, 2, strings.Count(stderr, "\n"), "two lines: %s", stderr)
}

// A top that Verilator's -Wall warns about is not built, as the project's
// own are not: the build fails (exit 1) with Verilator's warning.
func TestModelBuildFailsOnALintWarning(t *testing.T) {
	needVerilator(t)
	dir := passTop(t, false)
	src := filepath.Join(dir, "pass_top.sv")
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(src, []byte(strings.Replace(string(data), "rst ^ clk", "rst", 1)), 0o644))
	code, _, stderr := cosim(t, "model", "build", "--top", "pass_top", "--src", dir, "--out", t.TempDir())
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "%Warning-UNUSEDSIGNAL")
	assert.Contains(t, stderr, "cosim: model build: make -f ")
}
