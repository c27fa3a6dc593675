# tests/gpu/: what the GPU scripts need besides the product: the CUPTI "floor" probe for overhead.
ifneq ($(CUPTI_INC),)
$(BUILD)/tests/gpu/libcuptifloor.so: tests/gpu/cupti_floor.c
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -fPIC -shared -I$(CUPTI_INC) -I$(CUDA_INC) \
	    -o $@ $< -ldl -lpthread
ALL_TARGETS += $(BUILD)/tests/gpu/libcuptifloor.so
endif
