# tests/gpu/progs/: the programs of the GPU reliability and load tests (tests/gpu/test_reliability_*.sh,
# test_load_*.sh): rel_cuda, an nvcc-built CUDA program with one mode per condition (see the comment
# at its top), built like kernels/ (static cudart, the top Makefile's $(NVCC_ARCH), host warnings as
# errors) into $(BUILD)/tests/gpu/progs/. rel_torch.py needs no build. Without nvcc nothing is built
# and the GPU scripts compile rel_cuda themselves where they run, if nvcc is there.
GPU_PROGS_DIR := $(BUILD)/tests/gpu/progs

ifneq ($(NVCC),)
$(GPU_PROGS_DIR)/rel_cuda: tests/gpu/progs/rel_cuda.cu tests/gpu/progs/module.mk
	@mkdir -p $(dir $@)
	$(call quiet,NVCC,$@)$(NVCC) -std=c++17 -O2 $(NVCC_ARCH) -cudart static -Werror all-warnings \
	    -Xcompiler -Wall,-Wextra,-Werror -o $@ $< -lpthread

ALL_TARGETS += $(GPU_PROGS_DIR)/rel_cuda
CUDA_PROGS  += $(GPU_PROGS_DIR)/rel_cuda
endif
