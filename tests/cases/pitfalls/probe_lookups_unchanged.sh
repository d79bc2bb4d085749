#!/usr/bin/env bash
# A program probing for CUDA gets the answers it gets bare, in every
# lookup form (dlsym and dlvsym on RTLD_DEFAULT, RTLD_NEXT and the
# program's own handle; driver, runtime and library names), with nothing
# loaded, with the driver opened RTLD_LOCAL and then RTLD_GLOBAL: cutap's
# own exports never answer for a driver or library that is not there.
# Through weak references (which bind to cutap's exports: docs/LIMITS.md)
# the calls answer "not found" and cutap loads no driver and no cuBLAS
# although both are on the library path, as a machine's own copies are.
# A library opened RTLD_LOCAL with its libcuda (as a Python extension):
# its calls and its dlsym(RTLD_DEFAULT) of a driver function as bare, also
# after a cu* name that is no CUDA's was looked up on the program's handle,
# and also when cutap's core cannot be loaded (its calls then go to the
# driver of its own group). Lookups and requests that only look like CUDA's
# (cuserid, curl_*, FIGETBSZ) never load cutap's core.
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

lib=$T/libprobe_local.so
$T/t_probe local "$lib" >"$WORK/local.bare" 2>&1 || { say "  bare local run failed"; cat "$WORK/local.bare" >&2; exit 1; }
grep -qx 'its RTLD_DEFAULT lookup: 0 (-1)' "$WORK/local.bare" || { say "  bare local run:"; cat "$WORK/local.bare" >&2; exit 1; }
mkdir -p "$WORK/alone" && cp "$LIB" "$WORK/alone/libcutap.so"
for run in "CUTAP_TRACE=$WORK/local.tr LD_PRELOAD=$LIB" "CUTAP_COUNT=$WORK/local.ct LD_PRELOAD=$LIB" \
           "LD_PRELOAD=$WORK/alone/libcutap.so"; do
    env $run timeout 20 $T/t_probe local "$lib" >"$WORK/local.out" 2>"$WORK/local.err"
    rc=$?
    [ $rc = 0 ] && cmp -s "$WORK/local.bare" "$WORK/local.out" || { say "  local, $run: status $rc"; diff "$WORK/local.bare" "$WORK/local.out" >&2; exit 1; }
done
"$CUTAP" report --format csv "$WORK/local.tr" | grep -q '^driver,cuDriverGetVersion,2,' \
    || { say "  the local library's two cuDriverGetVersion calls not recorded"; "$CUTAP" report "$WORK/local.tr" >&2; exit 1; }
CUTAP_TRACE=$WORK/nocuda LD_PRELOAD=$LIB $T/t_probe nocuda >"$WORK/nocuda.out" 2>&1 || exit 1
grep -qx 'core mapped: no' "$WORK/nocuda.out" || { say "  cutap's core was loaded for names that are no CUDA's:"; cat "$WORK/nocuda.out" >&2; exit 1; }
exit 0
