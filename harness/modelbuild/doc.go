// Package modelbuild turns a user's SystemVerilog top into a model
// program without editing this repository: `cosim model build`. It asks
// Verilator (--xml-only) for the top's ports, holds them to the port
// convention of sim/README.md (every error names the port, the rule and
// where the rule is written), and builds the model with sim/build.mk's
// user-model rule, so that it gets the project's Verilator flags, the
// sim/ library and a generic main (sim/tops/user_model.cpp). The model
// lands in <out>/<name>_<width>/V<top>, where scenarios and test benches
// look for models (engine.ModelPath), and runs once its golden model is
// registered with engine.Register.
package modelbuild
