# The Verilator models (sim/build.mk names, <top>_<data_width>) that the
# built-in default scenario, default.toml beside this file, runs: `make
# cosim` builds only these. TestDefaultModels (cmd/cosim) checks the list
# against default.toml.
DEFAULT_MODELS := nic_64 switch4_64
