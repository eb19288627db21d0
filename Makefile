# headroom — build, test, benchmark and plot.
#   make                  ./headroom, the portable binary: every ISA level (generic, avx2,
#                         avx512) compiled in, the best one this CPU runs chosen at start
#                         (--isa / HEADROOM_ISA force a lower one); objects under build/portable/
#   make NATIVE=1         build/native/headroom, one level compiled with -march=native
#   make ISA=avx2|avx512|generic [test]   one fixed level, built under build/ISA/
#   make test             unit + CLI tests, ends with "N passed, N failed, N skipped"
#   make test-long        adds the large-N oracle battery
#   make bench            the main job: roofline (if none saved), default sweep, plots
#   make plots            render every chart from the newest results
#   make docs             docs/reference/cli.md and docs/headroom.1 from the option tables
#   make LIKWID=1         Marker API regions around each kernel
#   make plugin-example   the example plugin (examples/plugin/) into build/plugins/
#   make peers-setup peers   peer libraries' plugins (peers/<name>/) into build/plugins/
#   make peers-bench      headroom beside every peer built (configs/peers.ini): peers.md
#   make V=1              show the commands
#   make install PREFIX=/usr/local [DESTDIR=]   binary, configs, plots, man page, completion
# make bench/test/fuzz first install missing Debian packages (scripts/setup-deps.sh: as
# root, or through sudo; HEADROOM_NO_SETUP=1 skips it).
# The flags are part of the experiment: a change of CC/CFLAGS/ISA rebuilds everything.

ISA ?= portable
ifeq ($(NATIVE),1)
ISA := native
endif
CC ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
CXX ?= g++
OPTIMIZATION ?= -O3
BLAS ?= auto
LIKWID ?= 0

# The levels' flags are what kernels/cpu/dispatch.c checks the CPU for (x86-64-v3, -v4).
ARCH_native  := -march=native
ARCH_avx512  := -march=x86-64-v4 -mtune=generic
ARCH_avx2    := -march=x86-64-v3 -mtune=generic
ARCH_generic := -march=x86-64 -mtune=generic
# The portable binary: the harness at the x86-64 baseline, the levels at their own flags.
ARCH_portable := $(ARCH_generic)
LEVELS := generic avx2 avx512
ARCHFLAGS := $(ARCH_$(ISA))
ifeq ($(ARCHFLAGS),)
$(error ISA must be one of portable, native, avx512, avx2, generic (got '$(ISA)'))
endif

BUILD := build/$(ISA)
ifeq ($(ISA),portable)
BIN := headroom
else
BIN := $(BUILD)/headroom
endif
# BUILDDIR=DIR builds everything, the binary included, under DIR (scripts/hyperfine-compare.sh).
ifneq ($(BUILDDIR),)
BUILD := $(BUILDDIR)
BIN := $(BUILD)/headroom
endif

# SANITIZE=1: the whole build with ASan + UBSan under build/sanitize (make test-sanitize).
SANITIZE ?= 0
SANFLAGS :=
ifeq ($(SANITIZE),1)
BUILD := build/sanitize
BIN := $(BUILD)/headroom
OPTIMIZATION := -O1 -g
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer
endif

# Set-up before anything below asks pkg-config: the goals that the README's commands
# name install what is missing first (quick when nothing is: dpkg-query only). Its
# messages go to stderr; a package it cannot install leaves a one-line note and the
# build goes on with what is there. Sub-makes inherit HR_SETUP_RAN and skip it.
SETUP_GOALS := bench test test-long test-sanitize test-noblas fuzz plots
ifneq ($(filter $(SETUP_GOALS),$(MAKECMDGOALS)),)
ifeq ($(HEADROOM_NO_SETUP)$(HR_SETUP_RAN),)
$(shell bash scripts/setup-deps.sh $(if $(filter fuzz,$(MAKECMDGOALS)),--fuzz) >&2)
export HR_SETUP_RAN := 1
endif
endif

PKGS := libcjson
HAVE_BLAS := 0
# OpenBLAS: prefer Debian's OpenMP build (libopenblas-openmp-dev), which shares
# libgomp's thread pool with headroom's kernels; the pthread build keeps its own
# threads, and the two pools fight over the cores between calls (20 ms stalls seen).
OPENBLAS_OMP_PC := $(firstword $(wildcard /usr/lib/*/openblas-openmp/pkgconfig/openblas.pc))
ifneq ($(OPENBLAS_OMP_PC),)
export PKG_CONFIG_PATH := $(dir $(OPENBLAS_OMP_PC))$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
OPENBLAS_RPATH := -Wl,-rpath,$(shell PKG_CONFIG_PATH=$(dir $(OPENBLAS_OMP_PC)) pkg-config --variable=libdir openblas)
endif
ifneq ($(BLAS),0)
ifeq ($(shell pkg-config --exists openblas && echo yes),yes)
HAVE_BLAS := 1
PKGS += openblas
ifeq ($(OPENBLAS_OMP_PC),)
$(info notice: using OpenBLAS's pthread build; install libopenblas-openmp-dev so BLAS and OpenMP share one thread pool)
endif
else
$(info notice: OpenBLAS not found (pkg-config openblas); building without the 'blas' kernel and GEMM)
endif
endif

# The rooms, lowest first: a file may include headers of its own room and of the rooms
# before it, never after (scripts/check-layers.py, run by make test; docs/ARCHITECTURE.md "Layers").
# include/headroom holds the public plugin ABI (plugin.h), below everything and including nothing of the tree.
ROOMS := include/headroom kernels harness/base harness/measure harness/formats harness/analyses harness/cli
# A room is a folder tree (kernels/: the interface at its top, a folder per family below);
# every folder of it is on the include path, so headers are included by base name.
ROOM_DIRS := $(shell for r in $(ROOMS); do find $$r -type d | LC_ALL=C sort; done)

WARN := -Wall -Wextra -Werror=implicit-function-declaration -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS ?=
CPPFLAGS_ALL := $(addprefix -I,$(ROOM_DIRS)) -Iinclude -I$(BUILD) -D_GNU_SOURCE -DHR_HAVE_BLAS=$(HAVE_BLAS) \
                $(shell pkg-config --cflags $(PKGS))
# Every loop starts on a 64-byte boundary, wherever the linker puts its function: else an
# unrelated change that moves a hot loop's start (0 mod 64 against 16 or 32) moves its
# speed by a few percent, and two builds' `headroom ab` measures the layout, not the
# change. Aligned, two layouts measure the same (perf-log 0240).
ALIGN := -falign-loops=64
CFLAGS_BASE := -std=c11 $(OPTIMIZATION) $(ALIGN) -fopenmp $(WARN) -MMD -MP $(SANFLAGS) $(CFLAGS)
CFLAGS_ALL := $(CFLAGS_BASE) $(ARCHFLAGS)
LDLIBS_ALL := $(shell pkg-config --libs $(PKGS)) $(if $(filter openblas,$(PKGS)),$(OPENBLAS_RPATH)) -fopenmp -lm -ldl $(LDLIBS)

ifeq ($(LIKWID),1)
CPPFLAGS_ALL += -DLIKWID_PERFMON
LDLIBS_ALL += -llikwid
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRC := $(foreach d,$(ROOM_DIRS),$(sort $(wildcard $(d)/*.c)))
ifeq ($(HAVE_BLAS),0)
SRC := $(filter-out kernels/ref/blas.c kernels/gemm/gemm_blas.c,$(SRC))
endif
# Build variants: a source compiled again under another object's name with -D flags (as
# FFTW compiles one source per ISA), never a wrapper .c that includes another .c. A variant
# is the object's stem, its source VSRC_<stem> and its flags VDEFS_<stem>; it goes wherever
# its source's objects go (every level of the portable build, the fuzz build).
DEC := kernels/decode
# decode's block steps again with their prefetches into L1 (prefetcht0), the copies
# hr_decode_pf_l1 takes (decode_block.h)
PF_L1 := -DHR_DECODE_PF_COPY=1 -DHR_DECODE_PF_HINT=3
VARIANTS := $(DEC)/decode_bf16_l1 $(DEC)/decode_kv_l1 $(DEC)/decode_i8_l1 $(DEC)/decode_i8e $(DEC)/decode_i8e_l1
VSRC_$(DEC)/decode_bf16_l1 := $(DEC)/decode_bf16.c
VDEFS_$(DEC)/decode_bf16_l1 := $(PF_L1) -Dhr_decode_block_bf16=hr_decode_block_bf16_l1
VSRC_$(DEC)/decode_kv_l1 := $(DEC)/decode_kv.c
VDEFS_$(DEC)/decode_kv_l1 := $(PF_L1) -Dhr_decode_block_kv=hr_decode_block_kv_l1
VSRC_$(DEC)/decode_i8_l1 := $(DEC)/decode_i8.c
VDEFS_$(DEC)/decode_i8_l1 := $(PF_L1) -DHR_I8_STEP=hr_decode_i8_vnni_l1
# decode's int8 step for AVX2 CPUs without AVX-VNNI: vpmaddubsw + vpmaddwd (decode_i8.c)
VSRC_$(DEC)/decode_i8e := $(DEC)/decode_i8.c
VDEFS_$(DEC)/decode_i8e := -DHR_I8_EMU_COPY=1 -DHR_I8_STEP=hr_decode_i8_emu
# and that step with its prefetches into L1 (HEADROOM_DECODE_PF=l1)
VSRC_$(DEC)/decode_i8e_l1 := $(DEC)/decode_i8.c
VDEFS_$(DEC)/decode_i8e_l1 := $(PF_L1) -DHR_I8_EMU_COPY=1 -DHR_I8_STEP=hr_decode_i8_emu_l1
SRC += $(VARIANTS:%=%.c)
# A source's own objects have no VSRC_: %.c, no flags.
vsrc = $(or $(VSRC_$(1)),$(1).c)

# Every file that uses the vector layer, and every kernel: compiled once per ISA level.
LEVEL_SRC := $(filter-out kernels/registry.c kernels/core.c kernels/dtype.c kernels/path.c kernels/plugin_kernel.c \
               kernels/cpu/dispatch.c,$(filter kernels/%,$(SRC)))
ifeq ($(ISA),portable)
# Each level: its objects under build/portable/lv_<level>/, linked into one relocatable
# object level_<level>.o in which only the table hr_isa_<level> stays global (objcopy
# -G), so the levels' kernels, with the same names, never meet; dispatch.c picks one.
OBJ := $(filter-out $(LEVEL_SRC:%.c=$(BUILD)/%.o),$(SRC:%.c=$(BUILD)/%.o)) $(LEVELS:%=$(BUILD)/level_%.o)
LEVEL_OBJ := $(foreach l,$(LEVELS),$(LEVEL_SRC:%.c=$(BUILD)/lv_$(l)/%.o))
$(BUILD)/kernels/cpu/dispatch.o: CPPFLAGS_ALL += -DHR_ISA_MULTI
else
OBJ := $(SRC:%.c=$(BUILD)/%.o)
LEVEL_OBJ :=
endif
LIBOBJ := $(filter-out $(BUILD)/harness/cli/main.o,$(OBJ))
TEST_SRC := $(wildcard tests/test_*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
# Tests fill problem structs positionally and leave the element types at f32 (zero).
$(TEST_OBJ): CFLAGS_ALL += -Wno-missing-field-initializers
UNIT := $(BUILD)/unit_tests

.PHONY: all test test-long test-sanitize test-noblas fuzz bench plots clean FORCE gbench install uninstall plugin-example peers peers-setup peers-bench docs

all: $(BIN)

# The settings stamp: rewritten only when the flags change, and every object depends
# on it. It also carries the flags into the binary (results' context).
FLAGS_TEXT := $(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) | $(LDLIBS_ALL)$(if $(filter portable,$(ISA)), | levels:$(foreach l,$(LEVELS), $(l)=$(ARCH_$(l))))
$(BUILD)/buildinfo.h: FORCE
	@mkdir -p $(BUILD)
	@printf '#define HR_BUILD_FLAGS "%s"\n#define HR_BUILD_ISA_REQ "%s"\n' \
	  '$(subst ",,$(FLAGS_TEXT))' '$(ISA)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
# The release (VERSION) and the commit go into `headroom --version` and every result's context.
HEADROOM_VERSION := $(shell cat VERSION 2>/dev/null || echo unknown)
GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
# The commit's committer date (strict ISO 8601): headroom history orders runs by it.
GIT_TIME := $(shell git log -1 --format=%cI HEAD 2>/dev/null)
# gitinfo.h: the commit, and a checksum of the kernels' source, which goes into the
# build_id so that wisdom tuned for other kernel code is not used.
$(BUILD)/gitinfo.h: FORCE
	@mkdir -p $(BUILD)
	@printf '#define HR_GIT "%s"\n#define HR_GIT_TIME "%s"\n#define HR_VERSION "%s"\n#define HR_KERNELS_HASH "%s"\n' '$(GIT_REV)' '$(GIT_TIME)' '$(HEADROOM_VERSION)' \
	  "$$(find kernels -name '*.[ch]' | LC_ALL=C sort | xargs cat | cksum | cut -d' ' -f1)" > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(BUILD)/harness/base/sysinfo.o: $(BUILD)/gitinfo.h
# The site's template files are assembled into this object (.incbin), not #included.
$(BUILD)/harness/analyses/site_assets.o: $(wildcard harness/site/*)

# A build from before the variants has dependency files naming the wrapper sources they
# replaced (decode_bf16_l1.c, ...): this empty rule rebuilds those objects once.
$(VARIANTS:%=%.c): ;
.SECONDEXPANSION:
$(BUILD)/%.o: $$(call vsrc,$$*) $(BUILD)/buildinfo.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<$(if $(VDEFS_$*), as $(notdir $*))")
	$(Q)$(CC) $(CPPFLAGS_ALL) $(VDEFS_$*) $(CFLAGS_ALL) -c $< -o $@

ifeq ($(ISA),portable)
define LEVEL_RULES
$(BUILD)/lv_$(1)/%.o: $$$$(call vsrc,$$$$*) $(BUILD)/buildinfo.h
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  CC      $$< ($(1)$$(if $$(VDEFS_$$*),: $$(notdir $$*)))")
	$$(Q)$$(CC) $$(CPPFLAGS_ALL) -DHR_ISA_SYM=hr_isa_$(1) $$(VDEFS_$$*) $$(CFLAGS_BASE) $$(ARCH_$(1)) -c $$< -o $$@
$(BUILD)/level_$(1).o: $(LEVEL_SRC:%.c=$(BUILD)/lv_$(1)/%.o)
	@$$(if $$(Q),echo "  LEVEL   $$@")
	$$(Q)ld -r -o $$@ $$^ && objcopy --keep-global-symbol=hr_isa_$(1) $$@
endef
$(foreach l,$(LEVELS),$(eval $(call LEVEL_RULES,$(l))))
endif

$(BIN): $(OBJ)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(OBJ) -o $@ $(LDLIBS_ALL)

$(UNIT): $(LIBOBJ) $(TEST_OBJ)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LIBOBJ) $(TEST_OBJ) -o $@ $(LDLIBS_ALL)

test: $(BIN) $(UNIT)
	$(Q)HR_BIN=$(abspath $(BIN)) HR_UNIT=$(abspath $(UNIT)) bash tests/run.sh

test-long: $(BIN) $(UNIT)
	$(Q)HR_LONG=1 HR_BIN=$(abspath $(BIN)) HR_UNIT=$(abspath $(UNIT)) bash tests/run.sh

# The whole suite (unit + shell) against an ASan+UBSan build; any report fails the run
# (exit code 86). Leak checking is on (CONTRIBUTING.md lists what CI runs).
SAN_ENV := HR_SANITIZE=1 \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86:allocator_may_return_null=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86
test-sanitize:
	$(Q)$(SAN_ENV) $(MAKE) --no-print-directory SANITIZE=1 test

# The whole suite against a build without OpenBLAS (build/noblas): the optional
# dependency must degrade (blas left out with a note), not break the rest.
test-noblas:
	$(Q)$(MAKE) --no-print-directory BLAS=0 BUILDDIR=build/noblas test

# libFuzzer targets fuzz/fuzz_*.c, linked with the library built by clang under
# build/fuzz; each runs FUZZ_SECONDS from its seed corpus fuzz/corpus/<target>/ (new
# inputs go to build/fuzz/corpus/, crashes to build/fuzz/crash-*).
FUZZ_SECONDS ?= 60
# FUZZ_SEED=0 lets libFuzzer pick a seed (exploration); CI fixes one, so a commit's
# fuzz step explores the same paths each run and a red CI is the commit's own.
FUZZ_SEED ?= 0
FUZZ_CC ?= clang
FUZZ_BUILD := build/fuzz
FUZZ_CFLAGS := -std=c11 -g -O1 $(ARCHFLAGS) -fopenmp -fno-omit-frame-pointer \
  -fsanitize=address,undefined -fno-sanitize-recover=undefined
# One level (the baseline's portable C path): the fuzz targets read files, not kernels.
FUZZ_LIBOBJ := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(filter-out harness/cli/main.c,$(SRC)))
FUZZ_BINS := $(patsubst fuzz/%.c,$(FUZZ_BUILD)/%,$(wildcard fuzz/fuzz_*.c))
$(FUZZ_BUILD)/%.o: $$(call vsrc,$$*) $(BUILD)/buildinfo.h $(BUILD)/gitinfo.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(CPPFLAGS_ALL) $(VDEFS_$*) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_LIBOBJ)
	@$(if $(Q),echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) $(CPPFLAGS_ALL) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_LIBOBJ) -o $@ $(LDLIBS_ALL)
.SECONDARY: $(FUZZ_LIBOBJ)
fuzz: $(FUZZ_BINS)
	$(Q)for f in $(FUZZ_BINS); do \
	  t=$${f#$(FUZZ_BUILD)/fuzz_}; mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
	  echo "== $$f: $(FUZZ_SECONDS) s"; \
	  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  $$f -seed=$(FUZZ_SEED) -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/$$t- \
	    $(FUZZ_BUILD)/corpus/$$t fuzz/corpus/$$t > $(FUZZ_BUILD)/$$t.log 2>&1; rc=$$?; \
	  grep -E '^(INFO: seed|#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|SUMMARY)|(Sanitizer|runtime error|deadly signal|Test unit written)' \
	    $(FUZZ_BUILD)/$$t.log; \
	  [ $$rc -eq 0 ] || { echo "fuzz: $$f failed (log $(FUZZ_BUILD)/$$t.log, inputs $(FUZZ_BUILD)/$$t-*)"; exit 1; }; \
	done

bench: $(BIN)
	$(Q)bash scripts/bench.sh $(BIN)

# Google Benchmark front end: every registered kernel x a set of shapes, linked against
# the same objects; built only where pkg-config knows `benchmark`.
GBENCH := $(BUILD)/headroom_gbench
gbench:
ifeq ($(shell pkg-config --exists benchmark && echo yes),yes)
	$(Q)$(MAKE) --no-print-directory $(GBENCH)
$(GBENCH): gbench/headroom_gbench.cc $(LIBOBJ)
	@$(if $(Q),echo "  CXX     $@")
	$(Q)$(CXX) -std=c++17 $(OPTIMIZATION) $(ARCHFLAGS) -fopenmp $(CPPFLAGS_ALL) \
	  $(shell pkg-config --cflags benchmark) $< $(LIBOBJ) -o $@ \
	  $(shell pkg-config --libs benchmark) $(LDLIBS_ALL) -lpthread
else
	@echo "notice: Google Benchmark not found (pkg-config benchmark): gbench not built"
endif

# The example plugin (examples/plugin/), built by its own Makefile with only include/:
# build/plugins/example_naive.so (headroom run --plugin build/plugins/example_naive.so).
plugin-example:
	$(Q)$(MAKE) --no-print-directory -C examples/plugin OUT=$(abspath build/plugins) CC=$(CC)

# Peer kernels as plugins (peers/<name>/): dependencies fetched by peers-setup into
# build/peers/, each plugin built when its dependency is there, else a one-line notice.
peers-setup:
	$(Q)bash peers/setup.sh

peers:
	$(Q)bash peers/build.sh $(abspath build/plugins)

# headroom's kernels beside every peer built (configs/peers.ini, interleaved), one
# results set, the report with the peer / headroom table and peers.md printed.
peers-bench: $(BIN)
	$(Q)bash scripts/peers-bench.sh $(BIN) configs/peers.ini

plots: $(BIN)
	$(Q)bash scripts/plots.sh

# The CLI reference (docs/reference/cli.md) and the man page (docs/headroom.1), generated
# from the binary's option tables (headroom help --reference) by scripts/gen-docs.py; make
# test fails while the committed ones differ from what this writes (tests/sh_docs.sh).
docs: $(BIN)
	$(Q)python3 scripts/gen-docs.py --bin $(abspath $(BIN))

# make install PREFIX=/usr/local [DESTDIR=/staging]: the binary, the configs and chart
# scripts it finds relative to itself (<prefix>/share/headroom/, paths.c), the man page
# and bash completion. INSTALL_BIN picks another built binary (tests/sh_install.sh).
PREFIX ?= /usr/local
INSTALL_BIN ?= $(BIN)
DEST := $(DESTDIR)$(PREFIX)
SHARE := $(DEST)/share/headroom
install: $(INSTALL_BIN)
	install -d $(DEST)/bin $(SHARE)/configs $(SHARE)/plots $(DEST)/share/man/man1 \
	  $(DEST)/share/bash-completion/completions $(DEST)/include/headroom
	install -m 755 $(INSTALL_BIN) $(DEST)/bin/headroom
	install -m 644 include/headroom/plugin.h $(DEST)/include/headroom/plugin.h
	install -m 644 configs/*.ini $(SHARE)/configs/
	install -m 644 plots/*.gp $(SHARE)/plots/
	install -m 644 docs/headroom.1 $(DEST)/share/man/man1/headroom.1
	install -m 644 scripts/headroom-completion.bash $(DEST)/share/bash-completion/completions/headroom
uninstall:
	rm -f $(DEST)/bin/headroom $(DEST)/share/man/man1/headroom.1 \
	  $(DEST)/share/bash-completion/completions/headroom $(DEST)/include/headroom/plugin.h
	-rmdir $(DEST)/include/headroom 2>/dev/null
	rm -rf $(SHARE)

clean:
	rm -rf build headroom

-include $(OBJ:.o=.d) $(LEVEL_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(FUZZ_LIBOBJ:.o=.d)
