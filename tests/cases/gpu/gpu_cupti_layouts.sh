#!/usr/bin/env bash
# Issue #31: cutap reads CUPTI's activity records and callback data by
# fixed offsets (src/record/cupti_offsets.h, read through by gpu.c and
# gpu_internal.h), written from CUDA 13.0's headers and meant for every
# CUPTI since 11.8. Each CUPTI's own headers found here are checked
# against those macros (tests/lib/cupti_layouts.py: the newest record of
# each family that CUPTI writes, every field cutap reads): the
# toolkit's (/usr/local/cuda), the system's (/usr/include: Debian's 11.8
# libcupti-dev), and those in CUTAP_CUPTI_INCLUDES (space-separated,
# DIR or DIR+CUDA_INCLUDE_DIR, e.g. 12.4's unpacked from Debian trixie's
# libcupti-dev with 13.0's cuda.h). Checked on 2026-11-28 with 11.8, 12.4
# and 13.0: the same offsets. Skipped where no CUPTI header is installed.
# The check fails when an expected offset is moved (--shift), and when a
# macro of cupti_offsets.h is (a copy of the tree with CO_K_CORR changed);
# and gpu.c, gpu_join.c and gpu_internal.h read CUPTI at no literal offset.
. "$(dirname "$0")/../../lib/init.sh"

dirs=
for d in /usr/local/cuda/include /usr/include; do
    [ -f "$d/cupti.h" ] && [ -f "$d/cupti_activity.h" ] && dirs+=" $d"
done
dirs+=" ${CUTAP_CUPTI_INCLUDES:-}"
[ -n "${dirs// /}" ] || { say "  no CUPTI headers here"; exit 77; }
python3 "$TL/cupti_layouts.py" "${CC:-cc}" $dirs >"$WORK/l.out" 2>&1 || { cat "$WORK/l.out" >&2; exit 1; }
cat "$WORK/l.out"
for f in Kernel.correlationId Memcpy.graphId CUpti_CallbackData.correlationId CUpti_ActivityAPI.cbid; do
    python3 "$TL/cupti_layouts.py" --shift $f "${CC:-cc}" $(echo $dirs | cut -d' ' -f1) >"$WORK/s.out" 2>&1
    [ $? = 1 ] && grep -q "${f#*.} at" "$WORK/s.out" || { say "  --shift $f: the check did not fail"; cat "$WORK/s.out" >&2; exit 1; }
done
# and cutap reads through the macros only: no literal offset left
! grep -nE '\bAT\([a-z]+, *[0-9]' src/record/gpu.c src/record/gpu_join.c src/record/gpu_internal.h \
    || { say "  a literal CUPTI offset above: read it through src/record/cupti_offsets.h"; exit 1; }
mkdir -p "$WORK/tree/tests/lib" "$WORK/tree/src/record"
cp "$TL/cupti_layouts.py" "$WORK/tree/tests/lib/"
sed 's/^#define CO_K_CORR 92 /#define CO_K_CORR 96 /' src/record/cupti_offsets.h >"$WORK/tree/src/record/cupti_offsets.h"
! cmp -s src/record/cupti_offsets.h "$WORK/tree/src/record/cupti_offsets.h" || { say "  CO_K_CORR not found"; exit 1; }
python3 "$WORK/tree/tests/lib/cupti_layouts.py" "${CC:-cc}" $(echo $dirs | cut -d' ' -f1) >"$WORK/m.out" 2>&1
[ $? = 1 ] && grep -q "correlationId at 92, cutap reads 96 (CO_K_CORR)" "$WORK/m.out" \
    || { say "  a moved CO_K_CORR: the check did not fail"; cat "$WORK/m.out" >&2; exit 1; }
exit 0
