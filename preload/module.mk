# preload/: libgputrace.so (the injected recorder) and the gputrace launcher.
LAUNCHER_SRCS += $(wildcard preload/launcher*.c)
LAUNCHER_SHARED := preload/config.c preload/log.c
PRELOAD_SRCS  += $(filter-out $(LAUNCHER_SRCS),$(wildcard preload/*.c))
PRELOAD_OBJS  := $(PRELOAD_SRCS:%.c=$(OBJ)/%.o)
LAUNCHER_OBJS := $(LAUNCHER_SRCS:%.c=$(OBJ)/%.o) $(LAUNCHER_SHARED:%.c=$(OBJ)/%.o)
CFLAGS_preload := -I$(CUPTI_INC) -I$(CUDA_INC)
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

$(BUILD)/gputrace: $(LAUNCHER_OBJS) $(BUILD)/libgttrace.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd -lm

ALL_TARGETS += $(BUILD)/gputrace
INSTALL_BINS += $(BUILD)/gputrace
