package cosim_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/internal/fakemodel"
)

// fakeEnv makes the test binary, re-executed, run the fake model instead
// of the tests: the process tests need a real model process, and the fake
// model is the test binary itself.
const fakeEnv = "COSIM_TEST_FAKEMODEL"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fakemodel.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// fakeConfig describes the fake model as a process named name, with
// fakemodel flags args and short timeouts.
func fakeConfig(t testing.TB, name string, args ...string) cosim.Config {
	exe, err := os.Executable()
	require.NoError(t, err)
	return cosim.Config{
		Name: name,
		Path: exe,
		Args: append([]string{"--name", name}, args...),
		Env:  append(os.Environ(), fakeEnv+"=1", gorace()),
		Timeouts: cosim.Timeouts{
			Start: 5 * time.Second,
			Step:  2 * time.Second,
			Close: 2 * time.Second,
		},
	}
}

// gorace stops a fake model built with -race from sleeping a second
// before it exits (the race detector's atexit_sleep_ms).
func gorace() string {
	return strings.TrimSpace("GORACE=" + os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// startFake starts the fake model and does the handshake. The model is
// closed at the end of the test if the test did not close it.
func startFake(t testing.TB, cfg cosim.Config) (*cosim.Model, cosim.Hello) {
	t.Helper()
	ctx := context.Background()
	m, err := cosim.Start(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	h, err := m.Handshake(ctx, cosim.HelloAck{Seed: 1})
	require.NoError(t, err)
	return m, h
}
