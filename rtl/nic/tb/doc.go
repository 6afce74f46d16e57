// Package tb holds the tests of the RoCEv2 NIC's RTL (rtl/nic), beside it
// as Corundum keeps tb/<module>/ beside its RTL. Each runs Verilated RTL
// (build/models, make build) against the golden models (golden/nic,
// golden/rc, golden/dcqcn): its blocks through their test tops (the
// transmit builder, the receive front end, the command and completion
// queues, the register block, the DCQCN reaction point), the whole NIC
// through the model's socket protocol (nic_model_test.go, against scapy
// in nic_oracle_test.go), and two NICs with and without the RTL switch as
// scenarios through the harness (nic_system_test.go,
// nic_congestion_test.go; the make soak campaign file, soak.toml). The mutation campaign (mutants_test.go, make
// mutants) plants each bug of mutants.toml in a copy of rtl/nic and checks
// that these tests catch it. A missing model skips a test, or fails it
// under COSIM_REQUIRE_MODELS=1.
//
// The ICRC units' C++ testbench is icrc/ (run.sh, tb_icrc.cpp, its
// stimulus generator gen/): Go keeps C++ sources out of a package's
// directory.
package tb
