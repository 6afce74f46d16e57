package modeltest

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The soak campaigns (make soak, not make test) of the switch
// (rtl/switch/tb) and of the NIC (rtl/nic/tb) share their
// settings: COSIM_SOAK_SEEDS seeds from COSIM_SOAK_SEED, each campaign's
// size per run, and COSIM_SOAK_OUT for each run's output.

// SoakRun runs a soak campaign's scenario, given as TOML text, on seed;
// its frame or message count bounds it, not its cycles. No capture of
// millions of frames: with COSIM_SOAK_OUT set (make soak sets out/soak),
// every run keeps its output in a directory named after the test, with the
// scenario as run, so that a failure (its mismatch files are there) is
// rerun with captures by cosim run DIR/scenario.toml --seed N. Bounded by
// soakBound instead of Run's three minutes, which a campaign of ten million
// frames outlasts; the harness's own stall detection still ends a run that
// stops moving.
func SoakRun(t *testing.T, toml string, seed uint64) {
	t.Helper()
	toml = cyclesLine.ReplaceAllString(toml, "cycles = 1_125_899_906_842_624 # 2^50: the count bounds the run")
	cfg := Config(t, Scenario(t, toml), seed)
	if root := os.Getenv("COSIM_SOAK_OUT"); root != "" {
		cfg.OutDir = filepath.Join(root, strings.ReplaceAll(t.Name(), "/", "_"))
		require.NoError(t, os.RemoveAll(cfg.OutDir))
		require.NoError(t, os.MkdirAll(cfg.OutDir, 0o755))
	}
	file := filepath.Join(cfg.OutDir, "scenario.toml")
	require.NoError(t, os.WriteFile(file, []byte(toml), 0o644))
	cfg.NoLinkPcaps = true
	s, err := RunWithin(t, cfg, soakBound)
	if err != nil || s == nil || !s.Pass {
		t.Logf("rerun with every link captured: cosim run %s --seed %d", file, seed)
	}
	RequirePass(t, s, err)
}

// cyclesLine is a scenario's top-level cycles key.
var cyclesLine = regexp.MustCompile(`(?m)^cycles = .*$`)

const soakBound = 2 * time.Hour

// SoakCampaign reads a campaign's size per run from the environment
// variable count, skipping the test when it is not set, and its seeds:
// COSIM_SOAK_SEEDS of them (default 4) from COSIM_SOAK_SEED (default 1).
func SoakCampaign(t *testing.T, count string) (int, []uint64) {
	t.Helper()
	n := soakEnv(t, count, 0)
	if n == 0 {
		t.Skipf("a soak campaign: set %s (make soak does)", count)
	}
	first, k := soakEnv(t, "COSIM_SOAK_SEED", 1), soakEnv(t, "COSIM_SOAK_SEEDS", 4)
	seeds := make([]uint64, k)
	for i := range seeds {
		seeds[i] = uint64(first + i)
	}
	return n, seeds
}

// soakEnv reads a positive integer from the environment.
func soakEnv(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a whole number", name, v)
	}
	return n
}
