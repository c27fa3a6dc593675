# cupti/: CUPTI glue (activity buffers, callbacks, translation to trace records, launch capture).
# Compiled only where the CUPTI headers are found; never linked against libcupti or libcuda: the
# preload loads both with dlopen at run time.
CUPTI_SRCS += $(wildcard cupti/*.c)
CUPTI_OBJS := $(CUPTI_SRCS:%.c=$(OBJ)/%.o)
# cupti/compat: an empty <string>, which cupti_profiler_host.h includes though it declares only C.
CFLAGS_cupti := $(addprefix -I,$(CUPTI_INC) $(CUDA_INC)) -Icupti/compat

$(BUILD)/libgtcupti.a: $(CUPTI_OBJS)
	@mkdir -p $(dir $@)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^ # anew: a deleted source must not leave its object behind
