package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/modeltest"
	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scenario/generator"
)

// Open loop, the engine sends the next window before it has the replies
// to the last one (pipelined windows). The windows and every result must
// be those of lock step: summary.json (but for the wall clock) and every
// pcapng file byte for byte. Short windows make many of them, with quiet
// stretches between bursts where lock step skips ahead.
func TestPipelinedSameAsLockStep(t *testing.T) {
	cases := map[string]func(t *testing.T) engine.Config{
		"switch4_64_l2": func(t *testing.T) engine.Config {
			cfg := modeltest.Config(t, modeltest.Scenario(t, generator.SwitchTraffic("switch4", 4, 64, 600, generator.SwitchConfigs[64])), 5)
			cfg.MaxWindow = 1500
			return cfg
		},
		"switch4_512_l2": func(t *testing.T) engine.Config {
			cfg := modeltest.Config(t, modeltest.Scenario(t, generator.SwitchTraffic("switch4", 4, 512, 600, generator.SwitchConfigs[512])), 6)
			cfg.MaxWindow = 700
			return cfg
		},
		"switch4_512_pcap": func(t *testing.T) engine.Config {
			cfg := modeltest.Config(t, modeltest.Scenario(t, pcapSwitchTOML(t, 512, 64, 3000)), 1)
			cfg.MaxWindow = 300
			return cfg
		},
		// A link of 100 cycles and windows of at most 30: a window may go
		// ahead only while nothing the oldest in flight emits can reach it.
		"icrc_link": func(t *testing.T) engine.Config {
			cfg := modeltest.Config(t, modeltest.Scenario(t, linkTOML), 3)
			cfg.MaxWindow = 30
			return cfg
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			var dirs []string
			var sums []*engine.Summary
			for _, lockStep := range []bool{true, false} {
				cfg := mk(t)
				cfg.NoPipeline = lockStep
				dirs, sums = append(dirs, cfg.OutDir), append(sums, runCountingAhead(t, cfg))
			}
			assertSameRuns(t, dirs, sums)
		})
	}
}

// runCountingAhead runs cfg, which must pass, and checks the windows sent
// ahead: none in lock step, most otherwise.
func runCountingAhead(t *testing.T, cfg engine.Config) *engine.Summary {
	t.Helper()
	before := engine.SentAhead()
	s, err := modeltest.Run(t, cfg)
	modeltest.RequirePass(t, s, err)
	ahead := engine.SentAhead() - before
	if cfg.NoPipeline {
		assert.Zero(t, ahead)
	} else {
		assert.Greater(t, ahead, uint64(s.Windows/3), "most windows go out ahead (%d of %d)", ahead, s.Windows)
	}
	return s
}

// assertSameRuns checks that two runs had the same windows and wrote the
// same summary.json (but for the wall clock) and pcapng files.
func assertSameRuns(t *testing.T, dirs []string, sums []*engine.Summary) {
	t.Helper()
	assert.Equal(t, sums[0].Windows, sums[1].Windows, "the same windows")
	assert.JSONEq(t, string(zeroWall(t, dirs[0])), string(zeroWall(t, dirs[1])), "summary.json")
	files := modeltest.LinkFiles(t, dirs[0])
	assert.Len(t, modeltest.LinkFiles(t, dirs[1]), len(files))
	for _, f := range files {
		a, err := os.ReadFile(f)
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], filepath.Base(f)))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(a, b), "%s differs", filepath.Base(f))
	}
}

// pcapSwitchTOML is the benchmark's scenario: n frames of size bytes into
// every port of the 4-port switch, back to back.
func pcapSwitchTOML(t *testing.T, width, size, n int) string {
	toml := fmt.Sprintf("name = \"pipe-switch\"\ncycles = 1_000_000_000_000\n[[model]]\nname = \"dut\"\ntop = \"switch4\"\ndata_width = %d\n", width)
	for port := range 4 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("in%d.pcap", port))
		require.NoError(t, pcapio.WritePcap(path, rawFrames(n, size, port)))
		toml += fmt.Sprintf("[[traffic]]\nkind = \"pcap\"\nto = \"dut.in%d\"\nfile = %q\n", port, path)
	}
	return toml
}

// A model killed, or stopped, while pipelined windows are in flight ends
// the run within 2 seconds with an error naming the model; the process is
// gone and summary.json is written.
func TestPipelinedModelFault(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		step time.Duration
	}{{syscall.SIGKILL, 0}, {syscall.SIGSTOP, time.Second}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			name := fmt.Sprintf("pipe_victim_%d", tc.sig)
			toml := pcapSwitchTOML(t, 64, 1500, 20000)
			sc := modeltest.Scenario(t, toml)
			sc.Models[0].Name = name
			for i := range sc.Traffic {
				sc.Traffic[i].To = fmt.Sprintf("%s.in%d", name, i)
			}
			cfg := modeltest.Config(t, sc, 1)
			cfg.MaxWindow = 2048
			cfg.Timeouts = cosim.Timeouts{Step: tc.step}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			type result struct {
				s   *engine.Summary
				err error
			}
			done := make(chan result, 1)
			before := engine.SentAhead()
			go func() {
				s, err := engine.Run(ctx, cfg)
				done <- result{s, err}
			}()
			var pid int
			for deadline := time.Now().Add(30 * time.Second); pid == 0 || engine.SentAhead()-before < 5; {
				select {
				case r := <-done:
					t.Fatalf("the run ended before the fault: %v", r.err)
				case <-time.After(10 * time.Millisecond):
				}
				require.True(t, time.Now().Before(deadline), "no model process %q found, or no window sent ahead", name)
				pid = cmodeltest.Child(name)
			}
			require.NoError(t, syscall.Kill(pid, tc.sig))
			faulted := time.Now()
			if tc.sig == syscall.SIGSTOP {
				defer syscall.Kill(pid, syscall.SIGKILL)
			}
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the harness hangs after the fault")
			}
			took := time.Since(faulted)
			t.Logf("ended %v after the fault: %v", took, r.err)
			assert.Less(t, took, 2*time.Second+tc.step)
			require.Error(t, r.err)
			assert.Contains(t, r.err.Error(), fmt.Sprintf("model %q", name))
			if tc.sig == syscall.SIGKILL {
				var xe *cosim.ExitError
				assert.ErrorAs(t, r.err, &xe)
			} else {
				assert.ErrorIs(t, r.err, cosim.ErrTimeout)
			}
			assert.Eventually(t, func() bool { return gone(pid) }, 3*time.Second, 10*time.Millisecond, "model process %d still there", pid)
			require.NotNil(t, r.s)
			assert.False(t, r.s.Pass)
			m, _ := readSummary(t, cfg.OutDir)
			assert.Equal(t, r.err.Error(), m["error"])
		})
	}
}
