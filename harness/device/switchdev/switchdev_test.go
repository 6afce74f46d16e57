package switchdev

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
)

// The golden model of each switch top has the sizes sim/build.mk builds
// it with.
func TestGoldenSizesFollowTheBuild(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	out, err := exec.Command("make", "-s", "-C", "../../..", "-f", "sim/build.mk", "--eval",
		"show: ; @echo $(switch4_64.params); echo $(switch8_64.params)", "show").CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 2)
	for k, top := range []string{"switch4", "switch8"} {
		tp, err := engine.LookupTop(top)
		require.NoError(t, err)
		g := tp.Golden(engine.GoldenEnv{DataWidth: 64}).(*switchGolden)
		want := "BUF_BYTES=32768"
		if strings.Contains(lines[k], "BUF_BYTES=") {
			_, v, _ := strings.Cut(lines[k], "BUF_BYTES=")
			want = "BUF_BYTES=" + strings.Fields(v)[0]
		}
		assert.Equal(t, want, "BUF_BYTES="+strconv.Itoa(g.m.Config().BufBytes), "%s: %s", top, lines[k])
	}
	g := newSwitchGolden(8)(engine.GoldenEnv{DataWidth: 64, Params: map[string]int{"BUF_BYTES": 65536}}).(*switchGolden)
	assert.Equal(t, 65536, g.m.Config().BufBytes, "a scenario's params name another build")
}
