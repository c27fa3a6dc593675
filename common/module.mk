# common/: libc-only helpers below every stage (statistics). Their objects go into libgttrace.a,
# the one archive that the recorder, the launcher, the analyzer and the tests all link, so no
# binary needs a second library; common/ itself includes nothing of the project.
TRACE_SRCS += $(wildcard common/*.c)
