# gputrace: top-level build.
#
# Each stage folder brings its own fragment (traces/module.mk, cupti/module.mk, ...) that adds its
# sources to the variables below; this file holds the toolchain, the flags, the pattern rules and
# the user-facing targets (all, demo, check, install, uninstall, deps). Everything is built under $(BUILD).
#
#   make            build the library, the launcher, the analyzer, the CUDA programs and the tests
#   make demo       install what is missing, build, record or analyze a trace (see README.md)
#   make check      every unit test plain and under ASan+UBSan, every everyday CLI test plain
#   make check-all  that, and the slow tier: CLI tests under the sanitizers, fuzz targets, scaling
#   make V=1 ...    print the compiler commands instead of one short line per target
#   make install PREFIX=/usr/local [DESTDIR=/staging]
#   make uninstall PREFIX=/usr/local [DESTDIR=/staging]

BUILD    ?= build
PREFIX   ?= /usr/local
CUDA_HOME ?= /usr/local/cuda
SAN      ?= 0

CC       ?= cc
ifeq ($(origin CC),default)
CC       := cc
endif

# --- CUDA and CUPTI, found in any of the toolkit's layouts -----------------------------------
CUDA_INC_CANDIDATES := $(CUDA_HOME)/include $(CUDA_HOME)/targets/x86_64-linux/include \
                       $(CUDA_HOME)/extras/CUPTI/include
CUPTI_INC := $(patsubst %/cupti.h,%,$(firstword $(wildcard $(addsuffix /cupti.h,$(CUDA_INC_CANDIDATES)))))
CUDA_INC  := $(patsubst %/cuda.h,%,$(firstword $(wildcard $(addsuffix /cuda.h,$(CUDA_INC_CANDIDATES)))))
NVCC      := $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc))
NVCC_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90

# --- flags ----------------------------------------------------------------------------------
WARN     := -Wall -Wextra -Werror
CSTD     := -std=c11 -D_GNU_SOURCE
OPT      ?= -O2 -g
CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) -fPIC -fvisibility=hidden -I. $(EXTRA_CFLAGS)
LDFLAGS_ALL := $(EXTRA_LDFLAGS)
ifeq ($(SAN),1)
CFLAGS_ALL  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS_ALL += -fsanitize=address,undefined
endif

OBJ := $(BUILD)/obj

# A quiet build prints one line per target ("  CC   analyze/engines/diff.c", "  LD   build/gpuanalyze"),
# so that a warning or an error is not lost among compiler commands; make V=1 prints the commands.
# A recipe's command begins with $(call quiet,TAG,WHAT).
V ?= 0
ifeq ($(V),1)
quiet =
else
quiet = @printf '  %-4s %s\n' '$(1)' '$(2)';
endif

# Fragments append to these.
TRACE_SRCS    :=
ANALYZE_SRCS  :=
ANALYZE_MAIN  :=
CUPTI_SRCS    :=
PRELOAD_SRCS  :=
LAUNCHER_SRCS :=
UNIT_TESTS    :=
TEST_HELPERS  :=
CUDA_PROGS    :=
REF_LIBS      :=
ALL_TARGETS   :=
CHECK_SCRIPTS :=
MAN_PAGES     :=
INSTALL_BINS  :=
INSTALL_LIBS  :=
INSTALL_SHLIBS :=
INSTALL_LIBEXEC :=
INSTALL_HEADERS :=
INSTALL_PKGCONFIG :=

include common/module.mk
include traces/module.mk
include analyze/module.mk
include cupti/module.mk
include preload/module.mk
include kernels/module.mk
include kernels/refs/module.mk
include tests/tools/module.mk
include tests/cli/progs/module.mk
include tests/gpu/module.mk
include tests/gpu/progs/module.mk
include tests/bench/module.mk
include tests/fuzz/module.mk
include tests/module.mk

.PHONY: all deps demo check check-all install uninstall clean help
.DEFAULT_GOAL := all

all: $(ALL_TARGETS)

# --- pattern rules ---------------------------------------------------------------------------
# CFLAGS_<folder> holds a folder's own include paths: only cupti/, preload/ (not the launcher's
# objects) and tests/ see the CUDA and CUPTI headers; traces/ and analyze/ get none, so reaching
# one of them is a build error (tests/cli/test_layering.sh checks the rest of docs/DESIGN.md's layering).
$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CFLAGS_ALL) $(CFLAGS_$(firstword $(subst /, ,$<))) -MMD -MP -c $< -o $@

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# --- dependencies ----------------------------------------------------------------------------
# Debian packages that provide the headers we compile against (zlib: export -z; SQLite: export --format sqlite), and the tools make check runs
# (mandoc lints the man pages, pkg-config links a program against the installed library,
# sqlite3 checks stats against SQL over the export).
# No libelf: the one ELF reader, cupti/nvinfo.c, walks a cubin's sections by hand so that the
# preload depends on nothing the traced program may lack.
DEB_DEPS := libzstd-dev zlib1g-dev libsqlite3-dev libcmocka-dev mandoc pkgconf sqlite3

deps:
	@sh tests/deps.sh $(DEB_DEPS)

# --- the two commands of the README ---------------------------------------------------------
# Builds use every core unless the caller already gave make -j (a jobserver is running then).
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
SUBMAKE = $(MAKE) --no-print-directory $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS))
SAN_MAKE = $(SUBMAKE) BUILD=$(BUILD)/san SAN=1 OPT="-O1 -g"

# The demo's build goes to a log, so that what it prints leads with the trace and what to run next;
# a failed build shows the log's end.
demo: deps
	@mkdir -p $(BUILD)
	@echo "gputrace demo: building everything (a few minutes the first time; the log: $(BUILD)/build.log)"
	@$(SUBMAKE) all >$(BUILD)/build.log 2>&1 || { tail -n 40 $(BUILD)/build.log; \
	    echo "gputrace demo: the build failed (above; the whole log: $(BUILD)/build.log)"; exit 1; }
	@sh tests/demo.sh $(BUILD)

# The tiers (tests/module.mk lists the entries): check is the everyday loop, check-all adds the
# slow tier. Both run their tests in parallel (tests/run_tests.sh) and log under $(BUILD)/check.
check: deps
	@$(SUBMAKE) all
	@$(SAN_MAKE) tests-only
	@sh tests/run_tests.sh $(BUILD)/check check $(CHECK_ENTRIES)

# The slow tier's DuckDB consumer test reads DuckDB's Node API from npm, pinned here.
DUCKDB_NODE_API ?= @duckdb/node-api@1.5.6-r.1

check-all: deps
	@$(SUBMAKE) all
	@$(SAN_MAKE) tests-only
	@if sh tests/fuzz/toolchain.sh >/dev/null; then $(SUBMAKE) fuzz; fi
	@sh tests/duckdb_modules.sh $(BUILD)/duckdb $(DUCKDB_NODE_API)
	@GT_DUCKDB_MODULES=$${GT_DUCKDB_MODULES:-$(abspath $(BUILD))/duckdb/node_modules} \
	    sh tests/run_tests.sh $(BUILD)/check check-all $(CHECK_ENTRIES) $(SLOW_ENTRIES)

# --- install ---------------------------------------------------------------------------------
# The layout is fixed relative to PREFIX, because the installed launcher finds its pieces from its
# own path (launcher_find in preload/launcher/launcher.c: BIN/../lib/libgputrace.so,
# BIN/../libexec/gputrace/bwprobe): it works wherever PREFIX is, and DESTDIR stages the whole tree
# for a package. Fragments list what they install: INSTALL_BINS, INSTALL_LIBS (archives),
# INSTALL_SHLIBS, INSTALL_LIBEXEC, INSTALL_HEADERS, INSTALL_PKGCONFIG (NAME.pc.in templates, with
# @PREFIX@ and @VERSION@) and MAN_PAGES; uninstall removes exactly those files (for the same build
# configuration: a libgputrace.so or bwprobe this machine cannot build is not looked for).
bindir       := $(PREFIX)/bin
libdir       := $(PREFIX)/lib
libexecdir   := $(PREFIX)/libexec/gputrace
includedir   := $(PREFIX)/include
pkgconfigdir := $(PREFIX)/lib/pkgconfig
mandir       := $(PREFIX)/share/man
VERSION      := $(shell sed -n 's/.*GT_TOOL_VERSION "\([^"]*\)".*/\1/p' traces/gputrace.h)
MAN_DIRS     := $(sort $(foreach m,$(MAN_PAGES),man$(patsubst .%,%,$(suffix $(m)))))
PC_FILES     := $(patsubst %.pc.in,$(BUILD)/pkgconfig/%.pc,$(notdir $(INSTALL_PKGCONFIG)))

install: all
	@set -e; mkdir -p $(BUILD)/pkgconfig; for t in $(INSTALL_PKGCONFIG); do \
	    n=$${t##*/}; sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $$t > $(BUILD)/pkgconfig/$${n%.in}; done
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) $(DESTDIR)$(pkgconfigdir) \
	           $(addprefix $(DESTDIR)$(mandir)/,$(MAN_DIRS))
	install -m 755 $(INSTALL_BINS) $(DESTDIR)$(bindir)/
	install -m 644 $(INSTALL_LIBS) $(DESTDIR)$(libdir)/
	$(if $(INSTALL_SHLIBS),install -m 755 $(INSTALL_SHLIBS) $(DESTDIR)$(libdir)/)
	$(if $(INSTALL_LIBEXEC),install -d $(DESTDIR)$(libexecdir))
	$(if $(INSTALL_LIBEXEC),install -m 755 $(INSTALL_LIBEXEC) $(DESTDIR)$(libexecdir)/)
	install -m 644 $(INSTALL_HEADERS) $(DESTDIR)$(includedir)/
	install -m 644 $(PC_FILES) $(DESTDIR)$(pkgconfigdir)/
	@set -e; for m in $(MAN_PAGES); do s=$${m##*.}; echo "install -m 644 $$m $(DESTDIR)$(mandir)/man$$s/"; \
	    install -m 644 $$m $(DESTDIR)$(mandir)/man$$s/; done

uninstall:
	rm -f $(addprefix $(DESTDIR)$(bindir)/,$(notdir $(INSTALL_BINS)))
	rm -f $(addprefix $(DESTDIR)$(libdir)/,$(notdir $(INSTALL_LIBS) $(INSTALL_SHLIBS)))
	$(if $(INSTALL_LIBEXEC),rm -f $(addprefix $(DESTDIR)$(libexecdir)/,$(notdir $(INSTALL_LIBEXEC))))
	rm -f $(addprefix $(DESTDIR)$(includedir)/,$(notdir $(INSTALL_HEADERS)))
	rm -f $(addprefix $(DESTDIR)$(pkgconfigdir)/,$(notdir $(PC_FILES)))
	rm -f $(foreach m,$(MAN_PAGES),$(DESTDIR)$(mandir)/man$(patsubst .%,%,$(suffix $(m)))/$(notdir $(m)))
	@# libexec/gputrace/ is gputrace's own folder; the shared ones (bin/, lib/, ...) stay.
	@if [ -d $(DESTDIR)$(libexecdir) ]; then rmdir $(DESTDIR)$(libexecdir) || true; fi

clean:
	rm -rf $(BUILD)

help:
	@echo "targets: all demo check install uninstall clean deps"
	@echo "CUDA_HOME=$(CUDA_HOME)  CUPTI headers: $(or $(CUPTI_INC),not found)  nvcc: $(or $(NVCC),not found)"
