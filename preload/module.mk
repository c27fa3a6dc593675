# preload/: libgputrace.so (the injected recorder) and the gputrace launcher. The launcher is built
# everywhere, the library only where the CUPTI headers are found.
LAUNCHER_SRCS += $(wildcard preload/launcher*.c)
LAUNCHER_SHARED := preload/config.c preload/log.c preload/replay_args.c preload/replay_compare.c
# gputrace-replay: the driver-API program `gputrace replay` runs under the recorder.
REPLAY_SRCS   := $(wildcard preload/replay_*.c)
PRELOAD_SRCS  += $(filter-out $(LAUNCHER_SRCS) $(REPLAY_SRCS),$(wildcard preload/*.c))
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
	$(CC) $(LDFLAGS_ALL) -shared -Wl,--no-undefined -Wl,-z,defs -o $@ $(PRELOAD_OBJS) \
	    -Wl,--whole-archive $(BUILD)/libgtcupti.a -Wl,--no-whole-archive $(BUILD)/libgttrace.a \
	    -lzstd -ldl -lpthread

ALL_TARGETS += $(BUILD)/libgputrace.so
INSTALL_SHLIBS += $(BUILD)/libgputrace.so
else
$(info gputrace: CUPTI headers not found under CUDA_HOME=$(CUDA_HOME): skipping libgputrace.so)
endif

# The replay worker needs cuda.h (types only: libcuda is opened with dlopen), so it is built where
# the toolkit's headers are; it reads traces with libgttrace.a and cubins with cupti/nvinfo.c.
ifneq ($(CUDA_INC),)
REPLAY_OBJS := $(REPLAY_SRCS:%.c=$(OBJ)/%.o)
$(BUILD)/gputrace-replay: $(REPLAY_OBJS) $(OBJ)/cupti/nvinfo.o $(BUILD)/libgttrace.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd -ldl -lm

ALL_TARGETS += $(BUILD)/gputrace-replay
INSTALL_LIBEXEC += $(BUILD)/gputrace-replay
endif

$(BUILD)/gputrace: $(LAUNCHER_OBJS) $(OBJ)/cupti/nvinfo.o $(OBJ)/cupti/metric_sets.o $(BUILD)/libgttrace.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd -lm

ALL_TARGETS += $(BUILD)/gputrace
INSTALL_BINS += $(BUILD)/gputrace
