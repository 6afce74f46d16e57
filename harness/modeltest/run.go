package modeltest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
)

// Scenario reads a scenario from TOML text, named after the test.
func Scenario(tb testing.TB, text string) *scenario.Scenario {
	tb.Helper()
	sc, err := scenario.Parse(strings.ReplaceAll(tb.Name(), "/", "_")+".toml", []byte(text))
	require.NoError(tb, err)
	return sc
}

// Config is a run of sc with seed into a fresh directory, with the models
// the scenario names (which must be built) from Dir.
func Config(tb testing.TB, sc *scenario.Scenario, seed uint64) engine.Config {
	tb.Helper()
	var names []string
	for _, m := range sc.Models {
		names = append(names, fmt.Sprintf("%s_%d", m.Top, m.DataWidth))
	}
	return engine.Config{Scenario: sc, Seed: seed, OutDir: tb.TempDir(), ModelDir: NeedModels(tb, names...)}
}

// Run runs cfg with a generous bound; the harness must never hang.
func Run(tb testing.TB, cfg engine.Config) (*engine.Summary, error) {
	tb.Helper()
	return RunWithin(tb, cfg, 3*time.Minute)
}

// RunWithin runs cfg, giving up after bound, and logs the summary.
func RunWithin(tb testing.TB, cfg engine.Config, bound time.Duration) (*engine.Summary, error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	start := time.Now()
	s, err := engine.Run(ctx, cfg)
	tb.Logf("%s seed %d: %.2fs", cfg.Scenario.Name, cfg.Seed, time.Since(start).Seconds())
	if s != nil {
		tb.Logf("cycles %d windows %d in %d out %d matched %d mismatched %d missing %d unexpected %d drops %v faults %v",
			s.Cycles, s.Windows, s.FramesIn, s.FramesOut, s.Matched, s.Mismatched, s.Missing, s.Unexpected, s.Drops, s.Faults)
		// Summed, non-zero, "!" where one differs; RequirePass names it.
		tb.Logf("counters %s", strings.Join(s.CounterLines(), "; "))
	}
	return s, err
}

// RequirePass checks a completed, passing run: every frame out matched,
// nothing missing or unexpected, every counter equal to the golden one.
func RequirePass(tb testing.TB, s *engine.Summary, err error) {
	tb.Helper()
	require.NoError(tb, err)
	require.NotNil(tb, s)
	assert.Zero(tb, s.Mismatched, "mismatched")
	assert.Zero(tb, s.Missing, "missing")
	assert.Zero(tb, s.Unexpected, "unexpected")
	assert.Zero(tb, s.Stuck, "stuck inputs")
	assert.Zero(tb, s.CounterFails, "counter mismatches")
	assert.Empty(tb, s.Workload, "workload failures")
	assert.Equal(tb, s.FramesOut, s.Matched, "every frame out matched")
	assert.Positive(tb, s.Matched)
	for model, ctrs := range s.Counters {
		for name, p := range ctrs {
			assert.Equal(tb, p.Golden, p.DUT, "counter %s.%s", model, name)
		}
	}
	require.True(tb, s.Pass, "run failed: %s", s.Error)
}

// Counter returns a DUT counter after checking that it equals the golden.
func Counter(tb testing.TB, s *engine.Summary, model, name string) uint64 {
	tb.Helper()
	p, ok := s.Counters[model][name]
	require.True(tb, ok, "no counter %s.%s in %v", model, name, s.Counters)
	require.Equal(tb, p.Golden, p.DUT, "counter %s.%s DUT vs golden", model, name)
	return p.DUT
}
