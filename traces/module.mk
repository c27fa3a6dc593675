# traces/: the trace file library (libgttrace.a), used by the recorder and the analyzer.
TRACE_SRCS += $(wildcard traces/*.c)
TRACE_OBJS := $(TRACE_SRCS:%.c=$(OBJ)/%.o)
INSTALL_HEADERS += traces/gputrace.h
INSTALL_LIBS += $(BUILD)/libgttrace.a
INSTALL_PKGCONFIG += traces/gputrace.pc.in
MAN_PAGES += man/gputrace-format.5

$(BUILD)/libgttrace.a: $(TRACE_OBJS)
	@mkdir -p $(dir $@)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^ # anew: a deleted source must not leave its object behind

ALL_TARGETS += $(BUILD)/libgttrace.a
