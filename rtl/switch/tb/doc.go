// Package tb holds the tests of the Ethernet switch's RTL (rtl/switch),
// beside it as Corundum keeps tb/<module>/ beside its RTL. Each runs the
// Verilated switch (build/models/switch<P>_<W>, make build) against its
// golden model (golden/ethswitch): frame by frame with the public test
// bench, harness/testbench (switch_model_test.go), cycle by cycle against
// golden with the same bench (switch_timing_test.go; its long form for
// make soak, switch_timing_soak_test.go), and as scenarios through the
// harness (switch_test.go; the make soak campaign file, soak.toml). The
// mutation campaign (mutants_test.go, make mutants) plants each bug of
// mutants.toml in a copy of rtl/switch and checks that these tests catch
// it. A missing model skips a test, or fails it under
// COSIM_REQUIRE_MODELS=1.
package tb
