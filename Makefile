# gputrace: top-level build.
#
# Each stage folder brings its own fragment (traces/module.mk, cupti/module.mk, ...) that adds its
# sources to the variables below; this file holds the toolchain, the flags, the pattern rules and
# the user-facing targets (all, demo, check, install, deps). Everything is built under $(BUILD).
#
#   make            build the library, the launcher, the analyzer, the CUDA programs and the tests
#   make demo       install what is missing, build, record or analyze a trace (see README.md)
#   make check      unit and CLI tests, then the same tests under ASan+UBSan
#   make install PREFIX=/usr/local

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
CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) -fPIC -fvisibility=hidden -I. -Itraces $(EXTRA_CFLAGS)
LDFLAGS_ALL := $(EXTRA_LDFLAGS)
ifeq ($(SAN),1)
CFLAGS_ALL  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS_ALL += -fsanitize=address,undefined
endif

OBJ := $(BUILD)/obj

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
include tests/module.mk

.PHONY: all deps demo check check-plain check-san install clean help
.DEFAULT_GOAL := all

all: $(ALL_TARGETS)

# --- pattern rules ---------------------------------------------------------------------------
$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CFLAGS_$(firstword $(subst /, ,$<))) -MMD -MP -c $< -o $@

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# --- dependencies ----------------------------------------------------------------------------
# Debian packages that provide the headers we compile against.
DEB_DEPS := libzstd-dev libelf-dev libcmocka-dev libsqlite3-dev sqlite3

deps:
	@sh tests/deps.sh $(DEB_DEPS)

# --- the two commands of the README ---------------------------------------------------------
demo: deps
	@$(MAKE) --no-print-directory all
	@sh tests/demo.sh $(BUILD)

check: deps
	@$(MAKE) --no-print-directory check-plain
	@$(MAKE) --no-print-directory check-san
	@sh tests/summary.sh $(BUILD)/check.log $(BUILD)/san/check.log

check-plain: all
	@sh tests/run_tests.sh $(BUILD) plain

check-san:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san SAN=1 OPT="-O1 -g" tests-only
	@sh tests/run_tests.sh $(BUILD)/san sanitizers

# --- install ---------------------------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	           $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3 \
	           $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(BUILD)/gpuanalyze $(DESTDIR)$(PREFIX)/bin/
	if [ -f $(BUILD)/gputrace ]; then install -m 755 $(BUILD)/gputrace $(DESTDIR)$(PREFIX)/bin/; fi
	if [ -f $(BUILD)/libgputrace.so ]; then install -m 755 $(BUILD)/libgputrace.so $(DESTDIR)$(PREFIX)/lib/; fi
	install -m 644 $(BUILD)/libgttrace.a $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(INSTALL_HEADERS) $(DESTDIR)$(PREFIX)/include/
	for m in $(MAN_PAGES); do s=$${m##*.}; install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man$$s/; done

clean:
	rm -rf $(BUILD)

help:
	@echo "targets: all demo check install clean deps"
	@echo "CUDA_HOME=$(CUDA_HOME)  CUPTI headers: $(or $(CUPTI_INC),not found)  nvcc: $(or $(NVCC),not found)"
