#!/usr/bin/env bash
# Every program `make bench` and its bench-* targets build (bench/bench.mk)
# still builds and links, into a folder of its own: none of them runs in CI,
# and bench/sqlite_floor once failed to link (cli/sqlite_dl.c had come to
# need cli/dl_table.c) with no test to say so.
. "$(dirname "$0")/../../lib/init.sh"

B=$WORK/b
progs="coldcall footprint getenv ioctl libnosys.so pages passthrough rtreport sqlite_floor startup"
targets=$(for p in $progs; do printf '%s ' "$B/bench/$p"; done)
# shellcheck disable=SC2086
make -s BUILD="$B" $targets >"$WORK/out" 2>&1 || { cat "$WORK/out" >&2; say "  a bench program did not build"; exit 1; }
for p in $progs; do
    [ -e "$B/bench/$p" ] || { say "  bench/$p not built"; exit 1; }
done
