// Package junit writes JUnit XML, the test-result format CI systems
// (Jenkins, GitLab, GitHub) read, from the summaries of runs: one test
// suite per run, one test case per check it made: each link's scoreboard,
// each model's counters, each workload (its messages and memory), the
// inputs that got stuck, and the run itself (an error that broke it off).
// A failure carries its message, the problems in full and the command that
// reruns the run.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rocesim/cosim/harness/engine"
)

// Run is one run to report.
type Run struct {
	Summary *engine.Summary
	// Name names its suite; "" is "SCENARIO seed=N".
	Name string
	// Rerun is the command that reruns it, put in every failure.
	Rerun string
}

// The elements and attributes follow the JUnit schema Jenkins validates
// against (jenkinsci/xunit-plugin, junit-10.xsd): testsuite needs name,
// tests, failures and errors; testcase needs name; time is decimal seconds.
type (
	suites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Time     string   `xml:"time,attr"`
		Suites   []suite  `xml:"testsuite"`
	}
	suite struct {
		Name       string     `xml:"name,attr"`
		Tests      int        `xml:"tests,attr"`
		Failures   int        `xml:"failures,attr"`
		Errors     int        `xml:"errors,attr"`
		Skipped    int        `xml:"skipped,attr"`
		Time       string     `xml:"time,attr"`
		Properties []property `xml:"properties>property"`
		Cases      []testCase `xml:"testcase"`
	}
	property struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	testCase struct {
		Name      string   `xml:"name,attr"`
		ClassName string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *outcome `xml:"failure"`
		Error     *outcome `xml:"error"`
	}
	outcome struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// Suite is a suite of test cases that are not a run's checks: a
// campaign's mutants, each a case that fails when no run caught it.
type Suite struct {
	Name  string
	Cases []Case
}

// Case is one test case of a Suite; Failure, when set, is its message and
// Detail the failure's text.
type Case struct {
	Name, Failure, Detail string
}

// Write writes the runs as one JUnit XML document.
func Write(w io.Writer, runs ...Run) error { return WriteWith(w, runs, nil) }

// WriteWith writes the runs and then the other suites as one document.
func WriteWith(w io.Writer, runs []Run, other []Suite) error {
	doc := suites{Name: "cosim"}
	var total float64
	add := func(s suite) {
		doc.Suites = append(doc.Suites, s)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
	}
	for _, r := range runs {
		add(suiteOf(r))
		total += r.Summary.WallSeconds
	}
	for _, o := range other {
		s := suite{Name: o.Name, Time: seconds(0), Tests: len(o.Cases)}
		for _, c := range o.Cases {
			tc := testCase{Name: c.Name, ClassName: "cosim." + o.Name, Time: seconds(0)}
			if c.Failure != "" {
				tc.Failure = &outcome{Message: c.Failure, Type: "failure", Text: c.Detail}
				s.Failures++
			}
			s.Cases = append(s.Cases, tc)
		}
		add(s)
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func suiteOf(r Run) suite {
	sum := r.Summary
	name := r.Name
	if name == "" {
		name = fmt.Sprintf("%s seed=%d", sum.Scenario, sum.Seed)
	}
	s := suite{Name: name, Time: seconds(sum.WallSeconds), Properties: []property{
		{"scenario", sum.Scenario}, {"seed", strconv.FormatUint(sum.Seed, 10)},
		{"cycles", strconv.FormatUint(sum.Cycles, 10)}, {"rerun", r.Rerun},
	}}
	class := "cosim." + sum.Scenario
	add := func(group, name string, fail, err *outcome) {
		if fail != nil {
			fail.Text = strings.TrimRight(fail.Text, "\n") + "\nrerun with: " + r.Rerun + "\n"
			s.Failures++
		}
		if err != nil {
			err.Text = strings.TrimRight(err.Text, "\n") + "\nrerun with: " + r.Rerun + "\n"
			s.Errors++
		}
		s.Cases = append(s.Cases, testCase{Name: name, ClassName: class + "." + group, Time: "0", Failure: fail, Error: err})
		s.Tests++
	}

	// The run itself: an error broke it off (a model died, an interrupt).
	var broke *outcome
	if sum.Error != "" {
		broke = &outcome{Message: firstLine(sum.Error), Type: "run-error", Text: sum.Error}
	}
	add("run", "run", nil, broke)

	for _, l := range sum.Links {
		var f *outcome
		if bad := l.Mismatched + l.Missing + l.Unexpected; bad > 0 {
			f = &outcome{Type: "scoreboard", Message: fmt.Sprintf("%d mismatched, %d missing, %d unexpected; %d of %d expected frames matched",
				l.Mismatched, l.Missing, l.Unexpected, l.Matched, l.Expected)}
			f.Text = problemsOn(sum, l.Stream)
		}
		add("links", l.Stream, f, nil)
	}

	for _, m := range slices.Sorted(maps.Keys(sum.Counters)) {
		add("counters", m, counterFailure(sum.Counters[m]), nil)
	}

	for _, wl := range sum.Workloads {
		var lines []string
		for _, f := range sum.Workload {
			if strings.HasPrefix(f, wl+": ") {
				lines = append(lines, f)
			}
		}
		var f *outcome
		if len(lines) > 0 {
			f = &outcome{Type: "workload", Message: fmt.Sprintf("%d workload failures (messages, host or DUT memory)", len(lines)),
				Text: strings.Join(lines, "\n")}
		}
		add("workloads", wl, f, nil)
	}

	var stuck *outcome
	if sum.Stuck > 0 {
		stuck = &outcome{Type: "stuck-inputs", Message: fmt.Sprintf("%d inputs never took their frames", sum.Stuck)}
	}
	add("run", "inputs drained", stuck, nil)
	return s
}

// problemsOn lists the problems reported in full on one link.
func problemsOn(sum *engine.Summary, link string) string {
	var b strings.Builder
	for _, p := range sum.Problems {
		if p.Stream != link {
			continue
		}
		fmt.Fprintf(&b, "%s cycle=%d", p.Kind, p.Cycle)
		if p.Packet > 0 {
			fmt.Fprintf(&b, " packet=#%d", p.Packet)
		}
		if p.DUTFrame > 0 {
			fmt.Fprintf(&b, " dut_frame=#%d", p.DUTFrame)
		}
		if p.Cause != "" {
			fmt.Fprintf(&b, " cause=%s", p.Cause)
		}
		if p.File != "" {
			fmt.Fprintf(&b, " neighbourhood=%s", p.File)
		}
		b.WriteString("\n")
		for _, d := range p.Diffs {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	return b.String()
}

func counterFailure(ctrs map[string]engine.CounterPair) *outcome {
	names := make([]string, 0, len(ctrs))
	for n, p := range ctrs {
		if p.DUT != p.Golden {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s: DUT %d, golden %d\n", n, ctrs[n].DUT, ctrs[n].Golden)
	}
	return &outcome{Type: "counters", Message: fmt.Sprintf("%d counters differ from the golden model's", len(names)), Text: b.String()}
}

// seconds formats a duration as the schema's time: decimal, no exponent.
func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
