// Package builtin registers every device and workload this repository
// ships with the engine, for programs and tests that run scenarios:
//
//	import _ "github.com/rocesim/cosim/harness/builtin"
//
// A user's own device registers the same way from its own package
// (engine.Register), and needs nothing here.
package builtin

import (
	_ "github.com/rocesim/cosim/harness/device/fifodev"   // axis_fifo
	_ "github.com/rocesim/cosim/harness/device/nicdev"    // nic, nic_icrc
	_ "github.com/rocesim/cosim/harness/device/switchdev" // switch4, switch8
	_ "github.com/rocesim/cosim/harness/workload/rdma"    // [[rdma]]
)
