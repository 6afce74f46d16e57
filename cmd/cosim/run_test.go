package main

// Tests of `cosim run` with the real Verilated models (build/models, from
// `make build`), and, for a peer that breaks the socket protocol, with a
// stand-in process (testdata/broken_model.py) at a model's path.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/harness/modeltest"
	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scenario"
)

// realModels is where `make build` puts the models, seen from this package.
var realModels = filepath.Join("..", "..", "build", "models")

func needModels(tb testing.TB, models ...string) string {
	tb.Helper()
	return modeltest.Need(tb, realModels, models...)
}

// cli runs the command as main does and returns the exit status, what it
// printed, and how long it took.
func cli(ctx context.Context, args ...string) (code int, stdout, stderr string, took time.Duration) {
	var out, errb bytes.Buffer
	start := time.Now()
	err := run(ctx, args, &out, &errb)
	took = time.Since(start)
	code = exitCode(err, &errb)
	return code, out.String(), errb.String(), took
}

// summaryOf reads DIR/summary.json.
func summaryOf(tb testing.TB, dir string) map[string]any {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(tb, err)
	var m map[string]any
	require.NoError(tb, json.Unmarshal(b, &m))
	return m
}

// capture reads the per-link pcapng files in DIR back; every frame carries
// its cycle.
func capture(tb testing.TB, dir string) []pcapio.Packet {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*--*.pcapng"))
	require.NoError(tb, err)
	var all []pcapio.Packet
	for _, f := range files {
		ps, err := pcapio.ReadAll(f)
		require.NoError(tb, err)
		for _, p := range ps {
			require.True(tb, p.HasCycle, "packet %d without its cycle", p.Index)
		}
		all = append(all, ps...)
	}
	return all
}

// The built-in default scenario passes through the real RTL: exit 0,
// PASS, and summary.json says so.
func TestRunDefaultScenario(t *testing.T) {
	models := needModels(t, "nic_64", "switch4_64")
	out := t.TempDir()
	code, stdout, stderr, took := cli(context.Background(), "run", "--out", out, "--models", models)
	t.Logf("%.2fs\n%s%s", took.Seconds(), stdout, stderr)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "run default (built-in default scenario) seed=1")
	assert.Contains(t, stdout, "mismatched 0, missing 0, unexpected 0")
	assert.True(t, strings.HasSuffix(stdout, "PASS\n"))
	assert.Empty(t, stderr)
	s := summaryOf(t, out)
	assert.Equal(t, true, s["pass"])
	assert.EqualValues(t, 1, s["seed"])
	assert.Equal(t, s["frames_out"], s["matched"])
	assert.NotEmpty(t, capture(t, out))
}

// A scenario file through two real axis_fifo models and a faulty link: the
// scenario's seed is used unless --seed overrides it, and the run passes.
func TestRunScenarioFileAndSeed(t *testing.T) {
	models := needModels(t, "axis_fifo_64", "axis_fifo_512")
	for _, tc := range []struct {
		args []string
		seed float64
	}{{nil, 17}, {[]string{"--seed", "3"}, 3}} {
		out := t.TempDir()
		args := append([]string{"run", "testdata/run_small.toml", "--out", out, "--models", models}, tc.args...)
		code, stdout, stderr, _ := cli(context.Background(), args...)
		require.Equal(t, 0, code, "%s\n%s", stdout, stderr)
		assert.Contains(t, stdout, fmt.Sprintf("run small (testdata/run_small.toml) seed=%v", tc.seed))
		s := summaryOf(t, out)
		assert.Equal(t, tc.seed, s["seed"])
		assert.Equal(t, true, s["pass"])
		assert.Positive(t, s["drops"].(map[string]any)["link_loss"], "the link loses frames")
		pcaps, err := filepath.Glob(filepath.Join(out, "*.pcapng"))
		require.NoError(t, err)
		assert.NotEmpty(t, pcaps, "a pcapng per link")
	}
	// --no-pcap: the same check, no capture.
	out := t.TempDir()
	code, stdout, stderr, _ := cli(context.Background(), "run", "testdata/run_small.toml", "--out", out, "--models", models, "--no-pcap")
	require.Equal(t, 0, code, "%s\n%s", stdout, stderr)
	assert.Equal(t, true, summaryOf(t, out)["pass"])
	pcaps, err := filepath.Glob(filepath.Join(out, "*.pcapng"))
	require.NoError(t, err)
	assert.Empty(t, pcaps, "--no-pcap")
}

// Traffic beyond the scenario's cycles limit: exit 1, the limit named, a
// rerun line with the seed, and summary.json and link pcapng files saved.
func TestRunCycleLimit(t *testing.T) {
	models := needModels(t, "axis_fifo_64")
	out := t.TempDir()
	code, stdout, stderr, _ := cli(context.Background(), "run", "testdata/run_too_short.toml", "--seed", "9", "--out", out, "--models", models)
	assert.Equal(t, 1, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stderr, "stopped at the scenario's limit of 2000 cycles")
	assert.Contains(t, stderr, "rerun with: cosim run testdata/run_too_short.toml --seed 9")
	s := summaryOf(t, out)
	assert.Equal(t, false, s["pass"])
	assert.EqualValues(t, 9, s["seed"])
	assert.Contains(t, s["error"], "limit of 2000 cycles")
	assert.NotEmpty(t, capture(t, out))
}

// A scenario with a mistake is rejected before anything runs: exit 2 and
// FILE:LINE: KEY: what is wrong.
func TestRunScenarioErrors(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"run_bad_unknown_key.toml", "testdata/run_bad_unknown_key.toml:12: model[1].colour: unknown key"},
		{"run_bad_latency.toml", "testdata/run_bad_latency.toml:12: link[0].latency: must be at least 1 cycle"},
		{"run_bad_type.toml", "testdata/run_bad_type.toml:8: model[0].data_width: incompatible types"},
		{"run_bad_syntax.toml", "testdata/run_bad_syntax.toml:7: model.top: expected value but found '='"},
		{"run_bad_size.toml", "testdata/run_bad_size.toml:14: traffic[0].max_size: must lie between min_size (1000) and 9216, is 500"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr, _ := cli(context.Background(), "run", "testdata/"+tc.file, "--out", out)
			assert.Equal(t, 2, code)
			assert.Equal(t, "cosim: run: "+tc.want, strings.SplitN(stderr, "\n", 2)[0][:len("cosim: run: ")+len(tc.want)])
			assert.Empty(t, stdout)
			assert.NoDirExists(t, out, "nothing runs")
		})
	}
	t.Run("no such file", func(t *testing.T) {
		code, _, stderr, _ := cli(context.Background(), "run", "testdata/no_such_scenario.toml", "--out", t.TempDir())
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "testdata/no_such_scenario.toml")
	})
}

// A model binary that is not built: the message names the model, the
// path, and says to run make build.
func TestRunMissingModel(t *testing.T) {
	empty := t.TempDir()
	code, _, stderr, _ := cli(context.Background(), "run", "--out", t.TempDir(), "--models", empty)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "model nic0")
	assert.Contains(t, stderr, filepath.Join(empty, "nic_64", "Vnic_top"))
	assert.Contains(t, stderr, "make build")
}

// A run that fails before any model starts still leaves summary.json
// with the seed, the error and pass false: a model binary that is not
// built (exit 1, as for a model that fails), or a top nobody registered
// (exit 2, a bad scenario, with no rerun line).
func TestRunNotStartedWritesSummary(t *testing.T) {
	t.Run("missing model", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr, _ := cli(context.Background(), "run", "--seed", "4", "--out", out, "--models", t.TempDir())
		assert.Equal(t, 1, code, "%s\n%s", stdout, stderr)
		assert.Contains(t, stderr, "rerun with: cosim run --seed 4")
		s := summaryOf(t, out)
		assert.EqualValues(t, 4, s["seed"])
		assert.Equal(t, false, s["pass"])
		assert.Contains(t, s["error"], "model nic0: no binary for top nic")
		assert.Contains(t, s["error"], "make build")
	})
	t.Run("unknown top", func(t *testing.T) {
		scen := filepath.Join(t.TempDir(), "unknown_top.toml")
		require.NoError(t, os.WriteFile(scen, []byte("name = \"unknown-top\"\ncycles = 1000\n\n"+
			"[[model]]\nname = \"x\"\ntop = \"no_such_top\"\ndata_width = 64\n"), 0o644))
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr, _ := cli(context.Background(), "run", scen, "--seed", "8", "--out", out, "--models", t.TempDir())
		assert.Equal(t, 2, code, "%s\n%s", stdout, stderr)
		assert.Contains(t, stderr, `cosim: run: `+scen+`: model x: unknown RTL top "no_such_top" (known: [`)
		assert.NotContains(t, stderr, "rerun with")
		s := summaryOf(t, out)
		assert.EqualValues(t, 8, s["seed"])
		assert.Equal(t, "unknown-top", s["scenario"])
		assert.Equal(t, false, s["pass"])
		assert.Contains(t, s["error"], `unknown RTL top "no_such_top"`)
	})
}

// signalMidRun runs testdata/run_long.toml on the real model, its model
// renamed victim (which names its socket, by which its process is found),
// sends the model's process sig well into the run and returns the outcome
// and how long the run took to end after the signal.
func signalMidRun(t *testing.T, victim string, sig syscall.Signal, extra ...string) (code int, stderr string, took time.Duration) {
	models := needModels(t, "nic_icrc_64")
	text, err := os.ReadFile("testdata/run_long.toml")
	require.NoError(t, err)
	scen := filepath.Join(t.TempDir(), "run_long.toml")
	require.NoError(t, os.WriteFile(scen, bytes.ReplaceAll(text, []byte("cli_victim"), []byte(victim)), 0o644))
	out := t.TempDir()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		code, stdout, stderr, _ := cli(ctx, append([]string{"run", scen, "--seed", "5", "--out", out, "--models", models}, extra...)...)
		done <- result{code, stdout, stderr}
	}()
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; {
		select {
		case r := <-done:
			t.Fatalf("the run ended before the fault: %s", r.stderr)
		case <-time.After(10 * time.Millisecond):
		}
		require.True(t, time.Now().Before(deadline), "no model process found")
		pid = cmodeltest.Child(victim)
	}
	time.Sleep(300 * time.Millisecond) // into the run
	require.NoError(t, syscall.Kill(pid, sig))
	faulted := time.Now()
	defer syscall.Kill(pid, syscall.SIGKILL) // never leave a stopped model behind
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("cosim run hangs after the fault")
	}
	took = time.Since(faulted)
	t.Logf("ended %v after the signal:\n%s", took, r.stderr)
	assert.Eventually(t, func() bool { return cmodeltest.Gone(pid) }, 3*time.Second, 10*time.Millisecond, "model process %d still there", pid)
	assert.Contains(t, r.stderr, fmt.Sprintf("model %q", victim))
	assert.Contains(t, r.stderr, "rerun with: cosim run "+scen+" --seed 5")
	// The model's death is the failure, reported once: the frames it had
	// still to send are not reported missing.
	assert.NotContains(t, r.stdout, "MISSING")
	s := summaryOf(t, out)
	assert.Equal(t, false, s["pass"])
	assert.EqualValues(t, 5, s["seed"])
	assert.Contains(t, s["error"], fmt.Sprintf("model %q", victim))
	assert.NotEmpty(t, capture(t, out), "the partial link pcapng files is saved")
	return r.code, r.stderr, took
}

// The real model killed mid-run: exit 1 within 2 s, naming the model and
// how it died.
func TestRunModelKilled(t *testing.T) {
	t.Parallel()
	code, stderr, took := signalMidRun(t, "cli_killed", syscall.SIGKILL)
	assert.Equal(t, 1, code)
	assert.Less(t, took, 2*time.Second)
	assert.Contains(t, stderr, "signal: killed")
}

// The real model stopped mid-run: --step-timeout 1s ends the run within
// 2 s, with exit 1 and the process's state in the message.
func TestRunModelStopped(t *testing.T) {
	t.Parallel()
	code, stderr, took := signalMidRun(t, "cli_stopped", syscall.SIGSTOP, "--step-timeout", "1s")
	assert.Equal(t, 1, code)
	assert.Less(t, took, 2*time.Second)
	assert.Contains(t, stderr, "no answer within 1s")
	assert.Contains(t, stderr, "state T (stopped)")
}

// A peer that breaks the protocol, at a model's path in a --models
// directory: garbage instead of HELLO or DONE, a wrong protocol version,
// a message cut short. Each ends the run within 2 s of the fault with exit
// 1, an error naming the model and the fault, and summary.json and
// link pcapng files saved.
func TestRunBrokenPeer(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed for the stand-in model testdata/broken_model.py (make deps installs it)")
	}
	script, err := os.ReadFile("testdata/broken_model.py")
	require.NoError(t, err)
	for _, tc := range []struct {
		mode   string
		midRun bool
		want   []string
	}{
		{"hello-garbage", false, []string{"handshake", "protocol error"}},
		{"version", false, []string{"handshake", "protocol error", "version"}},
		{"garbage", true, []string{"step to cycle ", "protocol error"}},
		{"truncated", true, []string{"step to cycle ", "protocol error in FRAME"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			models := t.TempDir()
			dir := filepath.Join(models, "nic_icrc_64")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "Vnic_icrc_top"), script, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "mode"), []byte(tc.mode), 0o644))
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			code, stdout, stderr, _ := cli(ctx, "run", "testdata/run_broken_peer.toml", "--seed", "21", "--out", out, "--models", models)
			ended := time.Now()
			t.Logf("%s%s", stdout, stderr)
			assert.Equal(t, 1, code)

			b, err := os.ReadFile(filepath.Join(dir, "fault_time"))
			require.NoError(t, err, "the stand-in never reached its fault")
			at, err := strconv.ParseFloat(string(b), 64)
			require.NoError(t, err)
			took := ended.Sub(time.UnixMicro(int64(at * 1e6)))
			t.Logf("ended %v after the fault", took)
			assert.Less(t, took, 2*time.Second)

			assert.Contains(t, stderr, `cosim: run: model "icrc"`, "one cosim: prefix")
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
			assert.Contains(t, stderr, "broken model: mode "+tc.mode, "the error shows the model's last output")
			assert.Contains(t, stderr, "rerun with: cosim run testdata/run_broken_peer.toml --seed 21")
			s := summaryOf(t, out)
			assert.Equal(t, false, s["pass"])
			assert.EqualValues(t, 21, s["seed"])
			assert.Contains(t, s["error"], `model "icrc"`)
			ps := capture(t, out)
			if tc.midRun {
				assert.Len(t, ps, 20, "the frames sent before the fault are saved")
			}
		})
	}
}

// A path MTU whose packets a switch between the NICs cannot take is a
// scenario error naming the file, line and key, found before any model
// starts (the switch would drop every full-size packet as oversize). The
// switch takes jumbo frames (MTU_MAX 4224), so path MTU 4096 fits unless
// the scenario lowers the switch's MTU register, as this one does.
func TestRunPathMTUTooLargeForSwitch(t *testing.T) {
	text := strings.Replace(string(scenario.DefaultTOML()), "pmtu = 1024", "pmtu = 4096", 1)
	text = strings.Replace(text, "top = \"switch4\"\n", "top = \"switch4\"\n[model.csr]\nMTU = 2048\n", 1)
	requirePathMTUError(t, text, "sw (top switch4) on the path from nic0 to nic1", "nic_64", "switch4_64")
}

// requirePathMTUError runs text, which lowers a switch's MTU register to
// 2048 under a path MTU of 4096, and requires the error naming the line
// of pmtu and where.
func requirePathMTUError(t *testing.T, text, where string, models ...string) {
	t.Helper()
	require.Contains(t, text, "pmtu = 4096")
	require.Contains(t, text, "MTU = 2048")
	dir := t.TempDir()
	file := filepath.Join(dir, "big.toml")
	require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
	line := 1 + strings.Count(text[:strings.Index(text, "pmtu = 4096")], "\n")
	dirs, err := filepath.Abs(needModels(t, models...))
	require.NoError(t, err)
	code, _, stderr := cosim(t, "run", file, "--out", filepath.Join(dir, "out"), "--models", dirs)
	assert.Equal(t, 2, code)
	assert.Equal(t, fmt.Sprintf("cosim: run: %s:%d: rdma[0].pmtu: a path MTU of 4096 makes packets of up to 4174 bytes, and %s takes at most 2048 (its MTU register): use 1024 or less", file, line, where),
		strings.SplitN(stderr, "\n", 2)[0])
}

// A loop of links through a switch (no spanning tree in the RTL) is a
// scenario error naming the link that closes it; a chain of switches is
// not a loop, nor is a cable's return direction.
func TestRunSwitchLoop(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "switch4_64"))
	require.NoError(t, err)
	cable := func(a string, ap int, b string, bp int) string {
		return fmt.Sprintf("\n[[link]]\nfrom = \"%s.out%d\"\nto = \"%s.in%d\"\nlatency = 4\n\n[[link]]\nfrom = \"%s.out%d\"\nto = \"%s.in%d\"\nlatency = 4\n", a, ap, b, bp, b, bp, a, ap)
	}
	head := "name = \"loop\"\ncycles = 2000\n"
	for _, sw := range []string{"sw1", "sw2", "sw3"} {
		head += fmt.Sprintf("\n[[model]]\nname = %q\ntop = \"switch4\"\n", sw)
	}
	traffic := "\n[[traffic]]\nkind = \"roce\"\nto = \"sw1.in0\"\nframes = 20\n"
	dir := t.TempDir()
	for _, c := range []struct {
		name, links string
		loop        string // "" when the scenario is no loop
	}{
		{"chain", cable("sw1", 2, "sw2", 2) + cable("sw2", 3, "sw3", 3), ""},
		{"two cables", cable("sw1", 2, "sw2", 2) + cable("sw1", 3, "sw2", 3), "sw2 - sw1 - sw2"},
		{"ring", cable("sw1", 2, "sw2", 2) + cable("sw2", 3, "sw3", 3) + cable("sw3", 2, "sw1", 3), "sw3 - sw2 - sw1 - sw3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := head + c.links + traffic
			file := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".toml")
			require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
			code, _, stderr := cosim(t, "run", file, "--out", filepath.Join(dir, c.name), "--models", models)
			if c.loop == "" {
				assert.Equal(t, 0, code, stderr)
				return
			}
			assert.Equal(t, 2, code, stderr)
			first := strings.SplitN(stderr, "\n", 2)[0]
			assert.Regexp(t, `^cosim: run: .*\.toml:\d+: link\[\d+\]\.to: this link closes a loop \(`+regexp.QuoteMeta(c.loop)+`\) through sw\d \(top switch4\)`, first)
		})
	}
}

// The path MTU is checked along the whole path between two NICs of a
// workload: the fabric's spine, two hops from either NIC, lowered to 2048
// bytes stops path MTU 4096 before any model starts, naming the spine.
func TestRunPathMTUAcrossTheSpine(t *testing.T) {
	text, ok := scenario.BuiltinTOML("fabric")
	require.True(t, ok)
	s := strings.Replace(string(text), "name = \"spine\"\ntop = \"switch8\"\n[model.csr]\n", "name = \"spine\"\ntop = \"switch8\"\n[model.csr]\nMTU = 2048\n", 1)
	requirePathMTUError(t, s, "spine (top switch8) on the path from n4 to n0", "nic_64", "switch8_64")
}
