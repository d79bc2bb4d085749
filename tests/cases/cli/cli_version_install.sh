#!/usr/bin/env bash
# cutap --version names the release, the trace format and the plugin
# API; make install (DESTDIR, PREFIX) puts the command, the library
# beside it in ../lib (found there by cutap trace), the headers, the
# pkg-config file, the man page and the bash completion; the installed
# command traces the demo; the trace header names the release.
. "$(dirname "$0")/../../lib/init.sh"

v=$(sed -n 's/^#define CUTAP_VERSION "\(.*\)"$/\1/p' include/cutap.h)
"$CUTAP" --version | grep -qx "cutap $v (trace format [0-9]*, plugin API [0-9]*, CUDA [0-9]*\.[0-9]* headers)" || exit 1
inst=$WORK/inst
make -s install DESTDIR="$inst" PREFIX=/opt/cutap BUILD="$B" >/dev/null || exit 1
for f in bin/cutap lib/libcutap.so include/cutap.h include/cutap_format.h lib/pkgconfig/cutap.pc \
    share/man/man1/cutap.1 share/bash-completion/completions/cutap; do
    [ -f "$inst/opt/cutap/$f" ] || { say "  $f not installed"; exit 1; }
done
grep -qx "Version: $v" "$inst/opt/cutap/lib/pkgconfig/cutap.pc" && grep -qx 'Cflags: -I${includedir}' "$inst/opt/cutap/lib/pkgconfig/cutap.pc" || exit 1
bash -n "$inst/opt/cutap/share/bash-completion/completions/cutap" || exit 1
if command -v man >/dev/null; then man -l "$inst/opt/cutap/share/man/man1/cutap.1" 2>/dev/null | grep -q 'cutap trace' || exit 1; fi
"$inst/opt/cutap/bin/cutap" trace -o "$WORK/inst.tr" -- $T/t_record many 3 >/dev/null 2>"$WORK/inst.err" || { cat "$WORK/inst.err" >&2; exit 1; }
grep -q ': 3 calls, ' "$WORK/inst.err" || { cat "$WORK/inst.err" >&2; exit 1; }
grep -aq "cutap $v" "$WORK/inst.tr"/*.cutap || { say "  the trace header does not name cutap $v"; exit 1; }
