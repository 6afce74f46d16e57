package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"

	"github.com/rocesim/cosim/harness/coverage"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/junit"
)

// Merged is campaign.json: the campaign's verdict and every run's.
type Merged struct {
	Runs     int         `json:"runs"`
	Passed   int         `json:"passed"`
	Failed   int         `json:"failed"`
	TimedOut int         `json:"timed_out"`
	Pending  int         `json:"pending"` // runs started and never ended (a campaign stopped)
	Failures []MergedRun `json:"failures"`
	All      []MergedRun `json:"all"` // the mutants' runs too
	// Mutants: each [[mutant]] and whether a run caught it. Their runs
	// are not counted above: they are meant to fail.
	Mutants  []MergedMutant `json:"mutants"`
	Survived int            `json:"survived"`
	// Coverage: the golden-side bins hit and missed over the runs
	// (coverage.json has every bin with its hits).
	Coverage struct {
		Hit   int      `json:"hit"`
		Total int      `json:"total"`
		Holes []string `json:"holes"`
		Unmet []string `json:"unmet_goals,omitempty"`
	} `json:"coverage"`
	// RTLCoverage: the Verilator coverage of the runs' models merged, when
	// they wrote any (campaign run --coverage; rtlcoverage.go).
	RTLCoverage *RTLCoverage `json:"rtl_coverage,omitempty"`
}

// MergedRun is one run in campaign.json.
type MergedRun struct {
	ID       string `json:"id"`
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Exit     int    `json:"exit"`
	TimedOut bool   `json:"timed_out,omitempty"`
	Error    string `json:"error,omitempty"`
	Rerun    string `json:"rerun"`
	Report   string `json:"report,omitempty"` // relative to the campaign directory
	Mutant   string `json:"mutant,omitempty"`

	// Description: what a generated scenario holds (its generator's line).
	Description string `json:"description,omitempty"`
}

// MergedMutant is one mutant in campaign.json: caught by the first of its
// runs that failed (its rerun command reproduces the failure), or
// survived when every one of its runs passed.
type MergedMutant struct {
	Name     string `json:"name"`
	Bug      string `json:"bug"`
	Runs     int    `json:"runs"`
	Caught   bool   `json:"caught"`
	CaughtBy string `json:"caught_by,omitempty"` // the run
	Error    string `json:"error,omitempty"`     // how it failed
	Rerun    string `json:"rerun,omitempty"`
}

// Files Merge writes into the campaign directory.
const (
	CoverageFile = "coverage.json"
	MergedFile   = "campaign.json"
	JUnitFile    = "junit.xml"
	IndexFile    = "index.html"
)

// Merge sums up the campaign directory dir: campaign.json, junit.xml (a
// suite per run), coverage.json (the golden-side bins over the runs; goals,
// if given, are checked) and index.html (a line per run, linking its
// report, and the coverage holes).
func Merge(dir string, goals *coverage.Goals) (*Merged, error) {
	ids, err := runIDs(dir)
	if err != nil {
		return nil, fmt.Errorf("campaign merge: %s holds no runs/: %w", dir, err)
	}
	m := &Merged{Failures: []MergedRun{}, All: []MergedRun{}, Mutants: []MergedMutant{}}
	var suites []junit.Run
	var bins []map[string]uint64
	for _, id := range ids {
		rd := filepath.Join(dir, "runs", id)
		var o Outcome
		b, err := os.ReadFile(filepath.Join(rd, OutcomeFile))
		if err != nil {
			m.Pending++
			continue
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return nil, fmt.Errorf("campaign merge: %s: %w", filepath.Join(rd, OutcomeFile), err)
		}
		mr := MergedRun{ID: id, Scenario: o.Scenario, Seed: o.Seed, Exit: o.Exit, TimedOut: o.TimedOut, Rerun: o.Rerun,
			Mutant: o.Mutant, Description: o.Description}
		if mr.Scenario == "" {
			mr.Scenario = Builtin
		}
		if exists(filepath.Join(rd, "report.html")) {
			mr.Report = filepath.Join("runs", id, "report.html")
		}
		var sum engine.Summary
		if b, err := os.ReadFile(filepath.Join(rd, "summary.json")); err == nil && json.Unmarshal(b, &sum) == nil {
			mr.Error = sum.Error
			if mr.Error == "" && !sum.Pass {
				mr.Error = sum.Tally()
			}
			if o.Mutant == "" { // a mutant's run covers buggy RTL
				bins = append(bins, coverage.Bins(&sum))
			}
		} else {
			// No summary: the run died before writing one (killed at its
			// limit, say). It still gets its suite, as an error.
			sum = engine.Summary{Scenario: mr.Scenario, Seed: o.Seed, Error: "no summary.json: see " + filepath.Join(rd, o.Log)}
			mr.Error = sum.Error
		}
		if o.TimedOut && sum.Error == "" {
			sum.Error = "killed at the campaign's time limit"
			mr.Error = sum.Error
		}
		m.All = append(m.All, mr)
		if o.Mutant != "" {
			m.mutantRun(o, mr)
			continue // a mutant's run is meant to fail: its verdict is the mutant's
		}
		suites = append(suites, junit.Run{Summary: &sum, Name: fmt.Sprintf("run %s: %s seed=%d", id, mr.Scenario, o.Seed), Rerun: o.Rerun})
		m.Runs++
		switch {
		case o.TimedOut:
			m.TimedOut++
			m.Failures = append(m.Failures, mr)
		case o.Exit == 0:
			m.Passed++
		default:
			m.Failed++
			m.Failures = append(m.Failures, mr)
		}
	}
	var mutants junit.Suite
	for _, mm := range m.Mutants {
		c := junit.Case{Name: mm.Name}
		if !mm.Caught {
			m.Survived++
			c.Failure = fmt.Sprintf("mutant %s survived its %d runs", mm.Name, mm.Runs)
			c.Detail = "the planted bug: " + mm.Bug + "\nno run failed: the campaign's scenarios miss this bug"
		}
		mutants.Cases = append(mutants.Cases, c)
	}
	cov := coverage.Merge(bins)
	m.Coverage.Hit, m.Coverage.Total, m.Coverage.Holes = cov.Hit, cov.Total, cov.Holes
	if goals != nil {
		m.Coverage.Unmet = goals.Unmet(cov)
	}
	if m.RTLCoverage, err = MergeRTLCoverage(dir); err != nil {
		return nil, err
	}
	for name, v := range map[string]any{CoverageFile: cov, MergedFile: m} {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			return nil, err
		}
	}
	var x bytes.Buffer
	var other []junit.Suite
	if len(mutants.Cases) > 0 {
		mutants.Name = "mutants"
		other = append(other, mutants)
	}
	if err := junit.WriteWith(&x, suites, other); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, JUnitFile), x.Bytes(), 0o644); err != nil {
		return nil, err
	}
	var h bytes.Buffer
	if err := index.Execute(&h, m); err != nil {
		return nil, err
	}
	return m, os.WriteFile(filepath.Join(dir, IndexFile), h.Bytes(), 0o644)
}

// mutantRun counts one of a mutant's runs: the first that failed caught it.
func (m *Merged) mutantRun(o Outcome, mr MergedRun) {
	i := slices.IndexFunc(m.Mutants, func(x MergedMutant) bool { return x.Name == o.Mutant })
	if i < 0 {
		m.Mutants = append(m.Mutants, MergedMutant{Name: o.Mutant, Bug: o.Bug})
		i = len(m.Mutants) - 1
	}
	mm := &m.Mutants[i]
	mm.Runs++
	if (o.Exit != 0 || o.TimedOut) && !mm.Caught {
		mm.Caught, mm.CaughtBy, mm.Rerun = true, mr.ID, mr.Rerun
		if mm.Error = mr.Error; mm.Error == "" {
			mm.Error = fmt.Sprintf("exit %d", o.Exit)
		}
	}
}

var index = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>campaign: {{.Passed}} of {{.Runs}} passed</title>
<style>body{font-family:sans-serif;margin:1.5em auto;max-width:60em}table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left}tr.bad td{background:#fde8e8}code{background:#f4f4f4}</style>
</head><body>
<h1>{{.Passed}} of {{.Runs}} runs passed{{if .Failed}}, {{.Failed}} failed{{end}}{{if .TimedOut}}, {{.TimedOut}} timed out{{end}}{{if .Pending}}, {{.Pending}} never ended{{end}}</h1>
<table id="runs"><tr><th>run</th><th>scenario</th><th>seed</th><th>verdict</th><th>rerun</th></tr>
{{range .All}}<tr{{if and (or .Exit .TimedOut) (not .Mutant)}} class="bad"{{end}}><td>{{if .Report}}<a href="{{.Report}}">{{.ID}}</a>{{else}}{{.ID}}{{end}}</td>
<td>{{.Scenario}}{{if .Mutant}} (mutant {{.Mutant}}){{end}}{{if .Description}}<br><small>{{.Description}}</small>{{end}}</td><td>{{.Seed}}</td><td>{{if and .Mutant (or .Exit .TimedOut)}}caught: {{end}}{{if .TimedOut}}timed out{{else if .Exit}}failed (exit {{.Exit}}){{if .Error}}: {{.Error}}{{end}}{{else}}passed{{end}}</td>
<td><code>{{.Rerun}}</code></td></tr>
{{end}}</table>
{{if .Mutants}}<h2>Mutants: {{len .Mutants}}{{if .Survived}}, {{.Survived}} survived{{end}}</h2>
<table id="mutants"><tr><th>mutant</th><th>the planted bug</th><th>runs</th><th>verdict</th><th>rerun</th></tr>
{{range .Mutants}}<tr{{if not .Caught}} class="bad"{{end}}><td>{{.Name}}</td><td>{{.Bug}}</td><td>{{.Runs}}</td>
<td>{{if .Caught}}caught by run {{.CaughtBy}}: {{.Error}}{{else}}SURVIVED{{end}}</td><td>{{if .Rerun}}<code>{{.Rerun}}</code>{{end}}</td></tr>
{{end}}</table>{{end}}
<h2>Functional coverage (golden models' event counters)</h2>
<p id="coverage">{{.Coverage.Hit}} of {{.Coverage.Total}} bins hit.{{if .Coverage.Unmet}} <b>Goals not met: {{range .Coverage.Unmet}}{{.}} {{end}}</b>{{end}}</p>
{{if .Coverage.Holes}}<details><summary>{{len .Coverage.Holes}} holes: bins no run hit</summary><ul>{{range .Coverage.Holes}}<li>{{.}}</li>{{end}}</ul></details>{{end}}
{{with .RTLCoverage}}<h2>RTL coverage (Verilator)</h2>
<p id="rtl-coverage"><a href="{{.HTML}}">{{.Lines.Hit}} of {{.Lines.Total}} lines</a>, {{.Functions.Hit}} of {{.Functions.Total}} functions (lcov: <a href="{{.Info}}">coverage.info</a>), from {{.Files}} coverage files.
Points hit: {{range $k, $v := .Points}}{{$k}} {{$v.Hit}} of {{$v.Total}}; {{end}}</p>
<table id="cover-points"><tr><th>module</th><th>cover point</th><th>cycles hit</th></tr>
{{range .Covers}}<tr{{if not .Hits}} class="bad"{{end}}><td>{{.Module}}</td><td>{{.Name}}</td><td>{{.Hits}}</td></tr>
{{end}}</table>{{end}}
</body></html>
`))
