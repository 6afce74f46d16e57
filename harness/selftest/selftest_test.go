package selftest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/wirecheck"
	"github.com/rocesim/cosim/harness/framegen"
	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/selftest"
)

// wantSamples is every known opcode in every encapsulation, one PFC frame
// per priority and one PAUSE frame.
var wantSamples = len(framegen.KnownOpCodes())*len(framegen.Encaps) + pfc.NumPriorities + 1

func TestRunPasses(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 3, 7, 42, 1 << 63} {
		var log bytes.Buffer
		res, err := selftest.Run(seed, "", &log)
		require.NoError(t, err, "seed %d", seed)
		require.NotNil(t, res)
		assert.True(t, res.Pass(), "seed %d: %v", seed, res.Failures)
		assert.Empty(t, res.Failures, "seed %d", seed)
		assert.Equal(t, wantSamples, res.Samples, "seed %d", seed)
		assert.Equal(t, res.Samples, res.SamplesOK, "seed %d", seed)
		// Every sample has a corruption that applies to it (a flipped bit
		// for RoCEv2, a reserved bit or opcode for MAC control).
		assert.Equal(t, res.Samples, res.Corrupted, "seed %d", seed)
		assert.Equal(t, res.Corrupted, res.CorruptedSeen, "seed %d", seed)
		assert.Empty(t, log.String(), "seed %d: nothing is written without a directory", seed)
	}
}

func TestResultPass(t *testing.T) {
	assert.True(t, (&selftest.Result{}).Pass())
	assert.False(t, (&selftest.Result{Failures: []string{"x"}}).Pass())
}

func TestRunWritesCaptures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "selftest") // created by Run
	var log bytes.Buffer
	res, err := selftest.Run(3, dir, &log)
	require.NoError(t, err)
	require.True(t, res.Pass(), "%v", res.Failures)
	assert.Contains(t, log.String(), filepath.Join(dir, "samples.pcap"))
	assert.Contains(t, log.String(), filepath.Join(dir, "corrupted.pcap"))

	c := wirecheck.NewChecker()
	samples, err := pcapio.ReadAll(filepath.Join(dir, "samples.pcap"))
	require.NoError(t, err)
	require.Len(t, samples, res.Samples)
	kinds := map[wirecheck.Kind]int{}
	for _, p := range samples {
		assert.False(t, p.Truncated())
		r := c.Check(p.Data)
		assert.True(t, r.OK(), "sample %d: %s: %v", p.Index, r.Summary(), r.Problems)
		kinds[r.Kind]++
	}
	assert.Equal(t, map[wirecheck.Kind]int{
		wirecheck.KindRoCE:       len(framegen.KnownOpCodes()) * len(framegen.Encaps),
		wirecheck.KindMACControl: pfc.NumPriorities + 1,
	}, kinds)

	bad, err := pcapio.ReadAll(filepath.Join(dir, "corrupted.pcap"))
	require.NoError(t, err)
	require.Len(t, bad, res.Corrupted)
	seen := map[string]bool{}
	for _, p := range bad {
		r := c.Check(p.Data)
		assert.False(t, r.OK(), "corrupted %d: %s passes", p.Index, r.Summary())
		assert.NotEqual(t, wirecheck.KindOther, r.Kind, "corrupted %d", p.Index)
		for _, pr := range r.Problems {
			seen[pr.Code] = true
		}
	}
	// Every kind of corruption of the README shows up.
	for _, code := range []string{wirecheck.CodeICRC, wirecheck.CodeTVer, wirecheck.CodeIPv4Checksum,
		wirecheck.CodeUDPLength, wirecheck.CodePadCount, wirecheck.CodeTruncated,
		"pfc-" + pfc.CodeEnableReserved, "pfc-" + pfc.CodeUnknownOpcode} {
		assert.True(t, seen[code], "no corrupted frame reported with %q", code)
	}
}

func TestRunIsDeterministic(t *testing.T) {
	read := func(seed uint64) (samples, corrupted []byte) {
		dir := t.TempDir()
		res, err := selftest.Run(seed, dir, &bytes.Buffer{})
		require.NoError(t, err)
		require.True(t, res.Pass(), "%v", res.Failures)
		samples, err = os.ReadFile(filepath.Join(dir, "samples.pcap"))
		require.NoError(t, err)
		corrupted, err = os.ReadFile(filepath.Join(dir, "corrupted.pcap"))
		require.NoError(t, err)
		return samples, corrupted
	}
	s1, c1 := read(9)
	s2, c2 := read(9)
	assert.True(t, bytes.Equal(s1, s2), "samples.pcap differs between two runs with seed 9")
	assert.True(t, bytes.Equal(c1, c2), "corrupted.pcap differs between two runs with seed 9")
	s3, c3 := read(10)
	assert.False(t, bytes.Equal(s1, s3), "seeds 9 and 10 give the same samples")
	assert.False(t, bytes.Equal(c1, c3), "seeds 9 and 10 give the same corruptions")
}

func TestRunReportsUnwritableDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	res, err := selftest.Run(1, filepath.Join(file, "sub"), &bytes.Buffer{})
	require.Error(t, err)
	assert.Nil(t, res)
	assert.Contains(t, err.Error(), "file")
}
