# kernels/: CUDA programs (built with nvcc) used by tests and demos.
#
# Each program is one .cu file built straight into $(BUILD)/kernels/<name>: static cudart (nvcc's
# default, said out loud), -O3 -lineinfo so traces and compute-sanitizer can name source lines, the
# top Makefile's $(NVCC_ARCH), and host warnings as errors. They are unmodified CUDA programs from the
# tracer's point of view: they link only the CUDA runtime (plus -ldl for NVTX3, which is header-only),
# never the project's libraries.
KERNEL_PROGS := splat_render launch_storm transfers graph_launch bwprobe shadow_kernels stream_bytes \
                known_counts

ifneq ($(NVCC),)
KERNEL_BINS    := $(KERNEL_PROGS:%=$(BUILD)/kernels/%)
KERNEL_HEADERS := kernels/common.cuh kernels/copies.cuh kernels/splat.h kernels/shadow_kernels.h
KERNEL_NVFLAGS := -std=c++17 -O3 -lineinfo $(NVCC_ARCH) -cudart static \
                  -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror
KERNEL_LIBS    := -ldl -lpthread

$(KERNEL_BINS): $(BUILD)/kernels/%: kernels/%.cu $(KERNEL_HEADERS) kernels/module.mk
	@mkdir -p $(dir $@)
	$(call quiet,NVCC,$@)$(NVCC) $(KERNEL_NVFLAGS) -o $@ $< $(KERNEL_LIBS)

# The ceilings' kernels are bwprobe's alone.
$(BUILD)/kernels/bwprobe: kernels/ceilings.cuh kernels/ceilings_gemm.cuh

ALL_TARGETS += $(KERNEL_BINS)
CUDA_PROGS  += $(KERNEL_BINS)
# The bandwidth probe of `gputrace peak`, where the launcher looks for it (preload/launcher/launcher_peak.c).
INSTALL_LIBEXEC += $(BUILD)/kernels/bwprobe
else
$(info gputrace: nvcc not found under CUDA_HOME=$(CUDA_HOME): skipping the CUDA programs in kernels/)
endif

# p2p_copy: peer-to-peer copies between device 0 and device 1 (tests/gpu/test_multi_gpu.sh), built
# exactly as the programs above.
ifneq ($(NVCC),)
$(BUILD)/kernels/p2p_copy: kernels/p2p_copy.cu $(KERNEL_HEADERS) kernels/module.mk
	@mkdir -p $(dir $@)
	$(call quiet,NVCC,$@)$(NVCC) $(KERNEL_NVFLAGS) -o $@ $< $(KERNEL_LIBS)

ALL_TARGETS += $(BUILD)/kernels/p2p_copy
CUDA_PROGS  += $(BUILD)/kernels/p2p_copy
endif
