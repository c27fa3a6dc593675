# preload/: three programs, one folder each.
#   preload/           libgputrace.so, the recorder preloaded into the traced program (built only where
#                      the CUPTI headers are found)
#   preload/launcher/  the `gputrace` launcher (record, peak, replay, extract), built everywhere
#   preload/replay/    gputrace-replay, the driver-API worker `gputrace replay` runs under the recorder
# They sit together because the two programs exist to run programs under the recorder; the launcher
# shares the recorder's config and log, and links the worker's option and comparison code so that it
# checks the worker's options and picks with the worker's own code.
LAUNCHER_SRCS += $(wildcard preload/launcher/*.c)
LAUNCHER_SHARED := preload/config.c preload/log.c preload/replay/replay_args.c preload/replay/replay_compare.c \
                   preload/replay/replay_metric_sets.c
REPLAY_SRCS   := $(wildcard preload/replay/*.c)
PRELOAD_SRCS  += $(wildcard preload/*.c)
PRELOAD_OBJS  := $(PRELOAD_SRCS:%.c=$(OBJ)/%.o)
LAUNCHER_OBJS := $(LAUNCHER_SRCS:%.c=$(OBJ)/%.o) $(LAUNCHER_SHARED:%.c=$(OBJ)/%.o)
# Include paths per folder (the pattern rule adds CFLAGS_<folder>): preload/ sees the CUDA and CUPTI
# headers, but the launcher's objects (config.o and log.o too, which libgputrace.so shares, and
# replay_args.o and replay_compare.o, which gputrace-replay shares: the launcher checks the worker's
# options and picks with the worker's own code) do not, so the launcher builds where the toolkit
# is missing; tests/cli/test_layering.sh checks the rule.
CFLAGS_preload := $(addprefix -I,$(CUPTI_INC) $(CUDA_INC))
$(LAUNCHER_OBJS): CFLAGS_preload :=
MAN_PAGES += man/gputrace.1

ifneq ($(CUPTI_INC),)
$(BUILD)/libgputrace.so: $(PRELOAD_OBJS) $(BUILD)/libgtcupti.a $(BUILD)/libgttrace.a
	$(call quiet,LD,$@)$(CC) $(LDFLAGS_ALL) -shared -Wl,--no-undefined -Wl,-z,defs -o $@ $(PRELOAD_OBJS) \
	    -Wl,--whole-archive $(BUILD)/libgtcupti.a -Wl,--no-whole-archive $(BUILD)/libgttrace.a \
	    -lzstd -ldl -lpthread

ALL_TARGETS += $(BUILD)/libgputrace.so
INSTALL_SHLIBS += $(BUILD)/libgputrace.so
else
$(info gputrace: CUPTI headers not found under CUDA_HOME=$(CUDA_HOME): skipping libgputrace.so)
endif

# The replay worker needs cuda.h (types only: libcuda is opened with dlopen), so it is built where
# the toolkit's headers are; it reads traces with libgttrace.a, cubins with cupti/nvinfo.c and
# --metrics with cupti/metric_names.c (CUPTI-free, the launcher's too).
ifneq ($(CUDA_INC),)
REPLAY_OBJS := $(REPLAY_SRCS:%.c=$(OBJ)/%.o)
# cupti_profiler_host.h includes <string>, a C++ header, though it declares only C: cupti/compat's
# empty one. The profiler's host side is cupti/profiler_host.c, shared with the recorder's sampler.
$(OBJ)/preload/replay/replay_profiler.o: CFLAGS_preload += -Icupti/compat
REPLAY_CUPTI_OBJS := $(OBJ)/cupti/nvinfo.o $(OBJ)/cupti/metric_names.o $(if $(CUPTI_INC),$(OBJ)/cupti/profiler_host.o)
$(BUILD)/gputrace-replay: $(REPLAY_OBJS) $(REPLAY_CUPTI_OBJS) $(BUILD)/libgttrace.a
	$(call quiet,LD,$@)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd -ldl -lm

ALL_TARGETS += $(BUILD)/gputrace-replay
INSTALL_LIBEXEC += $(BUILD)/gputrace-replay
endif

$(BUILD)/gputrace: $(LAUNCHER_OBJS) $(OBJ)/cupti/nvinfo.o $(OBJ)/cupti/metric_sets.o $(OBJ)/cupti/metric_names.o \
                   $(BUILD)/libgttrace.a
	$(call quiet,LD,$@)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd -lm

ALL_TARGETS += $(BUILD)/gputrace
INSTALL_BINS += $(BUILD)/gputrace
