package campaign

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// RTL coverage: the runs of a campaign run with --coverage each leave the
// Verilator coverage of their models in runs/<id>/coverage/<model>.dat
// (harness/engine, RTLCoverage). MergeRTLCoverage adds them up with
// verilator_coverage into coverage/merged.dat, exports that as lcov
// (coverage/coverage.info) and as HTML (genhtml, coverage/html/), and
// reads the totals and the RTL's cover points back for campaign.json and
// index.html.

// Where MergeRTLCoverage writes, under the campaign directory.
const (
	RTLCoverageDir  = "coverage"
	RTLMergedFile   = "coverage/merged.dat"
	RTLInfoFile     = "coverage/coverage.info"
	RTLHTMLDir      = "coverage/html"
	RTLHTMLIndex    = "coverage/html/index.html"
	mergeBatchFiles = 200 // coverage files per verilator_coverage call
)

// RTLCoverage is campaign.json's rtl_coverage: what the runs' models
// covered of the RTL, merged.
type RTLCoverage struct {
	Files  int    `json:"files"`  // coverage files merged (one per model per run)
	Merged string `json:"merged"` // the merged data, relative to the campaign directory
	Info   string `json:"info"`   // the same as lcov tracefile
	HTML   string `json:"html"`   // genhtml's report
	// Lines and Functions are the lcov totals genhtml shows: source lines
	// with a coverage point, and those whose points were all hit (the
	// tracefile's DA lines); Verilator's export has no functions.
	Lines     Ratio `json:"lines"`
	Functions Ratio `json:"functions"`
	// Points counts Verilator's points by kind: line, branch, toggle and
	// user (the RTL's cover properties).
	Points map[string]Ratio `json:"points"`
	// Covers are the cover properties, by module and label in source
	// order, with the cycles they held summed over every run and instance;
	// NeverHit lists the ones no run hit, as "module.label".
	Covers   []CoverPoint `json:"cover_points"`
	NeverHit []string     `json:"never_hit"`
}

// Ratio is hit of total.
type Ratio struct {
	Hit   int `json:"hit"`
	Total int `json:"total"`
}

// CoverPoint is one cover property of the RTL.
type CoverPoint struct {
	Module string `json:"module"`
	Name   string `json:"name"` // its label: cov_...
	File   string `json:"file"`
	Line   int    `json:"line"`
	Hits   uint64 `json:"hits"`
}

// RTLCoverageFiles lists the runs' coverage files under the campaign
// directory dir, in run order.
func RTLCoverageFiles(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, "runs", "*", "coverage", "*.dat"))
}

// MergeRTLCoverage merges the runs' coverage files of the campaign in dir
// (nil when there are none) and writes coverage/merged.dat,
// coverage/coverage.info and coverage/html/. It needs verilator_coverage
// (Debian's verilator) and genhtml (Debian's lcov).
func MergeRTLCoverage(dir string) (*RTLCoverage, error) {
	files, err := RTLCoverageFiles(dir)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	vc, err := tool("verilator_coverage", "verilator")
	if err != nil {
		return nil, err
	}
	genhtml, err := tool("genhtml", "lcov")
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, RTLCoverageDir)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	// Many runs are merged in batches: a command line has its limits.
	inputs := files
	var parts []string
	defer func() {
		for _, p := range parts {
			os.Remove(p)
		}
	}()
	for len(inputs) > mergeBatchFiles {
		var next []string
		for i := 0; i < len(inputs); i += mergeBatchFiles {
			p := filepath.Join(out, fmt.Sprintf(".part-%d-%d.dat", len(parts), i))
			parts = append(parts, p)
			if err := run(vc, append([]string{"--write", p}, inputs[i:min(i+mergeBatchFiles, len(inputs))]...)...); err != nil {
				return nil, err
			}
			next = append(next, p)
		}
		inputs = next
	}
	merged, info := filepath.Join(dir, RTLMergedFile), filepath.Join(dir, RTLInfoFile)
	if err := run(vc, append([]string{"--write", merged, "--write-info", info}, inputs...)...); err != nil {
		return nil, err
	}
	html := filepath.Join(dir, RTLHTMLDir)
	if err := os.RemoveAll(html); err != nil { // no pages of an earlier merge
		return nil, err
	}
	c := &RTLCoverage{Files: len(files), Merged: RTLMergedFile, Info: RTLInfoFile, HTML: RTLHTMLIndex}
	var sources []string
	if c.Lines, c.Functions, sources, err = readInfo(info); err != nil {
		return nil, err
	}
	// The sources' common directory (the repository's, as the coverage
	// build names them by absolute path) is left out of the names shown.
	args := []string{"--quiet", "--title", "cosim campaign: RTL coverage", "--output-directory", html}
	if p := commonDir(sources); p != "" {
		args = append(args, "--prefix", p)
	}
	if err := run(genhtml, append(args, info)...); err != nil {
		return nil, err
	}
	if c.Points, c.Covers, err = ReadCoverageData(merged); err != nil {
		return nil, err
	}
	c.NeverHit = []string{}
	for _, p := range c.Covers {
		if p.Hits == 0 {
			c.NeverHit = append(c.NeverHit, p.Module+"."+p.Name)
		}
	}
	return c, nil
}

// tool finds a program, or says which Debian package has it.
func tool(name, pkg string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("campaign merge: RTL coverage needs %s, which is not on PATH: install Debian's %s package (make deps does)", name, pkg)
	}
	return p, nil
}

func run(prog string, args ...string) error {
	cmd := exec.Command(prog, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("campaign merge: %s %s: %v\n%s", filepath.Base(prog), strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

// readInfo totals an lcov tracefile as genhtml does: DA lines (hit when
// their count is not 0) and FNF/FNH; and lists its source files.
func readInfo(path string) (lines, funcs Ratio, sources []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return lines, funcs, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "DA:"):
			lines.Total++
			if f := strings.Split(l[3:], ","); len(f) >= 2 && f[1] != "0" {
				lines.Hit++
			}
		case strings.HasPrefix(l, "FNF:"):
			n, _ := strconv.Atoi(l[4:])
			funcs.Total += n
		case strings.HasPrefix(l, "FNH:"):
			n, _ := strconv.Atoi(l[4:])
			funcs.Hit += n
		case strings.HasPrefix(l, "SF:"):
			sources = append(sources, l[3:])
		}
	}
	return lines, funcs, sources, sc.Err()
}

// commonDir is the deepest directory that holds every one of the absolute
// paths; "" when they are relative or share only the root.
func commonDir(paths []string) string {
	var common []string
	for i, p := range paths {
		if !filepath.IsAbs(p) {
			return ""
		}
		dir := strings.Split(filepath.Dir(p), string(filepath.Separator))
		if i == 0 {
			common = dir
			continue
		}
		n := 0
		for n < len(common) && n < len(dir) && common[n] == dir[n] {
			n++
		}
		common = common[:n]
	}
	if len(common) <= 1 {
		return ""
	}
	return strings.Join(common, string(filepath.Separator))
}

// ReadCoverageData reads a Verilator coverage file (coverage.dat format:
// "C '<key>' <count>" lines, the key's fields \x01<name>\x02<value>): the
// points per kind (the "page" field's v_<kind>) and the cover properties
// (page v_user/<module>, label in the "o" field), summed over instances
// and sorted by module and source line.
func ReadCoverageData(path string) (map[string]Ratio, []CoverPoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	kinds := map[string]Ratio{}
	covers := map[[2]string]*CoverPoint{}
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "C '") {
			continue
		}
		end := strings.LastIndexByte(l, '\'')
		if end <= 3 {
			continue
		}
		count, err := strconv.ParseUint(strings.TrimSpace(l[end+1:]), 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: bad count in %q", path, l)
		}
		fields := map[string]string{}
		for _, kv := range strings.Split(l[3:end], "\x01") {
			if k, v, ok := strings.Cut(kv, "\x02"); ok {
				fields[k] = v
			}
		}
		kind, module, _ := strings.Cut(fields["page"], "/")
		kind = strings.TrimPrefix(kind, "v_")
		// a parameterised module's name has Verilator's suffix: switch_decide__pi5
		module, _, _ = strings.Cut(module, "__")
		if kind == "" {
			continue
		}
		r := kinds[kind]
		r.Total++
		if count > 0 {
			r.Hit++
		}
		kinds[kind] = r
		if kind == "user" {
			k := [2]string{module, fields["o"]}
			if covers[k] == nil {
				line, _ := strconv.Atoi(fields["l"])
				covers[k] = &CoverPoint{Module: module, Name: fields["o"], File: fields["f"], Line: line}
			}
			covers[k].Hits += count
		}
	}
	var points []CoverPoint
	for _, p := range covers {
		points = append(points, *p)
	}
	sort.Slice(points, func(i, j int) bool {
		if points[i].Module != points[j].Module {
			return points[i].Module < points[j].Module
		}
		return points[i].Line < points[j].Line
	})
	return kinds, points, nil
}

// runArgs are the cosim arguments of run r in dir: Run.Args, and
// --coverage when the campaign measures RTL coverage, but for a mutant's
// runs: its RTL is not the design's, and its models are built without.
func (l Local) runArgs(r Run, dir string) []string {
	args := r.Args(dir, l.Models)
	if l.Coverage && r.Mutant == "" {
		args = append(args, "--coverage")
	}
	return args
}

// taskArgs are the arguments of "cosim campaign task" that carry the
// campaign's settings to a Slurm array task.
func (l Local) taskArgs() []string {
	if l.Coverage {
		return []string{"--coverage"}
	}
	return nil
}
