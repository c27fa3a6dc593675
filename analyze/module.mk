# analyze/: gpuanalyze. Everything but gpuanalyze.c goes into libgtanalyze.a so tests can link it.
ANALYZE_MAIN := analyze/gpuanalyze.c
ANALYZE_SRCS += $(filter-out $(ANALYZE_MAIN),$(wildcard analyze/*.c))
ANALYZE_OBJS := $(ANALYZE_SRCS:%.c=$(OBJ)/%.o)
ANALYZE_LIBS := -lzstd -lz -lsqlite3 -ldl -lm
MAN_PAGES += man/gpuanalyze.1 man/gputrace-sqlite.5
INSTALL_BINS += $(BUILD)/gpuanalyze

$(BUILD)/libgtanalyze.a: $(ANALYZE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^ # anew: a deleted source must not leave its object behind

$(BUILD)/gpuanalyze: $(OBJ)/analyze/gpuanalyze.o $(BUILD)/libgtanalyze.a $(BUILD)/libgttrace.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(ANALYZE_LIBS)

ALL_TARGETS += $(BUILD)/libgtanalyze.a $(BUILD)/gpuanalyze
