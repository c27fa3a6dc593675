# tests/fuzz/: the libFuzzer targets, built with clang by `make fuzz` into $(FUZZ_BUILD), once per
# source state: every object carries its -MMD dependencies, so a build after no change does nothing
# and one after a change compiles what it touched. The libraries are the Makefile's own source
# lists (TRACE_SRCS, ANALYZE_SRCS) compiled with -fsanitize=fuzzer-no-link plus the sanitizers; a
# target links what its source names on its "FUZZ_LIBS:" line (default libgttrace.a).
# tests/cli/test_fuzz_targets.sh (make check-all) builds through this and runs them with
# tests/fuzz/run_all.sh --prebuilt; run_all.sh alone (fuzzing campaigns with other sanitizer
# flags) still builds for itself.
FUZZ_CC     ?= clang
FUZZ_BUILD  ?= $(BUILD)/fuzz-check
FUZZ_SAN    ?= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -I. $(FUZZ_SAN)
FUZZ_OBJ    := $(FUZZ_BUILD)/obj
FUZZ_NAMES  := $(filter-out common,$(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BINS   := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/lib/libgttrace.a: $(TRACE_SRCS:%.c=$(FUZZ_OBJ)/%.o)
	@mkdir -p $(dir $@)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^
$(FUZZ_BUILD)/lib/libgtanalyze.a: $(ANALYZE_SRCS:%.c=$(FUZZ_OBJ)/%.o)
	@mkdir -p $(dir $@)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^

# The hostile reference library that fuzz_structured loads (beside it) for shadow and calibrate;
# not instrumented: it stands for a user's library, and what it does itself is not under test.
$(FUZZ_BUILD)/hostile_refs.so: tests/fuzz/hostile_refs.c
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(FUZZ_CC) -std=c11 -Wall -Wextra -Werror -O1 -I. -shared -fPIC -o $@ $<

# fuzz_libs NAME: the archives and flags of a target's "FUZZ_LIBS:" line.
fuzz_libs = $(or $(shell sed -n 's/.*FUZZ_LIBS: *\(.*\)$$/\1/p' tests/fuzz/fuzz_$(1).c | sed 's, *\*/$$,,' | head -n 1),libgttrace.a)
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)/tests/fuzz/fuzz_common.o \
                      $(FUZZ_BUILD)/lib/libgttrace.a $(FUZZ_BUILD)/lib/libgtanalyze.a
	$(call quiet,LD,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) $(if $(CUDA_INC),-I$(CUDA_INC)) -fsanitize=fuzzer -MMD -MP \
	    -MF $(FUZZ_OBJ)/fuzz_$*.d -o $@ $< $(FUZZ_OBJ)/tests/fuzz/fuzz_common.o \
	    $(patsubst %.a,$(FUZZ_BUILD)/lib/%.a,$(call fuzz_libs,$*)) -lzstd -lz -lm -lpthread

.SECONDARY: $(FUZZ_OBJ)/tests/fuzz/fuzz_common.o
.PHONY: fuzz
fuzz: $(FUZZ_BINS) $(FUZZ_BUILD)/hostile_refs.so

-include $(shell find $(FUZZ_OBJ) -name '*.d' 2>/dev/null)
