# RoCEv2 NIC and switch co-simulation harness. `make` (or `make help`) lists
# the targets; every target with a `## ` comment shows up there.

SHELL := /bin/bash
.DEFAULT_GOAL := help

GO        ?= go
BUILD     := build
OUT       ?= out
SEED      ?= 1
FUZZTIME  ?= 30s
BENCHTIME ?= 1s
SOAK_FRAMES ?= 2000000
SOAK_MESSAGES ?= 20000
SOAK_SEEDS ?= 4
SOAK_SEED ?= 1

# Tools, as Debian packages, with the command that proves each one is
# there: DEPS_COSIM for `make cosim`, DEPS for everything the tests need.
# python3-scapy is only importable by Debian's own /usr/bin/python3.
DEPS_COSIM := verilator:verilator g++:g++ ccache:ccache
DEPS := $(DEPS_COSIM) tshark:tshark python3-scapy:scapy iproute2:ip iputils-ping:ping iperf3:iperf3 \
        chromium:chromium gtkwave:gtkwave lcov:genhtml slurm-wlm:slurmctld munge:munged libxml2-utils:xmllint

.PHONY: help deps deps-cosim build cosim test example-test bench soak mutants lint fuzz clean tap-demo

# Verilator model rules: `models`, `models-lint`, `models-test`, `models-bench`,
# `models-coverage` (and `models-coverage-test`, the coverage models the tests run);
# quiet output unless V=1 (Q, sim_say).
include sim/build.mk
# DEFAULT_MODELS: the models the default scenario runs.
include harness/scenario/default.mk

help: ## list the targets
	@echo "usage: make <target>"
	@grep -hE '^[a-z][a-z-]*:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/  \1\t\2/' | expand -t 16

deps: ## install Verilator, tshark, scapy, iproute2, ping, iperf3, ccache, Chromium, GTKWave, lcov, Slurm, munge, xmllint (apt-get as root; otherwise says what to install)
	$(call install_deps,$(DEPS))

# deps-cosim: only what `make cosim` needs.
deps-cosim:
	$(call install_deps,$(DEPS_COSIM))

# $(call install_deps,PKG:CMD ...): install the packages whose command is
# missing, as root with apt-get; otherwise say what to install.
define install_deps
	@command -v $(GO) >/dev/null || { echo "deps: Go 1.26 or newer is missing: install it from https://go.dev/dl/ and put it on PATH"; exit 1; }
	@missing=""; \
	for d in $1; do \
	  pkg=$${d%%:*}; cmd=$${d##*:}; \
	  if [ "$$cmd" = scapy ]; then /usr/bin/python3 -c 'import scapy.contrib.roce' >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	  else command -v $$cmd >/dev/null 2>&1 || missing="$$missing $$pkg"; fi; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "deps: installing$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections; \
	  apt-get update -qq && apt-get install -y -qq$$missing >/dev/null || { echo "deps: apt-get install$$missing failed"; exit 1; }; \
	else \
	  echo "deps: missing:$$missing"; \
	  echo "deps: install them as root with: apt-get install$$missing"; \
	  exit 1; \
	fi
endef

build: models $(BUILD)/cosim ## build the cosim command and every Verilator model into build/

# go build knows itself what is out of date.
.PHONY: $(BUILD)/cosim
$(BUILD)/cosim:
	$(call sim_say,GO,$@)
	$(Q)$(GO) build -o $@ ./cmd/cosim

# Only the models the default scenario needs, and without profile feedback
# (their binaries, not `models`' PGO stamps): a run of a few seconds gains
# less than the training costs. `make build` rebuilds them with it.
# SCENARIO: a built-in name (cosim scenarios) or a file; the cosim command
# names the models it runs, and only those are built.
cosim: deps-cosim $(BUILD)/cosim $(if $(SCENARIO),,$(foreach m,$(DEFAULT_MODELS),$(call sim_model_bin,$m))) ## run the main job: the built-in default scenario (or SCENARIO=fabric, a name or a file) through the RTL, every frame checked (builds only what it needs)
	$(if $(SCENARIO),@models=$$($(BUILD)/cosim scenarios --models $(SCENARIO)) && \
	  $(MAKE) --no-print-directory $$(for m in $$models; do echo model-$$m; done))
	$(BUILD)/cosim run $(SCENARIO) --seed $(SEED) --out $(OUT)/cosim

# model-NAME: one Verilator model's binary, as sim/build.mk names it.
.SECONDEXPANSION:
model-%: $$(call sim_model_bin,$$*)
	@:

test: deps lint build models-coverage-test ## every test: golden codecs against scapy and tshark, the checker, real RTL through the harness, the mutation campaigns
	COSIM_REQUIRE_ORACLES=1 COSIM_REQUIRE_MODELS=1 $(GO) test -count=1 -timeout 30m ./...
	$(MAKE) --no-print-directory models-test
	$(MAKE) --no-print-directory example-test

# The example user project is a module of its own: `go test ./...` above
# does not reach it. Its tests build its tagger with `cosim model build`
# (64 bits, and the planted bug's build) and run it beside switch4_64.
example-test: $(call sim_model_bin,switch4_64) ## the example user project (harness/example): its own RTL built by cosim model build, its directed tests, one with the switch
	cd harness/example && COSIM_REQUIRE_MODELS=1 $(GO) test -count=1 -timeout 10m ./...

tap-demo: deps build ## as root: hosts h1..h4 in netns on TAPs on the RTL switch (512 bits), ping + 5 s iperf3, all checked
	$(BUILD)/cosim tap-demo --width 512 --seconds 5 --no-pcap --out $(OUT)/tap-demo

bench: build ## benchmarks: golden codecs and models (RC pair, switch, DCQCN); stimulus generation; harness vs raw model speed; NIC system; the fabric scenario; live bridge; peak memory against run length
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./golden/... ./cosim/...
	$(GO) test -run '^$$' -bench Source -benchmem ./harness/engine
	COSIM_REQUIRE_MODELS=1 $(GO) test -run '^$$' -bench HarnessVsRaw -benchtime 3s ./harness/engine
	COSIM_REQUIRE_MODELS=1 $(GO) test -run '^$$' -bench NICSystem -benchtime 500x ./harness/engine
	COSIM_REQUIRE_MODELS=1 $(GO) test -run '^$$' -bench Fabric -benchtime 1x ./harness/engine
	COSIM_REQUIRE_MODELS=1 $(GO) test -run '^$$' -bench Live -benchtime 2000x ./harness/bridge
	COSIM_REQUIRE_MODELS=1 $(GO) test -run '^$$' -bench 'PeakRSS|Campaign' -benchtime 1x ./cmd/cosim

# Every part runs even when one before it failed: a soak is read whole.
# The campaign directories start empty: a merge takes in every run there,
# and an earlier soak of more seeds would leave some.
soak: build ## long random campaigns (not in make test): rtl/switch/tb/soak.toml, SOAK_FRAMES per run; rtl/nic/tb/soak.toml, SOAK_MESSAGES RDMA messages per run (fewer when large); SOAK_SEEDS seeds from SOAK_SEED; the switch's timing, cycle by cycle; each run's scenario and results under OUT/soak
	@st=0; set -x; rm -rf $(OUT)/soak/switch $(OUT)/soak/nic; \
	$(BUILD)/cosim campaign run rtl/switch/tb/soak.toml --seed-from $(SOAK_SEED) --seed-count $(SOAK_SEEDS) \
	  --set frames=$(SOAK_FRAMES) --out $(OUT)/soak/switch --models $(BUILD)/models || st=1; \
	$(BUILD)/cosim campaign run rtl/nic/tb/soak.toml --seed-from $(SOAK_SEED) --seed-count $(SOAK_SEEDS) \
	  --set messages=$(SOAK_MESSAGES) --out $(OUT)/soak/nic --models $(BUILD)/models || st=1; \
	COSIM_REQUIRE_MODELS=1 COSIM_SOAK_FRAMES=$(SOAK_FRAMES) COSIM_SOAK_SEEDS=$(SOAK_SEEDS) COSIM_SOAK_SEED=$(SOAK_SEED) \
	  $(GO) test -count=1 -timeout 0 -v -run 'TestSwitchTimingSoak' ./rtl/switch/tb || st=1; \
	exit $$st

mutants: build ## mutation campaigns (also in make test): build the switch and the NIC with each planted bug of rtl/*/tb/mutants.toml, show which scenario catches it
	COSIM_REQUIRE_MODELS=1 $(GO) test -count=1 -timeout 0 -v -run 'Mutants$$' ./rtl/switch/tb ./rtl/nic/tb

lint: models-lint ## verilator --lint-only -Wall on every RTL module and model top, go vet, gofmt
	@for f in $$(find rtl -name '*.sv' -not -path '*/tb/*' | sort); do \
	  pkg=; case $$f in rtl/nic/nic_pkg.sv) ;; rtl/nic/*) pkg=rtl/nic/nic_pkg.sv ;; esac; \
	  $(if $(Q),printf '  %-9s%s\n' LINT $$f,echo "verilator --lint-only -Wall $$pkg $$f"); \
	  verilator --lint-only -Wall -Irtl/common -Irtl/nic -Irtl/switch $$pkg $$f || exit 1; \
	done
	$(GO) vet ./...
	cd harness/example && $(GO) vet ./...
	@bad=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi

fuzz: ## run every fuzz target for FUZZTIME each (default 30s)
	@for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$t"; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $$pkg || exit 1; \
	  done; \
	done

clean: ## remove build/ and out/ (the example project's too)
	rm -rf $(BUILD) $(OUT) harness/example/build harness/example/out
