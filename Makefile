# cutap — build with gcc and make only (generated code is committed).
CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -std=gnu11
BUILD   := build
LIBFLAGS := $(WARN) -fPIC -fvisibility=hidden -Iinclude -Isrc/common -Isrc/core -Isrc/record -Isrc/generated \
            -fno-plt -fno-semantic-interposition
PYTHON  ?= /usr/bin/python3

LIB_C := $(wildcard src/common/*.c src/core/*.c src/record/*.c src/resolve/*.c src/arch/x86_64/*.c src/generated/*.c)
LIB_S := $(wildcard src/arch/x86_64/*.S src/generated/*.S)
LIB_O := $(patsubst %,$(BUILD)/obj/%.o,$(LIB_C) $(LIB_S))
HDRS  := $(wildcard include/*.h include/generated/*.h src/common/*.h src/core/*.h src/record/*.h)

.PHONY: all lib cli test demo regen regen-check clean bench bench-instr
all: lib cli

lib: $(BUILD)/libcutap.so

$(BUILD)/obj/%.c.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIBFLAGS) -c $< -o $@

$(BUILD)/obj/%.S.o: %.S src/arch/x86_64/arg_regs.inc
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libcutap.so: $(LIB_O) src/generated/libcutap.map
	$(CC) -shared -o $@ $(LIB_O) -Wl,--version-script=src/generated/libcutap.map \
	    -Wl,-z,now -Wl,-z,relro -Wl,--no-undefined -ldl -lpthread

# The cutap command. Links no SQLite: export --format sqlite loads
# libsqlite3.so.0 at run time (cli/sqlite_dl.c), so building needs no SQLite
# header or library. libcutap.so links nothing but libc.
CLI_C := $(wildcard cli/*.c cli/generated/*.c) src/common/export_tables.c src/common/filter_expr.c src/common/path_search.c
CLI_H := $(wildcard cli/*.h) include/cutap_format.h $(wildcard src/common/*.h)
cli: $(BUILD)/cutap

$(BUILD)/cutap: $(CLI_C) $(CLI_H)
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(WARN) -Iinclude -Icli -Isrc/common -o $@ $(CLI_C) -ldl

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
