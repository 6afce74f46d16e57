// Package campaign runs many scenarios times many seeds as one campaign:
// a campaign file says what (scenarios, seeds, a time limit per run), Plan
// expands it into runs, Generate writes the scenarios a generator makes
// from each run's seed (harness/scenario/generator), Local runs them on
// this machine over parallel workers, each in its own directory with its
// scenario, summary, report and the command that reruns it, and Merge
// sums a campaign directory up: one campaign summary, one JUnit XML with a
// suite per run, one page linking every run's report.
package campaign

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/rocesim/cosim/harness/inputfile"
	"github.com/rocesim/cosim/harness/mutant"
	"github.com/rocesim/cosim/harness/scenario"
	"github.com/rocesim/cosim/harness/scenario/generator"
)

// File is a campaign file.
type File struct {
	Path  string `toml:"-"`
	Name  string `toml:"name"`
	Seeds Seeds  `toml:"seeds"`
	// TimeLimit bounds each run ("10m"); a run past it is killed and
	// counted as timed out. Default 1h.
	TimeLimit string     `toml:"time_limit"`
	Scenarios []Scenario `toml:"scenario"`
	Mutants   []Mutant   `toml:"mutant"`
	limit     time.Duration
	at        *scenario.Scenario // locates keys in errors

	// NoPcap runs every run with cosim run --no-pcap: no capture per link,
	// which would take gigabytes in a campaign of millions of frames.
	NoPcap bool `toml:"no_pcap"`
}

// Seeds are Count seeds from From on.
type Seeds struct {
	From  uint64 `toml:"from"`
	Count int    `toml:"count"`
}

// Scenario is one [[scenario]]: a scenario file (relative to the campaign
// file), a built-in one by name ("default"), or a generator by name with
// its parameters, which makes each run's scenario from the run's seed.
type Scenario struct {
	File    string `toml:"file"`
	Builtin string `toml:"builtin"`

	// Generator names a generator (harness/scenario/generator); Params
	// are its parameters, the defaults standing for those left out.
	Generator string         `toml:"generator"`
	Params    map[string]any `toml:"params"`
	gen       *generator.Generator
}

// Mutant is one [[mutant]]: a planted bug from a device's catalogue of
// mutants (rtl/<device>/tb/mutants.toml, relative to the campaign file).
// The campaign's scenarios that run a model of that device run again, on
// every seed, on models built with the bug; the mutant is caught when one
// of those runs fails, and survives, failing the campaign, when none does.
type Mutant struct {
	Catalogue string `toml:"catalogue"`
	Name      string `toml:"name"`
	m         mutant.Mutant
	root      string // the catalogue's repository
}

// Builtin names the built-in default scenario in a campaign file.
const Builtin = "default"

// DefaultTimeLimit is a run's time limit when the file gives none.
const DefaultTimeLimit = time.Hour

// Load reads and checks a campaign file; its errors name the file, the
// line and the key, as the scenario parser's do.
func Load(path string) (*File, error) {
	data, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes and checks a campaign file; path names it in errors and
// anchors its scenario files.
func Parse(path string, data []byte) (*File, error) {
	c := &File{Path: path}
	at := &scenario.Scenario{File: path, Text: data} // locates keys as the scenario parser does
	c.at = at
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &scenario.Error{File: path, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		}
		return nil, &scenario.Error{File: path, Msg: err.Error()}
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, at.KeyError(und[0].String(), "unknown key")
	}
	bad := func(key, format string, args ...any) error { return at.KeyError(key, format, args...) }
	if c.Name == "" {
		c.Name = filepath.Base(path)
	}
	if c.Seeds.Count < 1 {
		return nil, bad("seeds", "seeds = { from = N, count = M } with count at least 1")
	}
	c.limit = DefaultTimeLimit
	if c.TimeLimit != "" {
		if c.limit, err = time.ParseDuration(c.TimeLimit); err != nil || c.limit <= 0 {
			return nil, bad("time_limit", "%q is not a positive duration such as \"10m\"", c.TimeLimit)
		}
	}
	if len(c.Scenarios) == 0 {
		return nil, bad("scenario", "at least one [[scenario]] with file, builtin or generator")
	}
	for i, s := range c.Scenarios {
		switch {
		case nonEmpty(s.File, s.Builtin, s.Generator) != 1:
			return nil, bad(fmt.Sprintf("scenario.%d", i), "[[scenario]] %d needs one of file, builtin or generator", i+1)
		case s.Params != nil && s.Generator == "":
			return nil, bad(fmt.Sprintf("scenario.%d.params", i), "params are a generator's: [[scenario]] %d has none", i+1)
		case s.Generator != "":
			if err := c.checkGenerator(at, i); err != nil {
				return nil, err
			}
		case s.Builtin != "" && s.Builtin != Builtin:
			return nil, bad(fmt.Sprintf("scenario.%d.builtin", i), "no built-in scenario %q (there is %q)", s.Builtin, Builtin)
		case s.File != "":
			p := s.File
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(path), p)
			}
			if _, err := scenario.Load(p); err != nil {
				return nil, fmt.Errorf("%s: [[scenario]] %d: %w", path, i+1, err)
			}
			if c.Scenarios[i].File, err = filepath.Abs(p); err != nil {
				return nil, err
			}
		}
	}
	seen := map[string]bool{}
	for i, m := range c.Mutants {
		key := fmt.Sprintf("mutant.%d", i)
		switch {
		case m.Catalogue == "" || m.Name == "":
			return nil, bad(key, "[[mutant]] %d needs catalogue (a mutants.toml) and name", i+1)
		case seen[m.Name]:
			return nil, bad(key+".name", "mutant %q twice", m.Name)
		}
		seen[m.Name] = true
		p := m.Catalogue
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(path), p)
		}
		cat, err := mutant.Load(p)
		if err != nil {
			return nil, bad(key+".catalogue", "%v", err)
		}
		if c.Mutants[i].m, err = cat.Mutant(m.Name); err != nil {
			return nil, bad(key+".name", "%v", err)
		}
		c.Mutants[i].root = cat.Root
	}
	return c, nil
}

// TimeLimitOf is the run time limit.
func (c *File) TimeLimitOf() time.Duration { return c.limit }

func nonEmpty(s ...string) int {
	n := 0
	for _, v := range s {
		if v != "" {
			n++
		}
	}
	return n
}

// checkGenerator finds [[scenario]] i's generator and checks its params
// by generating the first seed's scenario; a bad one is named as the
// file's other keys are (scenario[0].params.width).
func (c *File) checkGenerator(at *scenario.Scenario, i int) error {
	s := &c.Scenarios[i]
	g, err := generator.Lookup(s.Generator)
	if err != nil {
		return at.KeyError(fmt.Sprintf("scenario.%d.generator", i), "%v", err)
	}
	s.gen = g
	_, _, err = g.Generate(s.Params, c.Seeds.From)
	var pe *generator.ParamError
	if errors.As(err, &pe) {
		// The line of params: its keys are not lines of their own when
		// params is an inline table.
		e := at.KeyError(fmt.Sprintf("scenario.%d.params", i), "%s", pe.Msg)
		e.Key += "." + pe.Key
		return e
	}
	if err != nil {
		return at.KeyError(fmt.Sprintf("scenario.%d.generator", i), "%v", err)
	}
	return nil
}

// SetSeeds replaces the file's seeds (cosim campaign run --seed-from,
// --seed-count).
func (c *File) SetSeeds(from uint64, count int) error {
	if count < 1 {
		return fmt.Errorf("%d seeds: at least 1", count)
	}
	c.Seeds = Seeds{From: from, Count: count}
	return nil
}

// Set sets parameter key to value, as a command line writes it (cosim
// campaign run --set key=value), in every generator [[scenario]] whose
// generator takes key. None taking it is an error, as is a value one of
// them refuses.
func (c *File) Set(key, value string) error {
	n := 0
	for i := range c.Scenarios {
		s := &c.Scenarios[i]
		if s.gen == nil || !s.gen.Takes(key) {
			continue
		}
		v, err := s.gen.ParseValue(key, value)
		if err != nil {
			return err
		}
		params := maps.Clone(s.Params)
		if params == nil {
			params = map[string]any{}
		}
		params[key] = v
		if _, _, err := s.gen.Generate(params, c.Seeds.From); err != nil {
			return fmt.Errorf("[[scenario]] %d: %w", i+1, err)
		}
		s.Params = params
		n++
	}
	if n == 0 {
		var gens []string
		for _, s := range c.Scenarios {
			if s.gen != nil && !slices.Contains(gens, s.Generator) {
				gens = append(gens, s.Generator)
			}
		}
		if len(gens) == 0 {
			return fmt.Errorf("%s has no generator [[scenario]] whose %s it could set", c.Path, key)
		}
		return fmt.Errorf("no generator of %s takes %s (it has %s)", c.Path, key, strings.Join(gens, ", "))
	}
	return nil
}
