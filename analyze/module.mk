# analyze/: gpuanalyze. Everything but analyze/commands/gpuanalyze.c goes into libgtanalyze.a so
# tests can link it. The seven subfolders, in the order they may use each other (includes name them
# from the root: "analyze/engines/diff.h"; tests/cli/test_layering.sh checks the order):
#   output/    how results are written: the document, its renderers, tables, escaping, JSON, JUnit, SVG
#   support/   shared by all: trace loading, options, diagnostics, kernel names, atomic output files
#   shadow/    shadow replay (shadow, compare, calibrate) and the installed gputrace_ref.h
#   blocks/    the pieces several analyses share: timelines, clock alignment, event origins, per-kernel
#              samples and their counting rules, two-sample tests, wavelets, the peaks file, launches
#              paired with their calls
#   export/    the export family (`gpuanalyze export`): Chrome/Perfetto JSON, CSV, SQLite, with its
#              private header export_internal.h
#   engines/   one analysis per command, argv-free so tests call them (summary, diff, split, ranks...)
#   commands/  the dispatcher gpuanalyze.c, commands.h, one cmd_<name>.c per subcommand; what all
#              commands share (cmd_output), what shadow and calibrate share (refs) and a command's
#              own helpers, named after it (report_doc, report_figures, report_result)
ANALYZE_MAIN := analyze/commands/gpuanalyze.c
ANALYZE_SRCS += $(filter-out $(ANALYZE_MAIN),$(wildcard analyze/*/*.c))
ANALYZE_OBJS := $(ANALYZE_SRCS:%.c=$(OBJ)/%.o)
ANALYZE_LIBS := -lzstd -lz -lsqlite3 -ldl -lm
MAN_PAGES += man/gpuanalyze.1 man/gputrace-sqlite.5
INSTALL_BINS += $(BUILD)/gpuanalyze

$(BUILD)/libgtanalyze.a: $(ANALYZE_OBJS)
	@mkdir -p $(dir $@)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^ # anew: a deleted source must not leave its object behind

$(BUILD)/gpuanalyze: $(OBJ)/analyze/commands/gpuanalyze.o $(BUILD)/libgtanalyze.a $(BUILD)/libgttrace.a
	$(call quiet,LD,$@)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(ANALYZE_LIBS)

ALL_TARGETS += $(BUILD)/libgtanalyze.a $(BUILD)/gpuanalyze
