# tests/bench/: benchmarks and one-off experiments, run by hand on the GPU machine (never by make
# check): what they need built beside the product.
ifneq ($(CUPTI_INC),)
# The in-process price list of CUPTI's kinds (tests/bench/price_kinds.sh): links the recorder's
# own CUPTI loader and per-call API selection, so "runtime-sel" is exactly what gputrace selects.
$(BUILD)/tests/bench/libcuptiprice.so: tests/bench/cupti_price.c cupti/libs.c cupti/api_select.c
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -fPIC -shared -fvisibility=hidden \
	    -I. -I$(CUPTI_INC) -I$(CUDA_INC) -o $@ $^ -ldl -lpthread
ALL_TARGETS += $(BUILD)/tests/bench/libcuptiprice.so
endif
