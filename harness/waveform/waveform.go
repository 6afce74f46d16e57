// Package waveform puts the waveform of a run's first problem beside its
// neighbourhood capture: it reruns the run (same scenario, seed and inputs,
// so the same cycles) with FST tracing on only in a window of cycles
// around the problem, in the model that emitted the frame and the model
// that consumes that port, and writes a GTKWave save file that opens on
// their AXI-Stream ports with a marker at the problem's cycle.
package waveform

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rocesim/cosim/harness/engine"
)

// Defaults of Options: the cycles traced before and after the problem.
const (
	DefaultBefore = 2000
	DefaultAfter  = 300
)

// Options bound the window.
type Options struct {
	Before, After uint64
}

// resetCycles is sim.h's Sim::kResetCycles: in a trace, cycle c starts at
// (c+8) ns (sim/README.md, Time).
const resetCycles = 8

// Rerun traces the window around sum's first problem and records the
// result in sum.Waveforms; a run without problems has nothing to trace.
// cfg is the run's own configuration; the rerun writes its scratch files
// under cfg.OutDir and removes them.
func Rerun(ctx context.Context, cfg engine.Config, sum *engine.Summary, opt Options) error {
	if len(sum.Problems) == 0 {
		return nil
	}
	if opt.Before == 0 && opt.After == 0 {
		opt = Options{Before: DefaultBefore, After: DefaultAfter}
	}
	p := sum.Problems[0]
	producer, port := streamModel(p.Stream)
	if producer == "" {
		return fmt.Errorf("waveform: cannot tell the model of link %q", p.Stream)
	}
	base := "mismatch-001"
	if p.File != "" {
		base = strings.TrimSuffix(p.File, filepath.Ext(p.File))
	}
	w := engine.Waveform{Problem: 1, Cycle: p.Cycle, From: p.Cycle - min(p.Cycle, opt.Before), To: p.Cycle + opt.After,
		Files: map[string]string{producer: base + ".fst"}}
	if consumer := consumerOf(cfg, producer, port); consumer != "" && consumer != producer {
		w.Files[consumer] = base + "." + consumer + ".fst"
	}
	scratch, err := os.MkdirTemp(cfg.OutDir, ".rerun-")
	if err != nil {
		return fmt.Errorf("waveform: %w", err)
	}
	defer os.RemoveAll(scratch)

	sc := *cfg.Scenario
	sc.Cycles = min(sc.Cycles, w.To) // nothing after the window is needed
	re := cfg
	re.Scenario, re.OutDir, re.Report, re.Progress = &sc, scratch, io.Discard, nil
	re.Trace, re.NoLinkPcaps = false, true
	re.TraceWindow = &engine.TraceWindow{From: w.From, To: w.To, Files: map[string]string{}}
	for m, f := range w.Files {
		re.TraceWindow.Files[m] = filepath.Join(cfg.OutDir, f)
	}
	got, err := engine.Run(ctx, re)
	if got == nil {
		return fmt.Errorf("waveform: rerun: %w", err)
	}
	// The rerun stops at the window's end, so it may end with work left;
	// what matters is that it met the same problem at the same cycle.
	w.Reproduced = len(got.Problems) > 0 && got.Problems[0].Kind == p.Kind &&
		got.Problems[0].Stream == p.Stream && got.Problems[0].Cycle == p.Cycle
	for m, f := range w.Files {
		if _, err := os.Stat(filepath.Join(cfg.OutDir, f)); err != nil {
			return fmt.Errorf("waveform: model %s wrote no trace: %w", m, err)
		}
	}
	w.SaveFile = base + ".gtkw"
	names := signals(filepath.Join(cfg.OutDir, w.Files[producer]))
	if err := os.WriteFile(filepath.Join(cfg.OutDir, w.SaveFile), saveFile(w, producer, names), 0o644); err != nil {
		return fmt.Errorf("waveform: %w", err)
	}
	w.View = fmt.Sprintf("gtkwave %s %s", filepath.Join(cfg.OutDir, w.Files[producer]), filepath.Join(cfg.OutDir, w.SaveFile))
	sum.Waveforms = append(sum.Waveforms, w)
	return nil
}

// streamModel splits "sw.out2" or "nic0.out1[qp 0x000101]" into the model
// and its output port.
func streamModel(stream string) (string, int) {
	model, rest, ok := strings.Cut(stream, ".out")
	if !ok {
		return "", 0
	}
	var port int
	fmt.Sscanf(rest, "%d", &port)
	return model, port
}

// consumerOf is the model at the other end of producer's output port, if
// a link goes there.
func consumerOf(cfg engine.Config, producer string, port int) string {
	from := fmt.Sprintf("%s.out%d", producer, port)
	for _, l := range cfg.Scenario.Links {
		if l.From == from {
			to, _, _ := strings.Cut(l.To, ".")
			return to
		}
	}
	return ""
}

// saveFile is a GTKWave save file for the producer's trace: its clock and
// reset, its output and input AXI-Stream buses, the window shown, and a
// marker at the problem's cycle. Times are in the trace's picoseconds.
func saveFile(w engine.Waveform, producer string, names map[string]string) []byte {
	ps := func(c uint64) uint64 { return (c + resetCycles) * 1000 }
	var b strings.Builder
	fmt.Fprintf(&b, "[dumpfile] \"%s\"\n", w.Files[producer])
	fmt.Fprintf(&b, "[timestart] %d\n", ps(w.From))
	// Zoom, then the primary marker at the problem's first beat.
	fmt.Fprintf(&b, "*-12.000000 %d -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n", ps(w.Cycle))
	// A vector's name carries its range ("TOP.m_axis_tdata[255:0]").
	name := func(s string) string {
		if n, ok := names[s]; ok {
			return n
		}
		return "TOP." + s
	}
	fmt.Fprintf(&b, "@28\n%s\n%s\n", name("clk"), name("rst"))
	for _, dir := range []string{"m_axis", "s_axis"} {
		fmt.Fprintf(&b, "-%s\n", dir)
		b.WriteString("@28\n")
		for _, s := range []string{"tvalid", "tready", "tlast", "tuser"} {
			fmt.Fprintf(&b, "%s\n", name(dir+"_"+s))
		}
		b.WriteString("@22\n")
		for _, s := range []string{"tkeep", "tdata"} {
			fmt.Fprintf(&b, "%s\n", name(dir+"_"+s))
		}
	}
	return []byte(b.String())
}

// signals reads the top-level signal names of an FST with GTKWave's
// fst2vcd, "tdata" -> "TOP.tdata[255:0]"; without fst2vcd, none.
func signals(fst string) map[string]string {
	names := map[string]string{}
	cmd := exec.Command("fst2vcd", fst)
	out, err := cmd.StdoutPipe()
	if err != nil || cmd.Start() != nil {
		return names
	}
	defer cmd.Wait()
	defer cmd.Process.Kill() // the header is all it needs
	sc := bufio.NewScanner(out)
	depth := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) > 0 && f[0] == "$enddefinitions":
			return names
		case len(f) > 0 && f[0] == "$scope":
			depth++
		case len(f) > 0 && f[0] == "$upscope":
			depth--
		case depth == 1 && len(f) >= 6 && f[0] == "$var":
			// $var wire 256 # m_axis_tdata [255:0] $end
			n := "TOP." + f[4]
			if f[5] != "$end" {
				n += f[5]
			}
			names[f[4]] = n
		}
	}
	return names
}
