# headroom — build, test, benchmark and plot.
#   make                  ./headroom for this CPU (-O3 -march=native)
#   make ISA=avx2|avx512|generic [test]   other vector paths, built under build/ISA/
#   make test             unit + CLI tests, ends with "N passed, N failed"
#   make test-long        adds the large-N oracle battery
#   make bench            the main job: roofline (if none saved), default sweep, plots
#   make plots            render every chart from the newest results
#   make LIKWID=1         Marker API regions around each kernel
#   make V=1              show the commands
# The flags are part of the experiment: a change of CC/CFLAGS/ISA rebuilds everything.

ISA ?= native
CC ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
CXX ?= g++
OPTIMIZATION ?= -O3
BLAS ?= auto
LIKWID ?= 0

ARCH_native  := -march=native
ARCH_avx512  := -march=x86-64-v4 -mtune=generic
ARCH_avx2    := -march=haswell -mtune=generic
ARCH_generic := -march=x86-64 -mtune=generic
ARCHFLAGS := $(ARCH_$(ISA))
ifeq ($(ARCHFLAGS),)
$(error ISA must be one of native, avx512, avx2, generic (got '$(ISA)'))
endif

ifeq ($(ISA),native)
BUILD := build/native
BIN := headroom
else
BUILD := build/$(ISA)
BIN := $(BUILD)/headroom
endif
# BUILDDIR=DIR builds everything, the binary included, under DIR (scripts/hyperfine-compare.sh).
ifneq ($(BUILDDIR),)
BUILD := $(BUILDDIR)
BIN := $(BUILD)/headroom
endif

PKGS := libcjson inih
HAVE_BLAS := 0
ifneq ($(BLAS),0)
ifeq ($(shell pkg-config --exists openblas && echo yes),yes)
HAVE_BLAS := 1
PKGS += openblas
else
$(info notice: OpenBLAS not found (pkg-config openblas); building without the 'blas' kernel and GEMM)
endif
endif

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS ?=
CPPFLAGS_ALL := -Isrc -Ikernels -I$(BUILD) -D_GNU_SOURCE -DHR_HAVE_BLAS=$(HAVE_BLAS) \
                $(shell pkg-config --cflags $(PKGS))
CFLAGS_ALL := -std=c11 $(OPTIMIZATION) $(ARCHFLAGS) -fopenmp $(WARN) -MMD -MP $(CFLAGS)
LDLIBS_ALL := $(shell pkg-config --libs $(PKGS)) -fopenmp -lm $(LDLIBS)

ifeq ($(LIKWID),1)
CPPFLAGS_ALL += -DLIKWID_PERFMON
LDLIBS_ALL += -llikwid
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRC := $(wildcard src/*.c) $(wildcard kernels/*.c)
ifeq ($(HAVE_BLAS),0)
SRC := $(filter-out kernels/blas.c src/gemm_blas.c,$(SRC))
endif
OBJ := $(SRC:%.c=$(BUILD)/%.o)
LIBOBJ := $(filter-out $(BUILD)/src/main.o,$(OBJ))
TEST_SRC := $(wildcard tests/test_*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
UNIT := $(BUILD)/unit_tests

.PHONY: all test test-long bench plots clean FORCE gbench

all: $(BIN)

# The settings stamp: rewritten only when the flags change, and every object depends
# on it. It also carries the flags into the binary (results' context).
FLAGS_TEXT := $(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) | $(LDLIBS_ALL)
$(BUILD)/buildinfo.h: FORCE
	@mkdir -p $(BUILD)
	@printf '#define HR_BUILD_FLAGS "%s"\n#define HR_BUILD_ISA_REQ "%s"\n' \
	  '$(subst ",,$(FLAGS_TEXT))' '$(ISA)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
$(BUILD)/gitinfo.h: FORCE
	@mkdir -p $(BUILD)
	@printf '#define HR_GIT "%s"\n' '$(GIT_REV)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(BUILD)/src/sysinfo.o: $(BUILD)/gitinfo.h

$(BUILD)/%.o: %.c $(BUILD)/buildinfo.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c $< -o $@

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

plots: $(BIN)
	$(Q)bash scripts/plots.sh

clean:
	rm -rf build headroom

-include $(OBJ:.o=.d) $(TEST_OBJ:.o=.d)
