# kernels/refs/: refs.so, the CPU references of the kernels in kernels/ for `gpuanalyze shadow`.
#
# Plain C against analyze/shadow/gputrace_ref.h (the installed public header), built with the C compiler, so
# CI builds and uses it on machines without CUDA. -ffp-contract=off: the float emulations of the
# kernels (the references' alternative orders) must round where the source says and nowhere else;
# where they want a fused multiply-add they call fmaf. The sanitizer build builds its own refs.so
# (same flags plus the sanitizers), which the sanitized gpuanalyze dlopens in the tests.
REFS_SRCS := $(wildcard kernels/refs/*.c)
REFS_OBJS := $(REFS_SRCS:%.c=$(OBJ)/%.o)
REFS_SO   := $(BUILD)/kernels/refs.so

$(OBJ)/kernels/refs/%.o: CFLAGS_ALL += -Ianalyze/shadow -ffp-contract=off

$(REFS_SO): $(REFS_OBJS)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) -shared $(LDFLAGS_ALL) -o $@ $^ -lm

# Test fixture: a library built against an ABI this gpuanalyze does not read (tests/data/shadow/).
SHADOW_BADABI_SO := $(BUILD)/tests/shadow/badabi.so
$(SHADOW_BADABI_SO): $(OBJ)/tests/data/shadow/badabi.o
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) -shared $(LDFLAGS_ALL) -o $@ $^

$(OBJ)/tests/data/shadow/%.o: CFLAGS_ALL += -Ianalyze/shadow

REF_LIBS += $(REFS_SO)
INSTALL_HEADERS += analyze/shadow/gputrace_ref.h
INSTALL_PKGCONFIG += analyze/shadow/gputrace-ref.pc.in
MAN_PAGES += man/gputrace-ref.3
ALL_TARGETS += $(REFS_SO) $(SHADOW_BADABI_SO)
TEST_EXTRA_TARGETS += $(REFS_SO) $(SHADOW_BADABI_SO)
