package report

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/rocesim/cosim/harness/engine"
)

// Plot sizes: wide enough for a hundred bins, short enough to scroll by.
const (
	plotW = 18 * vg.Centimeter
	plotH = 8 * vg.Centimeter
)

// maxSeries bounds the lines one plot draws: past it, the largest go in
// and the plot says how many it left out.
const maxSeries = 12

// series is one line of a plot over time: a value per bin.
type series struct {
	name   string
	values []float64
	x      []float64 // the time of each value in us, if not a bin's
	total  float64   // what orders series when there are too many
}

// timeAxis turns bins into microseconds, and labels ticks with cycles too.
type timeAxis struct {
	clockMHz float64
	width    uint64 // cycles per bin
}

func (a timeAxis) us(bin int) float64 { return (float64(bin) + 0.5) * float64(a.width) / a.clockMHz }

// Ticks labels each default tick "T µs" over "C cyc".
func (a timeAxis) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = fmt.Sprintf("%s µs\n%.0f cyc", ts[i].Label, ts[i].Value*a.clockMHz)
		}
	}
	return ts
}

func newPlot(title, ylabel string, a timeAxis) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.X.Label.Text = "simulated time"
	p.X.Tick.Marker = a
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	return p
}

// linePlot draws series over time; nil when every value is zero. A
// series' values are per bin of the time axis, unless it has its own x.
func linePlot(title, ylabel string, a timeAxis, ss []series) (template.HTML, string, error) {
	ss, left := biggest(ss)
	if len(ss) == 0 {
		return "", "", nil
	}
	p := newPlot(title, ylabel, a)
	for i, s := range ss {
		xys := make(plotter.XYs, len(s.values))
		for b, v := range s.values {
			x := a.us(b)
			if s.x != nil {
				x = s.x[b]
			}
			xys[b] = plotter.XY{X: x, Y: v}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return "", "", err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / len(plotutil.DefaultColors))
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	note := ""
	if left > 0 {
		note = fmt.Sprintf("the %d largest shown, %d more with less", len(ss), left)
	}
	svg, err := render(p)
	return svg, note, err
}

// biggest keeps the series with anything in them, the largest maxSeries.
func biggest(ss []series) ([]series, int) {
	var out []series
	for _, s := range ss {
		for _, v := range s.values {
			s.total += v
		}
		if s.total > 0 {
			out = append(out, s)
		}
	}
	if len(out) <= maxSeries {
		return out, 0
	}
	ranked := append([]series(nil), out...)
	// Stable by name among equals: the report is the same run after run.
	for i := 1; i < len(ranked); i++ {
		for j := i; j > 0 && ranked[j].total > ranked[j-1].total; j-- {
			ranked[j], ranked[j-1] = ranked[j-1], ranked[j]
		}
	}
	keep := map[string]bool{}
	for _, s := range ranked[:maxSeries] {
		keep[s.name] = true
	}
	var kept []series
	for _, s := range out {
		if keep[s.name] {
			kept = append(kept, s)
		}
	}
	return kept, len(out) - maxSeries
}

// pausePlot draws each PFC pause as a bar on its link and priority's row.
func pausePlot(a timeAxis, ps []pause) (template.HTML, error) {
	if len(ps) == 0 {
		return "", nil
	}
	rows := map[string]int{}
	var names []string
	for _, q := range ps {
		k := fmt.Sprintf("%s prio %d", q.link, q.prio)
		if _, ok := rows[k]; !ok {
			rows[k] = len(names)
			names = append(names, k)
		}
	}
	p := newPlot("PFC pauses each link's sender asks of its receiver (XOFF to XON or expiry)", "", a)
	for _, q := range ps {
		y := float64(rows[fmt.Sprintf("%s prio %d", q.link, q.prio)])
		l, err := plotter.NewLine(plotter.XYs{{X: float64(q.start) / a.clockMHz, Y: y}, {X: float64(q.end) / a.clockMHz, Y: y}})
		if err != nil {
			return "", err
		}
		l.Width = vg.Points(6)
		l.Color = plotutil.Color(q.prio)
		p.Add(l)
	}
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = vg.Points(6)
	p.Legend = plot.NewLegend()
	return render(p)
}

// latencyPlot draws a workload's completion latency histogram, cycles on a
// log scale.
func latencyPlot(name string, st *engine.LatencyStats) (template.HTML, error) {
	if st == nil || len(st.Histogram) == 0 {
		return "", nil
	}
	h := &plotter.Histogram{FillColor: plotutil.Color(0), LineStyle: plotter.DefaultLineStyle}
	for _, b := range st.Histogram {
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: float64(max(b.Lo, 1)), Max: float64(b.Hi), Weight: float64(b.Count)})
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: completion latency, post to completion (p50 %d, p99 %d cycles)", name, st.P50, st.P99)
	p.X.Label.Text = "cycles"
	p.Y.Label.Text = "work requests"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(h)
	return render(p)
}

// render writes p as inline SVG (the XML declaration dropped).
func render(p *plot.Plot) (template.HTML, error) {
	c := vgsvg.New(plotW, plotH)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s), nil // drawn from numbers and model names, which are [A-Za-z0-9_-]
}
