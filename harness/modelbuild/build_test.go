package modelbuild

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
)

// needVerilator skips without Verilator, or fails under
// COSIM_REQUIRE_MODELS=1 (make test), as a missing model does.
func needVerilator(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("verilator"); err != nil {
		if os.Getenv(cmodeltest.RequireEnv) == "1" {
			t.Fatal("verilator is not installed (make deps)")
		}
		t.Skip("verilator is not installed (make deps)")
	}
}

// loopTop is a top of PORTS ports, each input wired to its output through
// one register, with a CSR bus answering ID; the header declares its
// ports as the body names them, so a test can break them one at a time.
const loopTop = `
module loop_top #(parameter int DATA_WIDTH = 64, parameter int PORTS = 2) (
    input  wire logic                            clk,
    input  wire logic                            rst,
    input  wire logic [PORTS-1:0][DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [PORTS*DATA_WIDTH/8-1:0]   s_axis_tkeep,
    input  wire logic [PORTS-1:0]                s_axis_tvalid,
    output wire logic [PORTS-1:0]                s_axis_tready,
    input  wire logic [PORTS-1:0]                s_axis_tlast,
    input  wire logic [PORTS-1:0]                s_axis_tuser,
    output      logic [PORTS*DATA_WIDTH-1:0]     m_axis_tdata,
    output      logic [PORTS*DATA_WIDTH/8-1:0]   m_axis_tkeep,
    output      logic [PORTS-1:0]                m_axis_tvalid,
    MTREADY
    output      logic [PORTS-1:0]                m_axis_tlast,
    output      logic [PORTS-1:0]                m_axis_tuser,
    input  wire logic [15:0]                     csr_addr,
    input  wire logic [31:0]                     csr_wdata,
    input  wire logic                            csr_we,
    input  wire logic                            csr_re,
    output      logic [31:0]                     csr_rdata,
    output      logic                            csr_rvalid
);
    wire unused = ^{csr_addr, csr_wdata, csr_we};
    assign s_axis_tready = ~m_axis_tvalid | READY;
    always_ff @(posedge clk) begin
        for (int p = 0; p < PORTS; p++) begin
            if (s_axis_tready[p]) begin
                m_axis_tdata[p*DATA_WIDTH +: DATA_WIDTH] <= s_axis_tdata[p];
                m_axis_tkeep[p*DATA_WIDTH/8 +: DATA_WIDTH/8] <= s_axis_tkeep[p*DATA_WIDTH/8 +: DATA_WIDTH/8];
                m_axis_tvalid[p] <= s_axis_tvalid[p];
                m_axis_tlast[p] <= s_axis_tlast[p];
                m_axis_tuser[p] <= s_axis_tuser[p];
            end
        end
        csr_rvalid <= csr_re;
        csr_rdata  <= 32'h4c4f4f50;
        if (rst) begin
            m_axis_tvalid <= '0;
            csr_rvalid    <= 1'b0;
        end
    end
endmodule
`

const goodTready = "input  wire logic [PORTS-1:0]                m_axis_tready,"

// writeTop writes loopTop, its m_axis_tready declared as given, into a
// directory of its own; without one the outputs are always ready.
func writeTop(t *testing.T, tready string) string {
	dir := t.TempDir()
	ready := "m_axis_tready"
	if tready == "" {
		ready = "'1"
	}
	src := strings.Replace(strings.Replace(loopTop, "MTREADY", tready, 1), "READY", ready, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "loop_top.sv"), []byte(src), 0o644))
	return dir
}

func repo(t *testing.T) string {
	r, err := FindRepo(context.Background(), "")
	require.NoError(t, err)
	return r
}

// A real build: the program says the shape the ports gave, and runs
// frames through in raw mode with its output checked against its input.
func TestBuildRunsAModel(t *testing.T) {
	needVerilator(t)
	out, src := t.TempDir(), writeTop(t, goodTready)
	var log bytes.Buffer
	m, err := Build(context.Background(), Spec{Top: "loop_top", Sources: []string{src},
		Params: []string{"PORTS=3"}, Width: 32, Name: "loop", Out: out, Repo: repo(t)}, &log, &log)
	require.NoError(t, err, "%s", log.String())
	assert.Equal(t, "loop_32", m.Name)
	assert.Equal(t, filepath.Join(out, "loop_32", "Vloop_top"), m.Path)
	assert.Equal(t, Shape{In: 3, Out: 3, DataWidth: 32, CSR: true}, m.Shape)

	info, err := exec.Command(m.Path, "--info").Output()
	require.NoError(t, err)
	for _, line := range []string{"name=loop_32", "top=loop_top", "param.PORTS=3", "param.DATA_WIDTH=32", "csr=1", "idle=0"} {
		assert.Contains(t, strings.Split(string(info), "\n"), line)
	}
	raw, err := exec.Command(m.Path, "--raw", "200", "--size", "61", "--check").CombinedOutput()
	require.NoError(t, err, "%s", raw)
	assert.Contains(t, string(raw), "check ok")

	// Built again unchanged, it is not rebuilt; a parameter changed, it is.
	log.Reset()
	_, err = Build(context.Background(), Spec{Top: "loop_top", Sources: []string{src},
		Params: []string{"PORTS=3"}, Width: 32, Name: "loop", Out: out, Repo: repo(t)}, &log, &log)
	require.NoError(t, err)
	assert.NotContains(t, log.String(), "BUILD")
	m, err = Build(context.Background(), Spec{Top: "loop_top", Sources: []string{src},
		Params: []string{"PORTS=1"}, Width: 32, Name: "loop", Out: out, Repo: repo(t)}, &log, &log)
	require.NoError(t, err)
	assert.Contains(t, log.String(), "BUILD    loop_32")
	info, err = exec.Command(m.Path, "--info").Output()
	require.NoError(t, err)
	assert.Contains(t, string(info), "param.PORTS=1")
}

// Errors from Verilator's own view of a top: the port convention broken
// at a width the parameters give, and a top Verilator cannot read.
func TestBuildRefusesABrokenTop(t *testing.T) {
	needVerilator(t)
	for _, c := range []struct {
		name, tready string
		params       []string
		want         string
	}{
		{"no tready for the outputs", "", nil,
			"no tready port m_axis_tready: the output streams (m_axis_*) need it, an input of OUT = 2 bits (sim/README.md, Port convention)"},
		{"tready one port wide", "input wire logic m_axis_tready,", []string{"PORTS=4"},
			"port m_axis_tready: width 1, the convention wants OUT = 4 bits (sim/README.md, Port convention)"},
		{"tready as an output", "output logic [PORTS-1:0] m_axis_tready,", nil,
			"port m_axis_tready: an output, the convention wants an input (sim/README.md, Port convention)"},
		{"a syntax error", "input wire logic [PORTS-1:0] m_axis_tready", nil, "verilator could not read top loop_top"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log bytes.Buffer
			_, err := Build(context.Background(), Spec{Top: "loop_top", Sources: []string{writeTop(t, c.tready)},
				Params: c.params, Width: 64, Out: t.TempDir(), Repo: repo(t)}, &log, &log)
			require.Error(t, err)
			var in *InputError
			assert.True(t, errors.As(err, &in), "%v is an InputError", err)
			assert.Contains(t, err.Error(), c.want)
			assert.Empty(t, log.String(), "nothing is built")
		})
	}
}

// Bad arguments are refused before Verilator runs.
func TestBuildRefusesBadArguments(t *testing.T) {
	src := writeTop(t, goodTready)
	for _, c := range []struct {
		name string
		spec Spec
		want string
	}{
		{"no top", Spec{Sources: []string{src}, Width: 64}, `--top "": a Verilog module name is wanted`},
		{"no sources", Spec{Top: "loop_top", Width: 64}, "no sources"},
		{"missing source", Spec{Top: "loop_top", Sources: []string{filepath.Join(src, "nope")}, Width: 64}, "no such file"},
		{"empty directory", Spec{Top: "loop_top", Sources: []string{t.TempDir()}, Width: 64}, "no .sv or .v file there"},
		{"odd width", Spec{Top: "loop_top", Sources: []string{src}, Width: 60}, "data width 60: the convention wants a multiple of 8"},
		{"bad name", Spec{Top: "loop_top", Sources: []string{src}, Width: 64, Name: "a-b"}, `--name "a-b"`},
		{"bad param", Spec{Top: "loop_top", Sources: []string{src}, Width: 64, Params: []string{"PORTS"}}, `--param "PORTS": NAME=VALUE`},
		{"bad define", Spec{Top: "loop_top", Sources: []string{src}, Width: 64, Defines: []string{"A B"}}, `--define "A B"`},
		{"space in out", Spec{Top: "loop_top", Sources: []string{src}, Width: 64, Out: filepath.Join(t.TempDir(), "a b")}, "a path with a space"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Build(context.Background(), c.spec, nil, nil)
			require.Error(t, err)
			var in *InputError
			assert.True(t, errors.As(err, &in), "%v is an InputError", err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestBuildRefusesDisagreeingWidths(t *testing.T) {
	needVerilator(t)
	_, err := Build(context.Background(), Spec{Top: "loop_top", Sources: []string{writeTop(t, goodTready)},
		Params: []string{"DATA_WIDTH=32"}, Width: 64, Out: t.TempDir(), Repo: repo(t)}, nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--param DATA_WIDTH=32 and --width 64 disagree")
}

func TestFindRepo(t *testing.T) {
	// From this package's directory, go list -m finds the module: the
	// repository root, two levels up.
	want, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	assert.Equal(t, want, repo(t))

	got, err := FindRepo(context.Background(), filepath.Join("..", ".."))
	require.NoError(t, err)
	assert.Equal(t, want, got)

	_, err = FindRepo(context.Background(), t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no sim/build.mk there")

	t.Setenv(RepoEnv, t.TempDir())
	_, err = FindRepo(context.Background(), "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "$"+RepoEnv)
}
