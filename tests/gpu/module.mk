# tests/gpu/: what the GPU scripts need besides the product: the CUPTI "floor" probe for overhead.
ifneq ($(CUPTI_INC),)
$(BUILD)/tests/gpu/libcuptifloor.so: tests/gpu/cupti_floor.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -fPIC -shared -I$(CUPTI_INC) -I$(CUDA_INC) \
	    -o $@ $< -ldl -lpthread
ALL_TARGETS += $(BUILD)/tests/gpu/libcuptifloor.so
endif

ifneq ($(CUPTI_INC),)
# The in-process price list of CUPTI's kinds (tests/gpu/price_kinds.sh): links the recorder's
# own CUPTI loader and per-call API selection, so "runtime-sel" is exactly what gputrace selects.
$(BUILD)/tests/gpu/libcuptiprice.so: tests/gpu/cupti_price.c cupti/libs.c cupti/api_select.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -fPIC -shared -fvisibility=hidden \
	    -Icupti -I$(CUPTI_INC) -I$(CUDA_INC) -o $@ $^ -ldl -lpthread
ALL_TARGETS += $(BUILD)/tests/gpu/libcuptiprice.so
endif
