# cutap — build with gcc and make only (generated code is committed).
CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -std=gnu11
BUILD   := build
LIBFLAGS := $(WARN) -fPIC -fvisibility=hidden -Iinclude -Isrc/common -Isrc/arch/x86_64 -Isrc/front -Isrc/core \
            -Isrc/record -Isrc/resolve -Isrc/generated -fno-plt -fno-semantic-interposition
PYTHON  ?= /usr/bin/python3

# Two libraries (src/front/front_internal.h). libcutap.so, the front, is
# what LD_PRELOAD names: every intercepted name's entry, the exec family,
# the registry, the libc functions of the ioctl layer, the thread state;
# small and without writable relocations, so that every process started
# under cutap pays little for it. libcutap_core.so, beside it, is all the
# rest, loaded by the front at the first call that needs it.
FRONT_C := $(wildcard src/front/*.c) src/generated/front_tables.c src/common/path_search.c
FRONT_S := $(wildcard src/front/*.S) src/generated/fronts.S
FRONT_O := $(patsubst %,$(BUILD)/obj/%.o,$(FRONT_C) $(FRONT_S))
LIB_C := $(filter-out $(FRONT_C),$(wildcard src/common/*.c src/core/*.c src/record/*.c \
                                              src/resolve/*.c src/arch/x86_64/*.c src/generated/*.c \
                                              src/common/generated/*.c))
LIB_S := $(filter-out $(FRONT_S),$(wildcard src/arch/x86_64/*.S src/generated/*.S))
LIB_O := $(patsubst %,$(BUILD)/obj/%.o,$(LIB_C) $(LIB_S))

.PHONY: all lib cli test demo regen regen-check clean bench bench-instr bench-startup bench-readers bench-footprint bench-cold install uninstall
all: lib cli

lib: $(BUILD)/libcutap.so $(BUILD)/libcutap_core.so

# Header dependencies are found by the compiler (-MMD -MP): touching one
# internal header rebuilds only the objects that include it. An object
# without its .d file (built before) is rebuilt once to get one.
DEPFLAGS = -MMD -MP
$(BUILD)/obj/%.c.o: %.c $(BUILD)/obj/%.c.d
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIBFLAGS) $(DEPFLAGS) -c $< -o $@

# A generated fast path's hot part (before its return) is 2 to 5 cache
# lines; started on a line it never spans one more (issue #27: a call in a
# framework's step pays each line it touches, bench/footprint.sh).
$(BUILD)/obj/src/generated/fast_%.c.o: LIBFLAGS += -falign-functions=64

$(BUILD)/obj/%.S.o: %.S src/arch/x86_64/arg_regs.inc
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libcutap.so: $(FRONT_O) src/generated/libcutap.map
	$(CC) -shared -o $@ $(FRONT_O) -Wl,-soname,libcutap.so -Wl,--version-script=src/generated/libcutap.map \
	    -Wl,-z,now -Wl,-z,relro -Wl,--no-undefined -ldl -lpthread

# Linked against the front (its thread state, its table of where calls go,
# the registry): found loaded already, by its soname, when the front loads
# this one. Exports nothing.
$(BUILD)/libcutap_core.so: $(LIB_O) $(BUILD)/libcutap.so src/core/libcutap_core.map
	$(CC) -shared -o $@ $(LIB_O) -Wl,-soname,libcutap_core.so -Wl,--version-script=src/core/libcutap_core.map \
	    -Wl,-z,now -Wl,-z,relro -Wl,--no-undefined $(BUILD)/libcutap.so -ldl -lpthread

# The cutap command. Links no SQLite: export --format sqlite loads
# libsqlite3.so.0 at run time (cli/sqlite_dl.c), so building needs no SQLite
# header or library. libcutap.so links nothing but libc.
CLI_C := $(wildcard cli/*.c cli/*/*.c) src/common/export_tables.c src/common/filter_expr.c src/common/path_search.c \
         src/common/nv_ioctl.c src/common/generated/nv_ioctl_tables.c src/common/inject_spec.c
CLI_H := $(wildcard cli/*.h cli/*/*.h cli/generated/*.inc) include/cutap_format.h include/cutap.h $(wildcard src/common/*.h) \
         src/common/generated/hidden_tables.h src/common/generated/nv_ioctl_tables.h
CLI_O := $(patsubst %,$(BUILD)/obj/cutap/%.o,$(CLI_C))
cli: $(BUILD)/cutap

$(BUILD)/obj/cutap/%.c.o: %.c $(BUILD)/obj/cutap/%.c.d
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Iinclude -Icli -Isrc/common $(DEPFLAGS) -c $< -o $@

$(BUILD)/cutap: $(CLI_O)
	$(CC) $(CFLAGS) -o $@ $(CLI_O) -ldl -lpthread

DEP_FILES := $(patsubst %.o,%.d,$(filter %.c.o,$(LIB_O) $(FRONT_O)) $(CLI_O))
$(DEP_FILES):
-include $(DEP_FILES)

# make install [PREFIX=/usr/local] [DESTDIR=...]: the command, the library
# beside it in ../lib (where cutap trace looks for it), the public headers,
# a pkg-config file, the man page and bash completion.
PREFIX  ?= /usr/local
BINDIR  := $(PREFIX)/bin
LIBDIR  := $(PREFIX)/lib
INCDIR  := $(PREFIX)/include
MANDIR  := $(PREFIX)/share/man/man1
COMPDIR := $(PREFIX)/share/bash-completion/completions
PCDIR   := $(LIBDIR)/pkgconfig
CUTAP_VERSION := $(shell sed -n 's/^\#define CUTAP_VERSION "\(.*\)"$$/\1/p' include/cutap.h)
install: lib cli
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(MANDIR) \
	    $(DESTDIR)$(COMPDIR) $(DESTDIR)$(PCDIR)
	install -m 0755 $(BUILD)/cutap $(DESTDIR)$(BINDIR)/cutap
	install -m 0755 $(BUILD)/libcutap.so $(DESTDIR)$(LIBDIR)/libcutap.so
	install -m 0755 $(BUILD)/libcutap_core.so $(DESTDIR)$(LIBDIR)/libcutap_core.so
	install -m 0644 include/cutap.h include/cutap_format.h $(DESTDIR)$(INCDIR)/
	install -m 0644 docs/cutap.1 $(DESTDIR)$(MANDIR)/cutap.1
	install -m 0644 contrib/cutap.bash $(DESTDIR)$(COMPDIR)/cutap
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(CUTAP_VERSION)|' contrib/cutap.pc.in >$(DESTDIR)$(PCDIR)/cutap.pc
	chmod 0644 $(DESTDIR)$(PCDIR)/cutap.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cutap $(DESTDIR)$(LIBDIR)/libcutap.so $(DESTDIR)$(LIBDIR)/libcutap_core.so \
	    $(DESTDIR)$(INCDIR)/cutap.h \
	    $(DESTDIR)$(INCDIR)/cutap_format.h $(DESTDIR)$(MANDIR)/cutap.1 $(DESTDIR)$(COMPDIR)/cutap \
	    $(DESTDIR)$(PCDIR)/cutap.pc

# Regenerate src/generated, include/generated and tests/fake/generated from
# the CUDA headers (needs python3-clang-14 and the CUDA toolkit headers).
regen:
	$(PYTHON) gen/generate.py

regen-check:
	$(PYTHON) gen/generate.py --verify

include tests/tests.mk
include bench/bench.mk

clean:
	rm -rf $(BUILD)
