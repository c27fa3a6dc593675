# tests/cli/progs/: tiny programs the CLI tests run under the recorder: a plain C program, a C
# program that marks NVTX ranges without using CUDA, an nvcc-built CUDA program (static cudart, as
# nvcc builds by default), and a stand-in CUDA driver and CUPTI (fakecuda/libcuda.so.1) with a
# program that uses it, so that the recorder's whole life runs without a GPU. They stand for the
# user's unmodified programs: plain flags, never the sanitizers (a sanitized program cannot take a
# preload that is not sanitized), never the project's libraries (trace_peek, a test tool, reads
# traces with libgttrace.a). Built into $(BUILD)/tests/progs/ by the plain build; the sanitizer
# pass uses the plain build's copies (GT_PLAIN_BUILD), and the scripts compile a missing one
# themselves.
PROGS_DIR    := $(BUILD)/tests/progs
PROGS_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -pthread -I.
PROGS_DEPS   := tests/cli/progs/endings.h tests/cli/progs/module.mk

$(PROGS_DIR)/plain: tests/cli/progs/plain.c $(PROGS_DEPS)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(PROGS_CFLAGS) -o $@ $<

$(PROGS_DIR)/trace_peek: tests/cli/progs/trace_peek.c $(BUILD)/libgttrace.a $(PROGS_DEPS)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(PROGS_CFLAGS) -o $@ $< $(BUILD)/libgttrace.a -lzstd -lm

PROGS_BINS := $(PROGS_DIR)/plain $(PROGS_DIR)/trace_peek

# replay_metrics_write: the launcher's last step of replay --metrics, alone (a test tool, like trace_peek).
REPLAY_METRICS_OBJS := $(OBJ)/preload/launcher/launcher_replay_metrics.o \
                       $(OBJ)/preload/launcher/launcher_replay_launched.o
$(PROGS_DIR)/replay_metrics_write: tests/cli/progs/replay_metrics_write.c $(REPLAY_METRICS_OBJS) \
                                   $(BUILD)/libgttrace.a $(PROGS_DEPS)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(PROGS_CFLAGS) -o $@ $< $(REPLAY_METRICS_OBJS) $(BUILD)/libgttrace.a -lzstd -lm

PROGS_BINS += $(PROGS_DIR)/replay_metrics_write

ifneq ($(CUDA_INC),)
$(PROGS_DIR)/nvtx_plain: tests/cli/progs/nvtx_plain.c $(PROGS_DEPS)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(PROGS_CFLAGS) -I$(CUDA_INC) -o $@ $< -ldl

PROGS_BINS += $(PROGS_DIR)/nvtx_plain
endif

ifneq ($(CUPTI_INC),)
$(PROGS_DIR)/fakecuda/libcuda.so.1: tests/cli/progs/fake_cuda.c $(PROGS_DEPS)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(PROGS_CFLAGS) -fPIC -shared -Wl,-soname,libcuda.so.1 -I$(CUPTI_INC) -I$(CUDA_INC) \
	    -o $@ $< -ldl

$(PROGS_DIR)/fake_app: tests/cli/progs/fake_app.c $(PROGS_DEPS)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(PROGS_CFLAGS) -I$(CUPTI_INC) -I$(CUDA_INC) -o $@ $< -ldl

PROGS_BINS += $(PROGS_DIR)/fakecuda/libcuda.so.1 $(PROGS_DIR)/fake_app
endif

ifneq ($(NVCC),)
$(PROGS_DIR)/cuda_probe: tests/cli/progs/cuda_probe.cu $(PROGS_DEPS)
	@mkdir -p $(dir $@)
	$(call quiet,NVCC,$@)$(NVCC) -std=c++17 -O2 $(NVCC_ARCH) -cudart static -Werror all-warnings \
	    -Xcompiler -Wall,-Wextra,-Werror -o $@ $<

PROGS_BINS += $(PROGS_DIR)/cuda_probe
endif

.PHONY: test-progs
test-progs: $(PROGS_BINS)

ALL_TARGETS += $(PROGS_BINS)
