# gpuagg — aggregation offloaded to NVIDIA GPUs (PGXS build)
#
# The version is written once, in gpuagg.control; everything else derives it.
# Builds the CUDA kernels into one fatbin when nvcc is found (override with
# NVCC=/path/to/nvcc, or NVCC= to skip), and builds without it otherwise.

EXTENSION = gpuagg
EXTVERSION = $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" $(EXTENSION).control)
MODULE_big = gpuagg
OBJS = \
	src/gpuagg.o \
	src/planner.o \
	src/decorrelate.o \
	src/distinct.o \
	src/plan.o \
	src/program.o \
	src/exec.o \
	src/explain.o \
	src/parallel.o \
	src/topn.o \
	src/fetch.o \
	src/batch.o \
	src/join.o \
	src/dict.o \
	src/ledger.o \
	src/stat.o \
	src/result.o \
	src/device_cpu.o \
	src/cuda_driver.o \
	src/engine.o \
	src/engine_table.o \
	src/call.o \
	src/cuda_process.o \
	src/device_cuda.o \
	src/service.o
DATA = $(wildcard $(EXTENSION)--*.sql)

# One topic a file; each offloaded query is compared with its native run.
# REGRESS is what make installcheck runs against any server: it changes no
# server-wide setting and leaves the GPU service alone.
REGRESS = setup types nulls filters having errors fallback explain rescan correlated distinct \
	params strings conditionals datetime grouping ordered numeric joins parallel partitions heap service \
	differential
# These change server-wide settings (ALTER SYSTEM) or stop the GPU service:
# test/run.sh runs them after REGRESS, in its throw-away cluster only.
REGRESS_CLUSTER = sharded admission dying service_restart
# UTF-8, so that the string tests' multibyte values and ICU collation work
REGRESS_OPTS = --encoding=UTF8
# Concurrency (specs/*.spec, pg_isolation_regress): snapshots of in-place reads
ISOLATION = snapshot
CONTRIB_TESTDB = gpuagg_regress

# -Wextra warnings that PostgreSQL's own headers trip are turned off.
# WERROR=1 (test/run.sh, so CI and development builds) makes the rest
# errors; a user's or packager's build only warns, so a newer compiler's
# new warning does not break it.
PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers -Wno-sign-compare $(if $(WERROR),-Werror)
PG_CPPFLAGS = -DGPUAGG_VERSION='"$(EXTVERSION)"'
# libcuda is opened at run time (dlopen), never linked
SHLIB_LINK = -ldl -lpthread

EXTRA_CLEAN = gpuagg.fatbin

# No LLVM bitcode for JIT inlining: gpuagg's work is not JIT-compiled
# expressions, and the bitcode needs a clang the GPU host does not have.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies: every object is rebuilt when a
# header changes (a struct that grew, GpuAggState, GaResult, read by an
# object compiled before would be read at the old offsets)
$(OBJS): $(wildcard src/*.h) $(wildcard cuda/*.h)

# ---- CUDA kernels ----------------------------------------------------------
NVCC ?= $(shell command -v nvcc 2>/dev/null || \
	(test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc))
CUDA_SRCS = $(wildcard cuda/*.cu)
CUDA_HDRS = $(wildcard cuda/*.h)
# sm_80 and sm_90 machine code, plus compute_90 PTX for later GPUs
NVCC_GENCODE = -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90
NVCC_FLAGS = -O3 -std=c++17 $(if $(WERROR),--Werror all-warnings) $(NVCC_GENCODE)

ifneq ($(strip $(NVCC)),)
FATBIN = gpuagg.fatbin
all: $(FATBIN)

$(FATBIN): $(CUDA_SRCS) $(CUDA_HDRS)
	$(NVCC) $(NVCC_FLAGS) --fatbin -o $@ $(CUDA_SRCS)

install: install-fatbin
install-fatbin: $(FATBIN)
	$(INSTALL_DATA) $(FATBIN) '$(DESTDIR)$(pkglibdir)/$(FATBIN)'

uninstall: uninstall-fatbin
uninstall-fatbin:
	rm -f '$(DESTDIR)$(pkglibdir)/$(FATBIN)'

endif

$(OBJS): $(wildcard src/*.h) $(CUDA_HDRS)
# the library reports the control file's version (gpuagg.library_version())
src/gpuagg.o: $(EXTENSION).control

.PHONY: install-fatbin uninstall-fatbin

# the whole pg_regress test list, for test/run.sh and test/gpu/run.sh
print-regress:
	@echo $(REGRESS) $(REGRESS_CLUSTER)
.PHONY: print-regress
