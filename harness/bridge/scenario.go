package bridge

import (
	_ "embed"

	"github.com/rocesim/cosim/harness/scenario"
)

//go:embed default.toml
var defaultTOML []byte

// DefaultName is what messages call the built-in bridge scenario.
const DefaultName = "built-in bridge scenario"

// Default returns the built-in bridge scenario and its text.
func Default() (*scenario.Scenario, []byte, error) {
	sc, err := scenario.Parse(DefaultName, defaultTOML)
	return sc, append([]byte(nil), defaultTOML...), err
}
