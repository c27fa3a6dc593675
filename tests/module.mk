# tests/: cmocka unit tests (tests/unit/test_*.c, one binary each), CLI and end-to-end scripts
# (tests/cli/test_*.sh), GPU scripts (tests/gpu/test_*.sh, exit 77 where there is no GPU).
UNIT_TEST_SRCS := $(wildcard tests/unit/test_*.c)
ifeq ($(CUPTI_INC),)
# Tests of the CUPTI glue need its headers.
UNIT_TEST_SRCS := $(filter-out tests/unit/test_cupti_%.c tests/unit/test_preload_%.c,$(UNIT_TEST_SRCS))
endif
UNIT_TEST_BINS := $(UNIT_TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TEST_HELPER_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(wildcard tests/unit/helpers/*.c))
CFLAGS_tests := $(if $(CUPTI_INC),-I$(CUPTI_INC) -I$(CUDA_INC) -Icupti/compat) -Itests/unit
TEST_ARCHIVES := $(BUILD)/libgtanalyze.a $(if $(CUPTI_INC),$(BUILD)/libgtcupti.a) $(BUILD)/libgttrace.a

# Objects that live in no archive (the launcher's and the replay worker's), for the one test of each:
# TEST_OBJS_<test> lists them; TEST_LDFLAGS_<test> adds link options for one binary.
TEST_OBJS_test_launcher_replay_times := $(OBJ)/preload/launcher/launcher_replay_times.o \
                                       $(OBJ)/preload/launcher/launcher_replay_launched.o
TEST_OBJS_test_replay_compare := $(OBJ)/preload/replay/replay_compare.o
TEST_OBJS_test_preload_config := $(OBJ)/preload/log.o $(OBJ)/cupti/metric_sets.o $(OBJ)/cupti/metric_names.o
TEST_OBJS_test_preload_output := $(OBJ)/preload/log.o
TEST_OBJS_test_preload_metrics := $(OBJ)/preload/metrics.o $(OBJ)/preload/log.o $(OBJ)/cupti/metric_sets.o \
                                  $(OBJ)/cupti/metric_names.o
TEST_OBJS_test_replay_args := $(OBJ)/preload/replay/replay_args.o $(OBJ)/preload/replay/replay_compare.o \
                              $(OBJ)/preload/replay/replay_metric_sets.o $(OBJ)/cupti/metric_names.o
TEST_OBJS_test_preload_replay_profiler := $(OBJ)/preload/replay/replay_profiler.o $(OBJ)/preload/replay/replay_metric_sets.o
TEST_OBJS_test_cupti_metric_chips := $(TEST_OBJS_test_preload_replay_profiler)

.SECONDEXPANSION:
$(BUILD)/tests/%: $(OBJ)/tests/unit/%.o $$(TEST_OBJS_$$*) $(TEST_HELPER_OBJS) $(TEST_ARCHIVES)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS_ALL) $(TEST_LDFLAGS_$*) -o $@ $< $(TEST_OBJS_$*) $(TEST_HELPER_OBJS) $(TEST_ARCHIVES) -lcmocka -lzstd -lz -lsqlite3 -ldl -lm -lpthread

# The capture-set test sees every realloc of the loader, to show that a blob's stated size is never
# allocated up front (test_trace_capture_set.c defines __wrap_realloc).
TEST_LDFLAGS_test_trace_capture_set := -Wl,--wrap=realloc
# The PM sampler's test is the libcupti it loads: the sampler finds the test's CUPTI functions by
# dlsym in the program itself.
TEST_LDFLAGS_test_cupti_pmsampling := -rdynamic

# What the sanitizer pass builds: everything a test runs, in its sanitized form.
.PHONY: tests-only
tests-only: $(UNIT_TEST_BINS) $(BUILD)/gpuanalyze $(BUILD)/gputrace $(TEST_EXTRA_TARGETS)

.SECONDARY: $(UNIT_TEST_SRCS:%.c=$(OBJ)/%.o) $(TEST_HELPER_OBJS)

# --- the test tiers, as entries for tests/run_tests.sh (PASS:BUILD:PATH) ---------------------
# make check: every unit test plain and sanitized, every CLI and GPU script plain except the slow
# ones (the GPU scripts exit 77 at once without a GPU). make check-all adds the slow tier: the slow
# scripts plain and every script under the sanitizers. A script whose whole work is one tier's
# lists it here; a script with a quick part and a long sweep runs the sweep only where GT_TIER=all.
SLOW_SCRIPTS := tests/cli/test_fuzz_targets.sh tests/cli/test_scaling.sh
CLI_SCRIPTS  := $(sort $(wildcard tests/cli/test_*.sh)) $(sort $(wildcard tests/gpu/test_*.sh))
SAN_UNIT_BINS := $(UNIT_TEST_BINS:$(BUILD)/%=$(BUILD)/san/%)
CHECK_ENTRIES := $(addprefix plain:$(BUILD):,$(UNIT_TEST_BINS)) \
                 $(addprefix sanitizers:$(BUILD)/san:,$(SAN_UNIT_BINS)) \
                 $(addprefix plain:$(BUILD):,$(filter-out $(SLOW_SCRIPTS),$(CLI_SCRIPTS)))
SLOW_ENTRIES  := $(addprefix plain:$(BUILD):,$(filter $(SLOW_SCRIPTS),$(CLI_SCRIPTS))) \
                 $(addprefix sanitizers:$(BUILD)/san:,$(filter-out $(SLOW_SCRIPTS),$(CLI_SCRIPTS)))
check-all: export GT_TIER = all

ALL_TARGETS += $(UNIT_TEST_BINS)
