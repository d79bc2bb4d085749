#!/usr/bin/env bash
# Issue #30: dump --failed (strace -Z) and report --failed keep the
# failing calls only (t_record errors: 3 of 6 calls fail); dump
# --min-duration keeps calls of at least that duration (10s: none; 0: all;
# a bad value is a usage error); dump -t prints the local time of day
# (HH:MM:SS.uuuuuu) instead of seconds from the start, the rest of each
# line unchanged; dump --failed indents a call by its callers shown.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_TRACE=$WORK/t LD_PRELOAD=$LIB $T/t_record errors >/dev/null 2>&1 || exit 1
"$CUTAP" dump "$WORK/t" >"$WORK/all" || exit 1
"$CUTAP" dump --failed "$WORK/t" >"$WORK/failed" || exit 1
[ "$(wc -l <"$WORK/all")" = 6 ] && [ "$(wc -l <"$WORK/failed")" = 3 ] && ! grep -q '= CUDA_SUCCESS' "$WORK/failed" \
    && [ "$(grep -c '= CUDA_ERROR' "$WORK/failed")" = 3 ] || { say "  dump --failed:"; cat "$WORK/all" "$WORK/failed" >&2; exit 1; }
"$CUTAP" report --failed --format csv "$WORK/t" >"$WORK/r.csv" || exit 1
grep -q '^driver,cuMemAlloc_v2,2,2,' "$WORK/r.csv" && grep -q '^driver,cuGetErrorName,1,1,' "$WORK/r.csv" \
    && ! grep -q 'cuDriverGetVersion' "$WORK/r.csv" || { say "  report --failed:"; cat "$WORK/r.csv" >&2; exit 1; }
[ "$("$CUTAP" dump --min-duration 10s "$WORK/t" | wc -l)" = 0 ] && [ "$("$CUTAP" dump --min-duration 0 "$WORK/t" | wc -l)" = 6 ] \
    || { say "  dump --min-duration"; exit 1; }
"$CUTAP" dump --min-duration 5parsecs "$WORK/t" >/dev/null 2>&1; [ $? = 2 ] || { say "  a bad duration was taken"; exit 1; }
"$CUTAP" dump -t "$WORK/t" >"$WORK/abs" || exit 1
grep -qvE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} ' "$WORK/abs" && { say "  dump -t: not a time of day"; cat "$WORK/abs" >&2; exit 1; }
diff <(cut -d' ' -f2- "$WORK/all") <(cut -d' ' -f2- "$WORK/abs") >&2 || { say "  dump -t changed more than the time"; exit 1; }
# dump --failed indents a call by its callers shown, not by those left out:
# t_nvtx's injected failures of cuDriverGetVersion inside NVTX ranges (not
# failures: not shown) start at the margin; the same on several threads
CUTAP_TRACE= "$CUTAP" trace --inject 'cuDriverGetVersion:error=CUDA_ERROR_INVALID_VALUE' -o "$WORK/n" -- $T/t_nvtx >/dev/null 2>&1
"$CUTAP" dump "$WORK/n" | grep -q '^[0-9.]* \[[0-9/]*\]   *cuDriverGetVersion(' \
    || { say "  t_nvtx: no cuDriverGetVersion inside a range to test with"; exit 1; }
for th in 1 2; do
    CUTAP_THREADS=$th "$CUTAP" dump --failed "$WORK/n" >"$WORK/nf.$th" || exit 1
    [ "$(wc -l <"$WORK/nf.$th")" -ge 2 ] && ! grep -q '^[0-9.]* \[[0-9/]*\]  ' "$WORK/nf.$th" \
        || { say "  dump --failed (CUTAP_THREADS=$th) indents under callers it does not show:"; cat "$WORK/nf.$th" >&2; exit 1; }
done
cmp -s "$WORK/nf.1" "$WORK/nf.2" || { say "  dump --failed differs between 1 and 2 threads"; exit 1; }
