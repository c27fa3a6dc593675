# tests/tools/: small C programs for tests, fuzz seeds and benchmarks, linked against the trace
# library only. gt_synth writes synthetic traces through the writer API; gt_count streams a trace and
# counts its records (the benchmark's reader loop, and a quick look at a file's tail).
# Built into $(BUILD)/tools/; the sanitizer pass builds them too, since test scripts run them.
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tools/%)

$(BUILD)/tools/%: $(OBJ)/tests/tools/%.o $(BUILD)/libgttrace.a
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd -lm

# Keep the objects: without this make deletes them as intermediates and relinks every time.
.SECONDARY: $(TOOL_SRCS:%.c=$(OBJ)/%.o)

.PHONY: tools
tools: $(TOOL_BINS)

ALL_TARGETS += $(TOOL_BINS)
TEST_EXTRA_TARGETS += $(TOOL_BINS)
