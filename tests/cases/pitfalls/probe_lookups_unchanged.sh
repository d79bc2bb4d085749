#!/usr/bin/env bash
# A program probing for CUDA gets the answers it gets bare, in every
# lookup form (dlsym and dlvsym on RTLD_DEFAULT, RTLD_NEXT and the
# program's own handle; driver, runtime and library names), with nothing
# loaded, with the driver opened RTLD_LOCAL and then RTLD_GLOBAL: cutap's
# own exports never answer for a driver or library that is not there.
# Through weak references (which bind to cutap's exports: README, Limits)
# the calls answer "not found" and cutap loads no driver and no cuBLAS
# although both are on the library path, as a machine's own copies are.
. "$(dirname "$0")/../../lib/init.sh"

export LD_LIBRARY_PATH=$B/fakelibs:$LD_LIBRARY_PATH
$T/t_probe lookups >"$WORK/bare" 2>&1 || { say "  bare run failed:"; cat "$WORK/bare" >&2; exit 1; }
grep -q '^driver global: RTLD_DEFAULT  cuDriverGetVersion     found: rc 0' "$WORK/bare" \
    || { say "  bare run: the driver made global is not found"; exit 1; }
for mode in CUTAP_TRACE CUTAP_COUNT; do
    env $mode="$WORK/$mode" LD_PRELOAD=$LIB $T/t_probe lookups >"$WORK/$mode.out" 2>"$WORK/$mode.err" \
        || { say "  $mode: status $?"; cat "$WORK/$mode.err" >&2; exit 1; }
    diff "$WORK/bare" "$WORK/$mode.out" >&2 || { say "  $mode: the lookups differ from bare (<)"; exit 1; }
done
# and the calls through the global scope, once the driver is global, are traced
"$CUTAP" report --format csv "$WORK/CUTAP_TRACE" | grep -q '^driver,cuDriverGetVersion,' \
    || { say "  cuDriverGetVersion through the global scope not recorded"; exit 1; }

$T/t_probe weak >"$WORK/weak.bare"; rc=$?
[ $rc = 3 ] && grep -qx 'no driver linked' "$WORK/weak.bare" || { say "  bare weak run: status $rc"; exit 1; }
"$CUTAP" trace -o "$WORK/weak.tr" -- $T/t_probe weak >"$WORK/weak.out" 2>"$WORK/weak.err" \
    || { say "  weak run under cutap: status $?"; cat "$WORK/weak.err" >&2; exit 1; }
printf '%s\n' 'cuInit = 500' 'cuDriverGetVersion = 500 (-1)' 'cublasCreate_v2 = 1' \
    'libcuda mapped: no, libcublas mapped: no' | diff - "$WORK/weak.out" >&2 \
    || { say "  weak references under cutap: output differs (> got)"; exit 1; }
grep -q 'no CUDA driver found' "$WORK/weak.err" || { say "  cutap trace did not say the driver is missing"; exit 1; }
