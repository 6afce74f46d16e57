# SPDX-License-Identifier: MIT
# sim/build.mk: builds every Verilator model into $(SIM_MODELS_DIR)/<name>/V<top>.
# Included by the top-level Makefile; on its own, from the repository root:
#   make -f sim/build.mk models           build every model (incremental)
#   make -f sim/build.mk models-lint      verilator --lint-only -Wall per model
#   make -f sim/build.mk models-test      protocol smoke test (python3) and the
#                                         DMA port tests (go test, test models)
#   make -f sim/build.mk models-bench     raw-mode speed, 64 and 1500 B frames
#   make -f sim/build.mk models-coverage  every model with Verilator coverage,
#                                         into $(SIM_COV_DIR)/<name>/ (below)
#   make -f sim/build.mk user-model SIM_USER_...   a user's own top (below;
#                                         cosim model build runs it)
# A model is rebuilt only when its RTL, its main, the sim/ library or this
# file changed; Verilator's own make then recompiles only what changed. It
# runs its own make with -j 2 (MAKEFLAGS cleared so that it does not fight
# an outer make -j over the job server).
# Output is quiet, as Linux kbuild's: one line per step, every command with
# `make V=1`.

VERILATOR      ?= verilator
PYTHON3        ?= python3
GO             ?= go
BUILD          ?= build
SIM_DIR        ?= sim
SIM_MODELS_DIR ?= $(BUILD)/models
SIM_RAW_FRAMES ?= 200000

# No --threads, and the default optimisation (OPT_FAST=-O2): both measured
# against their alternatives with make models-bench (harness/PERFORMANCE.md).
# Tracing is compiled in (--trace-fst) and opened only on request; unopened
# it costs a few stores per eval.
SIM_VFLAGS := --cc --exe --build -Wall --assert -x-assign fast --trace-fst \
              -MAKEFLAGS OPT_FAST=-O2 -j 2 -Irtl/common
# Verilator's own make compiles through ccache when it is there: models
# built again (a mutant, a clean build) reuse every object whose source
# did not change, the sim library's above all (build times in
# harness/PERFORMANCE.md).
SIM_OBJCACHE ?= $(shell command -v ccache 2>/dev/null)
# hooks.cpp replaces Verilator's $finish/$stop/fatal handlers. The library's
# headers are found for #include "..." only (-iquote): sim/signal.h must not
# hide the system's <signal.h>.
SIM_CFLAGS := -std=c++17 -DVL_USER_FINISH -DVL_USER_STOP -DVL_USER_FATAL -iquote $(abspath $(SIM_DIR))

SIM_LIB_SRCS := $(addprefix $(SIM_DIR)/,model.cpp session.cpp raw.cpp sim.cpp axis.cpp csr.cpp dma.cpp memory.cpp \
                  socket.cpp hooks.cpp)
SIM_LIB_HDRS := $(addprefix $(SIM_DIR)/,proto.h signal.h rng.h axis.h csr.h dma.h memory.h socket.h sim.h model.h \
                  run.h)

# Quiet steps drop only their commands' stdout (the command lines Verilator's
# make echoes); warnings and errors go to stderr and show in full.
V ?= 0
ifeq ($(V),1)
Q :=
sim_say :=
sim_stdout :=
else
Q := @
sim_say = @printf '  %-9s%s\n' '$1' '$2'
sim_stdout := >/dev/null
endif

sim_empty :=
sim_space := $(sim_empty) $(sim_empty)
sim_comma := ,

# ---- the models ----
# Every NIC model lists rtl/nic/nic_pkg.sv first: Verilator finds a module
# by its file name, but a package only when it was read before its users.
# Each model NAME sets:
#   NAME.top     Verilog top module (follows the port convention in sim/sim.h)
#   NAME.rtl     Verilog sources
#   NAME.main    its C++ main
#   NAME.params  NAME=VALUE Verilog parameters (-G, and param.* in HELLO)
#   NAME.dw NAME.in NAME.out   DATA_WIDTH and port counts the main binds
#   NAME.vflags  (optional) more Verilator flags: -D defines, -I directories
#   NAME.deps    (optional) more files whose change rebuilds it
SIM_MODELS :=

# $(call sim_axis_fifo,NAME,DATA_WIDTH): axis_skid + axis_fifo, 1 in, 1 out.
define sim_axis_fifo
SIM_MODELS += $1
$1.top    := axis_fifo_top
$1.rtl    := $(SIM_DIR)/tops/axis_fifo_top.sv rtl/common/axis_skid.sv rtl/common/axis_fifo.sv
$1.main   := $(SIM_DIR)/tops/axis_fifo_top.cpp
$1.params := DATA_WIDTH=$2 DEPTH=32
$1.dw     := $2
$1.in     := 1
$1.out    := 1
endef
$(eval $(call sim_axis_fifo,axis_fifo_64,64))
$(eval $(call sim_axis_fifo,axis_fifo_512,512))

# $(call sim_nic_icrc,NAME,DATA_WIDTH): the NIC's ICRC insert (port 0) and
# check (port 1) units with their counters on the CSR bus.
define sim_nic_icrc
SIM_MODELS += $1
$1.top    := nic_icrc_top
$1.rtl    := rtl/nic/nic_pkg.sv $(SIM_DIR)/tops/nic_icrc_top.sv rtl/common/crc32_roce.sv rtl/common/axis_skid.sv \
             rtl/nic/icrc_insert.sv rtl/nic/icrc_check.sv
$1.main   := $(SIM_DIR)/tops/nic_icrc_top.cpp
$1.params := DATA_WIDTH=$2
$1.dw     := $2
$1.in     := 2
$1.out    := 2
endef
$(eval $(call sim_nic_icrc,nic_icrc_64,64))
$(eval $(call sim_nic_icrc,nic_icrc_512,512))

# $(call sim_nic_host,NAME,DATA_WIDTH): the NIC's command decoder and
# completion queue (rtl/nic/nic_cmd.sv, nic_cq.sv), commands echoed back as
# completions; CSR counters.
define sim_nic_host
SIM_MODELS += $1
$1.top    := nic_host_top
$1.rtl    := rtl/nic/nic_pkg.sv $(SIM_DIR)/tops/nic_host_top.sv rtl/nic/nic_cmd.sv rtl/nic/nic_cq.sv
$1.main   := $(SIM_DIR)/tops/nic_host_top.cpp
$1.params := DATA_WIDTH=$2
$1.dw     := $2
$1.in     := 1
$1.out    := 1
endef
$(eval $(call sim_nic_host,nic_host_64,64))
$(eval $(call sim_nic_host,nic_host_512,512))

# $(call sim_nic_tx,NAME,DATA_WIDTH): the NIC's transmit frame builder
# (rtl/nic/nic_tx_build.sv) behind a descriptor FIFO, records in on port 0,
# frames out on port 0, the DMA port, counters on the CSR bus. DMA_LATENCY
# must match the model's --dma-read-latency (default 64).
define sim_nic_tx
SIM_MODELS += $1
$1.top    := nic_tx_top
$1.rtl    := rtl/nic/nic_pkg.sv $(SIM_DIR)/tops/nic_tx_top.sv rtl/nic/nic_tx_build.sv \
             rtl/nic/icrc_insert.sv rtl/common/crc32_roce.sv rtl/common/axis_skid.sv rtl/common/axis_fifo.sv
$1.main   := $(SIM_DIR)/tops/nic_tx_top.cpp
$1.params := DATA_WIDTH=$2 DMA_LATENCY=64
$1.dw     := $2
$1.in     := 1
$1.out    := 1
endef
$(eval $(call sim_nic_tx,nic_tx_64,64))
$(eval $(call sim_nic_tx,nic_tx_512,512))

# $(call sim_nic_rx,NAME,DATA_WIDTH): the NIC's receive front end
# (rtl/nic/nic_rx_parse.sv): frames in on port 0, one decision record per
# frame out on port 0, host frames out on port 1, node MAC/IP, QP table and
# counters on the CSR bus, idle.
define sim_nic_rx
SIM_MODELS += $1
$1.top    := nic_rx_top
$1.rtl    := rtl/nic/nic_pkg.sv $(SIM_DIR)/tops/nic_rx_top.sv rtl/nic/nic_rx_parse.sv rtl/nic/nic_rx_store.sv \
             rtl/nic/nic_rx_host_fifo.sv rtl/nic/icrc_check.sv rtl/common/crc32_roce.sv rtl/common/axis_skid.sv
$1.main   := $(SIM_DIR)/tops/nic_rx_top.cpp
$1.params := DATA_WIDTH=$2 QPS=16 RX_BUF_BYTES=16384
$1.dw     := $2
$1.in     := 1
$1.out    := 2
endef
$(eval $(call sim_nic_rx,nic_rx_64,64))
$(eval $(call sim_nic_rx,nic_rx_512,512))

# $(call sim_nic_csr,NAME): the NIC's register block (rtl/nic/nic_csr.sv) on
# the CSR bus; counter increments, QP states and snapshot requests as
# records on port 0, load reports out on port 0, snapshots of every
# configuration output on port 1. 64 bits only: one record per beat.
define sim_nic_csr
SIM_MODELS += $1
$1.top    := nic_csr_top
$1.rtl    := rtl/nic/nic_pkg.sv $(SIM_DIR)/tops/nic_csr_top.sv rtl/nic/nic_csr.sv
$1.main   := $(SIM_DIR)/tops/nic_csr_top.cpp
$1.params := DATA_WIDTH=64 QPS=16 MRS=16 MAX_READS=4 INC_WIDTH=8
$1.dw     := 64
$1.in     := 1
$1.out    := 2
endef
$(eval $(call sim_nic_csr,nic_csr_64))

# nic_dcqcn_64: the DCQCN reaction point of one QP (rtl/nic/nic_dcqcn_rp.sv):
# configuration and events as records on port 0, a report per cycle with
# an event or a timer tick on ports 0..4 (one 64-bit beat each).
SIM_MODELS += nic_dcqcn_64
nic_dcqcn_64.top    := nic_dcqcn_top
nic_dcqcn_64.rtl    := rtl/nic/nic_pkg.sv $(SIM_DIR)/tops/nic_dcqcn_top.sv rtl/nic/nic_dcqcn_rp.sv
nic_dcqcn_64.main   := $(SIM_DIR)/tops/nic_dcqcn_top.cpp
nic_dcqcn_64.params := DATA_WIDTH=64 BYTES_WIDTH=16 BC_EVENTS=4
nic_dcqcn_64.dw     := 64
nic_dcqcn_64.in     := 1
nic_dcqcn_64.out    := 5

# $(call sim_nic,NAME,DATA_WIDTH): the whole NIC (rtl/nic/roce_nic.sv):
# link, commands, host frames in on ports 0..2; link, completions, host
# frames out on ports 0..2; CSR bus, DMA port, idle.
# SIM_NIC_DIR may point elsewhere, as SIM_SWITCH_DIR does (the mutation
# test's copies of rtl/nic).
SIM_NIC_DIR ?= rtl/nic
define sim_nic
SIM_MODELS += $1
$1.top    := nic_top
$1.rtl    := $(SIM_NIC_DIR)/nic_pkg.sv $(SIM_DIR)/tops/nic_top.sv $(addprefix $(SIM_NIC_DIR)/,roce_nic.sv nic_engine.sv \
             nic_dcqcn_rp.sv nic_rx_dma.sv nic_csr.sv nic_cmd.sv nic_cq.sv nic_rx_parse.sv nic_rx_store.sv \
             nic_rx_host_fifo.sv icrc_check.sv nic_tx_build.sv icrc_insert.sv nic_pause.sv) \
             rtl/common/crc32_roce.sv rtl/common/axis_skid.sv rtl/common/axis_fifo.sv
$1.main   := $(SIM_DIR)/tops/nic_top.cpp
$1.params := DATA_WIDTH=$2 QPS=16 MRS=16 SQ_DEPTH=32 RQ_DEPTH=32 MAX_READS=4 RX_BUF_BYTES=16384 DMA_LATENCY=64
$1.dw     := $2
$1.in     := 3
$1.out    := 3
endef
$(eval $(call sim_nic,nic_64,64))
$(eval $(call sim_nic,nic_512,512))

# ---- eth_switch (rtl/switch) ----
# $(call sim_switch,NAME,PORTS,DATA_WIDTH[,PARAM=VALUE ...]): the L2 switch,
# PORTS ports in and out, registers and counters on the CSR bus, idle. The
# other parameters keep their defaults (QUEUES=8 MTU_MAX=4224 SLOTS=96
# BUF_BYTES=32768 MAC_ENTRIES=64; golden/ethswitch.DefaultConfig and
# rtl/switch/README.md) unless the fourth argument sets them, as the golden
# model must (harness/device/switchdev). switch8 is the fabric's switch
# (harness/scenario/fabric.toml): BUF_BYTES 131072 holds a lossless 4:1
# incast of path MTU 4096 frames (rtl/switch/README.md, buffer sizing).
# SIM_SWITCH_DIR may point elsewhere: the mutation test builds copies of
# rtl/switch with one bug planted (the mutation campaign, rtl/switch/tb/mutants_test.go).
SIM_SWITCH_DIR ?= rtl/switch
SIM_SWITCH_RTL := $(addprefix $(SIM_SWITCH_DIR)/,eth_switch.sv switch_ingress.sv switch_buffer.sv switch_mac_table.sv \
                  switch_decide.sv switch_pfc_ctl.sv switch_egress.sv switch_csr.sv)
define sim_switch
SIM_MODELS += $1
$1.top    := switch_top
$1.rtl    := $(SIM_DIR)/tops/switch_top.sv $(SIM_SWITCH_RTL)
$1.main   := $(SIM_DIR)/tops/switch_top.cpp
$1.params := PORTS=$2 DATA_WIDTH=$3 $4
$1.dw     := $3
$1.in     := $2
$1.out    := $2
$1.train  := --raw 20000 --size 64; --raw 2000 --size 1500; --raw 5000 --size 200 --gap 20 --stall 30
endef
$(eval $(call sim_switch,switch4_64,4,64))
$(eval $(call sim_switch,switch4_512,4,512))
$(eval $(call sim_switch,switch8_64,8,64,BUF_BYTES=131072))
# ---- end eth_switch ----

# Test-only models (built by models-test, not by models): a top that breaks
# the AXI-Stream and CSR rules on request, the FIFO with an illegal DEPTH,
# multi-port loops with narrow and odd widths, and a DMA copy engine.
SIM_TEST_MODELS := axis_misuse_64 axis_fifo_bad_depth axis_loop_8x2 axis_loop_24x3 dma_copy_64 dma_copy_512
axis_misuse_64.top    := axis_misuse_top
axis_misuse_64.rtl    := $(SIM_DIR)/test/axis_misuse_top.sv
axis_misuse_64.main   := $(SIM_DIR)/test/axis_misuse_top.cpp
axis_misuse_64.params := DATA_WIDTH=64
axis_misuse_64.dw     := 64
axis_misuse_64.in     := 1
axis_misuse_64.out    := 1
$(eval $(call sim_axis_fifo,axis_fifo_bad_depth,64))
axis_fifo_bad_depth.params := DATA_WIDTH=64 DEPTH=30

# $(call sim_axis_loop,NAME,DATA_WIDTH,PORTS)
define sim_axis_loop
$1.top    := axis_loop_top
$1.rtl    := $(SIM_DIR)/test/axis_loop_top.sv rtl/common/axis_skid.sv
$1.main   := $(SIM_DIR)/test/axis_loop_top.cpp
$1.params := DATA_WIDTH=$2 PORTS=$3
$1.dw     := $2
$1.in     := $3
$1.out    := $3
endef
$(eval $(call sim_axis_loop,axis_loop_8x2,8,2))
$(eval $(call sim_axis_loop,axis_loop_24x3,24,3))

# $(call sim_dma_copy,NAME,DATA_WIDTH): copy commands over the DMA port.
define sim_dma_copy
$1.top    := dma_copy_top
$1.rtl    := $(SIM_DIR)/test/dma_copy_top.sv
$1.main   := $(SIM_DIR)/test/dma_copy_top.cpp
$1.params := DATA_WIDTH=$2 DEPTH=32
$1.dw     := $2
$1.in     := 1
$1.out    := 1
endef
$(eval $(call sim_dma_copy,dma_copy_64,64))
$(eval $(call sim_dma_copy,dma_copy_512,512))
SIM_MODELS := $(filter-out $(SIM_TEST_MODELS),$(SIM_MODELS))

# $(call sim_model_bin,NAME): path of the model program.
sim_model_bin = $(SIM_MODELS_DIR)/$1/V$($1.top)

.PHONY: models models-lint models-test models-bench

# $(call sim_verilate,NAME,EXTRA_CFLAGS,LDFLAGS,NOTE): Verilate NAME and
# build it; NOTE follows the name in the quiet line.
define sim_verilate
$(call sim_say,BUILD,$1$(if $4, ($4)))
$(Q)MAKEFLAGS= OBJCACHE=$(SIM_OBJCACHE) $(VERILATOR) $(SIM_VFLAGS) $($1.vflags) --top-module $($1.top) \
  --Mdir $(SIM_MODELS_DIR)/$1 $(addprefix -G,$($1.params)) \
  -CFLAGS "$(SIM_CFLAGS) $2 -DCOSIM_MODEL=$1 -DCOSIM_TOP=$($1.top) \
  -DCOSIM_PARAMS=$(subst $(sim_space),$(sim_comma),$(strip $($1.params))) \
  -DCOSIM_DATA_WIDTH=$($1.dw) -DCOSIM_IN_PORTS=$($1.in) -DCOSIM_OUT_PORTS=$($1.out)" \
  $(if $3,-LDFLAGS "$3") $($1.rtl) $(abspath $($1.main) $(SIM_LIB_SRCS)) $(sim_stdout)
endef

# Profile feedback. A model that sets NAME.train (the raw-mode runs that
# train it, one per `;`) is built instrumented, run on them, and built
# again from that profile with link-time optimisation; with SIM_PGO=0 (the
# mutation campaigns: each mutant is built once and run briefly) it is
# built as any other model. Functions the training never ran are compiled
# as without a profile (-fprofile-partial-training). Invariant: more raw
# cycles/s than without, measured by make models-bench style --raw runs
# (harness/PERFORMANCE.md, profile feedback). The profile lives in
# NAME/pgo; the objects of one stage are removed before the other (make
# would keep them, as their sources did not change), ccache keeps both.
#
# Such a model has two targets. Its binary alone is built plainly: `make
# cosim` asks for it (a run of a few seconds gains less than the training
# costs), and it is up to date however it was built. NAME/pgo.stamp is the
# build with the profile, which `models` asks for; a plain build leaves it
# out of date.
SIM_PGO ?= 1
sim_pgo = $(and $(filter 1,$(SIM_PGO)),$($1.train))
sim_pgo_stamp = $(SIM_MODELS_DIR)/$1/pgo.stamp
# $(call sim_model_goal,NAME): what `models` builds for NAME.
sim_model_goal = $(if $(call sim_pgo,$1),$(call sim_pgo_stamp,$1),$(call sim_model_bin,$1))
define sim_pgo_build
$(Q)rm -rf $(SIM_MODELS_DIR)/$1/pgo $(SIM_MODELS_DIR)/$1/*.o $(SIM_MODELS_DIR)/$1/*.a
$(call sim_verilate,$1,-fprofile-generate=$(abspath $(SIM_MODELS_DIR)/$1/pgo),-fprofile-generate,pgo: instrumented)
$(call sim_say,TRAIN,$1)
$(Q)$(foreach t,$(subst ;, ,$(subst $(sim_space),+,$(strip $($1.train)))),$(call sim_model_bin,$1) $(subst +, ,$t) >/dev/null &&) true
@ls $(SIM_MODELS_DIR)/$1/pgo/*.gcda >/dev/null 2>&1 || { echo "$1: the training runs wrote no profile"; exit 1; }
$(Q)rm -f $(SIM_MODELS_DIR)/$1/*.o $(SIM_MODELS_DIR)/$1/*.a
$(call sim_verilate,$1,-flto=auto -fprofile-use=$(abspath $(SIM_MODELS_DIR)/$1/pgo) \
  -fprofile-partial-training -Wno-missing-profile,-O2 -flto=auto,pgo: optimised)
@touch $(call sim_model_bin,$1)
endef

# $(call sim_model_rule,NAME). A trained model built plainly after a build
# with the profile drops the profiled objects and the stamp; a stamp
# without its binary is out of date.
.PHONY: sim-no-binary
define sim_model_rule
sim_deps_$1 := $($1.rtl) $($1.main) $($1.deps) $(SIM_LIB_SRCS) $(SIM_LIB_HDRS) $(SIM_DIR)/build.mk
$(call sim_model_bin,$1): $$(sim_deps_$1)
	@mkdir -p $(SIM_MODELS_DIR)/$1
$(if $($1.train),	$(Q)if [ -e $(call sim_pgo_stamp,$1) ]; then rm -f $(call sim_pgo_stamp,$1) $(SIM_MODELS_DIR)/$1/*.o $(SIM_MODELS_DIR)/$1/*.a; fi)
	$$(call sim_verilate,$1)
	@touch $$@
$(if $($1.train),
$(call sim_pgo_stamp,$1): $$(sim_deps_$1) $(if $(wildcard $(call sim_model_bin,$1)),,sim-no-binary)
	@mkdir -p $(SIM_MODELS_DIR)/$1
	$$(call sim_pgo_build,$1)
	@touch $$@
)

.PHONY: models-lint-$1
models-lint-$1:
	$(call sim_say,LINT,$1)
	$(Q)$(VERILATOR) --lint-only -Wall -Irtl/common $($1.vflags) --top-module $($1.top) $(addprefix -G,$($1.params)) $($1.rtl)
endef
$(foreach m,$(SIM_MODELS) $(SIM_TEST_MODELS),$(eval $(call sim_model_rule,$m)))

# ---- a user's own model (cosim model build) ----
# A top from outside this repository, built with the same flags and library
# as every model above and the generic main tops/user_model.cpp. `cosim
# model build` checks the top's ports against the convention first, then
# runs `make -C <repository> -f sim/build.mk user-model` with:
#   SIM_USER_MODEL   the model's name, <name>_<width>: the program is
#                    $(SIM_MODELS_DIR)/$(SIM_USER_MODEL)/V$(SIM_USER_TOP)
#   SIM_USER_TOP     its Verilog top module
#   SIM_USER_RTL     its sources, absolute paths, packages first
#   SIM_USER_PARAMS  NAME=VALUE Verilog parameters (-G)
#   SIM_USER_DW SIM_USER_IN SIM_USER_OUT   DATA_WIDTH and port counts
#   SIM_USER_VFLAGS  more Verilator flags (-D defines, -I directories)
#   SIM_USER_DEPS    a file rewritten whenever the flags change, so that
#                    a new parameter or define rebuilds the model
# and SIM_MODELS_DIR pointing at the user's own directory (absolute).
ifdef SIM_USER_MODEL
ifneq ($(filter $(SIM_USER_MODEL),$(SIM_MODELS) $(SIM_TEST_MODELS)),)
$(error SIM_USER_MODEL=$(SIM_USER_MODEL) is a model of this repository: give the user's model another name)
endif
$(SIM_USER_MODEL).top    := $(SIM_USER_TOP)
$(SIM_USER_MODEL).rtl    := $(SIM_USER_RTL)
$(SIM_USER_MODEL).main   := $(SIM_DIR)/tops/user_model.cpp
$(SIM_USER_MODEL).params := $(SIM_USER_PARAMS)
$(SIM_USER_MODEL).dw     := $(SIM_USER_DW)
$(SIM_USER_MODEL).in     := $(SIM_USER_IN)
$(SIM_USER_MODEL).out    := $(SIM_USER_OUT)
$(SIM_USER_MODEL).vflags := $(SIM_USER_VFLAGS)
$(SIM_USER_MODEL).deps   := $(SIM_USER_DEPS)
$(eval $(call sim_model_rule,$(SIM_USER_MODEL)))
.PHONY: user-model user-model-lint
user-model: $(call sim_model_bin,$(SIM_USER_MODEL))
user-model-lint: models-lint-$(SIM_USER_MODEL)
endif

models: $(foreach m,$(SIM_MODELS),$(call sim_model_goal,$m)) ## build the Verilator models into build/models/<name>/

models-lint: $(addprefix models-lint-,$(SIM_MODELS) axis_misuse_64 axis_loop_8x2 axis_loop_24x3 dma_copy_64 dma_copy_512) ## lint every model top with its build parameters

# The DMA port tests are cosim/dma_model_test.go; told where the test models
# are, they fail rather than skip when one is missing.
models-test: $(foreach m,axis_fifo_64 axis_fifo_512 $(SIM_TEST_MODELS),$(call sim_model_bin,$m)) ## socket protocol smoke test of the models (python3), DMA port tests (go)
	$(PYTHON3) $(SIM_DIR)/test/proto_smoke.py $(call sim_model_bin,axis_fifo_64) \
	  --misuse $(call sim_model_bin,axis_misuse_64) --bad-param $(call sim_model_bin,axis_fifo_bad_depth)
	$(PYTHON3) $(SIM_DIR)/test/proto_smoke.py $(call sim_model_bin,axis_fifo_512)
	$(PYTHON3) $(SIM_DIR)/test/proto_smoke.py $(call sim_model_bin,axis_loop_8x2)
	$(PYTHON3) $(SIM_DIR)/test/proto_smoke.py $(call sim_model_bin,axis_loop_24x3)
	COSIM_REQUIRE_TEST_MODELS=1 COSIM_TEST_MODELS_DIR=$(abspath $(SIM_MODELS_DIR)) \
	  $(GO) test -count=1 -run '^TestDMA' ./cosim

models-bench: $(call sim_model_bin,axis_fifo_64) $(call sim_model_bin,axis_fifo_512) ## raw model speed (cycles/s, frames/s) for 64 and 1500 B frames
	@for m in $(call sim_model_bin,axis_fifo_64) $(call sim_model_bin,axis_fifo_512); do \
	  for size in 64 1500; do $$m --raw $(SIM_RAW_FRAMES) --size $$size --check || exit 1; done; \
	done

# ---- coverage variants ----
# `models-coverage` builds every model again with Verilator's coverage
# (--coverage: line, toggle and the RTL's `cover property` points; Verilator
# manual, "Coverage Analysis" and the --coverage-line, --coverage-toggle and
# --coverage-user options) into a directory of its own, $(SIM_COV_DIR)/<name>/,
# so the normal models stay free of its counters. Run with --coverage-file,
# a model writes what it counted when it ends (sim/README.md, Coverage).
# The sources are named by absolute path: the coverage data then names the
# repository's files, and genhtml finds them from any directory. No profile
# feedback: these models measure, they are not for speed.
SIM_COV_DIR    ?= $(BUILD)/models-coverage
# What they count: --coverage is --coverage-line --coverage-toggle
# --coverage-user. Toggle coverage is two thirds of a coverage model's time
# (harness/PERFORMANCE.md): SIM_COVERAGE="--coverage-line --coverage-user"
# leaves it out (a change of it rebuilds nothing by itself: make -B).
SIM_COVERAGE   ?= --coverage
SIM_COV_VFLAGS := $(filter-out -Irtl/common,$(SIM_VFLAGS)) -I$(abspath rtl/common) $(SIM_COVERAGE)
# The coverage models the tests run (make test builds them).
SIM_COV_TEST_MODELS := switch4_64

# $(call sim_cov_bin,NAME): path of the coverage variant of model NAME.
sim_cov_bin = $(SIM_COV_DIR)/$1/V$($1.top)

define sim_cov_rule
$(call sim_cov_bin,$1): $$(sim_deps_$1)
	@mkdir -p $(SIM_COV_DIR)/$1
	$(call sim_say,BUILD,$1 (coverage))
	$(Q)MAKEFLAGS= OBJCACHE=$(SIM_OBJCACHE) $(VERILATOR) $(SIM_COV_VFLAGS) --top-module $($1.top) \
	  --Mdir $(SIM_COV_DIR)/$1 $(addprefix -G,$($1.params)) \
	  -CFLAGS "$(SIM_CFLAGS) -DCOSIM_MODEL=$1 -DCOSIM_TOP=$($1.top) \
	  -DCOSIM_PARAMS=$(subst $(sim_space),$(sim_comma),$(strip $($1.params))) \
	  -DCOSIM_DATA_WIDTH=$($1.dw) -DCOSIM_IN_PORTS=$($1.in) -DCOSIM_OUT_PORTS=$($1.out)" \
	  $(abspath $($1.rtl) $($1.main) $(SIM_LIB_SRCS)) $(sim_stdout)
	@touch $$@
endef
$(foreach m,$(SIM_MODELS),$(eval $(call sim_cov_rule,$m)))

.PHONY: models-coverage models-coverage-test
models-coverage: $(foreach m,$(SIM_MODELS),$(call sim_cov_bin,$m)) ## build every model with Verilator coverage into build/models-coverage/<name>/

models-coverage-test: $(foreach m,$(SIM_COV_TEST_MODELS),$(call sim_cov_bin,$m))
