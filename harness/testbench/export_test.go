package testbench

import "github.com/rocesim/cosim/golden/rc"

// GoldenMemory lets a test make the golden model's memory differ from the
// DUT's, which no run does, to see CheckMemory fail.
func (n *NIC) GoldenMemory() rc.Memory { return n.golden.Memory() }
